package org.fabriclab.routing.fabric;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where each node of a fabric sits, for people looking at it (metrics labels, the fabric view):
 * its tree level, its Dragonfly group, its torus coordinates, and what kind each link is. Taken
 * from the generator where it said (a fabric built by {@code Topologies}), else inferred from what
 * a discovered fabric still has: levels by hop distance from the hosts, groups and coordinates
 * from the names the generators and {@code gen_net.py} give ({@code G<g>_...}, {@code T<x>_<y>...}).
 * Nothing here is used for routing.
 */
public final class FabricLayout {
    private static final Pattern GROUP = Pattern.compile("G(\\d+)_.*");
    private static final Pattern TORUS = Pattern.compile("T(\\d+(?:_\\d+){0,3})");
    private static final String DIMENSIONS = "xyzw";

    private final Fabric fabric;
    private final int[] level;
    private final int[] group;
    private final int[][] coordinates;

    private FabricLayout(Fabric fabric, int[] level, int[] group, int[][] coordinates) {
        this.fabric = fabric;
        this.level = level;
        this.group = group;
        this.coordinates = coordinates;
    }

    /** The layout of {@code fabric}. */
    public static FabricLayout of(Fabric fabric) {
        int n = fabric.nodeCount();
        int[] group = new int[n];
        int[][] coords = new int[n][];
        for (int v = 0; v < n; v++) {
            group[v] = fabric.group(v) != Fabric.NONE ? fabric.group(v) : parseGroup(fabric.name(v));
            int[] given = fabric.coordinates(v).orElse(null);
            coords[v] = given != null || !fabric.isSwitch(v) ? given : parseCoordinates(fabric.name(v));
        }
        return new FabricLayout(fabric, levels(fabric), group, coords);
    }

    /**
     * Hosts 0, switches by hop distance from the nearest switch with a host (leaves 1), unless the
     * generator gave levels; {@link Fabric#NONE} for a switch no host reaches.
     */
    private static int[] levels(Fabric f) {
        int n = f.nodeCount();
        int[] level = new int[n];
        boolean given = false;
        for (int v = 0; v < n; v++) {
            level[v] = f.isSwitch(v) ? f.level(v) : 0;
            given |= f.isSwitch(v) && f.level(v) != Fabric.NONE;
        }
        if (given) {
            return level;
        }
        Arrays.fill(level, Fabric.NONE);
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int v = 0; v < n; v++) {
            if (!f.isSwitch(v)) {
                level[v] = 0;
                queue.add(v);
            }
        }
        while (!queue.isEmpty()) {
            int v = queue.poll();
            for (int p = 1; p <= f.portCount(v); p++) {
                int peer = f.peerNode(f.globalPort(v, p));
                if (peer != Fabric.NONE && level[peer] == Fabric.NONE) {
                    level[peer] = level[v] + 1;
                    queue.add(peer);
                }
            }
        }
        return level;
    }

    private static int parseGroup(String name) {
        Matcher m = GROUP.matcher(name);
        return m.matches() ? Integer.parseInt(m.group(1)) : Fabric.NONE;
    }

    private static int[] parseCoordinates(String name) {
        Matcher m = TORUS.matcher(name);
        return m.matches() ? Arrays.stream(m.group(1).split("_")).mapToInt(Integer::parseInt).toArray() : null;
    }

    /** Hosts 0, leaves 1, their parents 2, ...; {@link Fabric#NONE} where unknown. */
    public int level(int node) {
        return level[node];
    }

    /** The Dragonfly group, or {@link Fabric#NONE}. */
    public int group(int node) {
        return group[node];
    }

    /** Torus or mesh coordinates of a switch (a copy), or null where unknown. */
    public int[] coordinates(int node) {
        return coordinates[node] == null ? null : coordinates[node].clone();
    }

    /**
     * What the link leaving {@code node} by {@code port} is: {@code host} (a channel adapter at
     * either end), {@code local} or {@code global} (within or between Dragonfly groups), {@code
     * torus-x} ... {@code torus-w} (the first dimension the ends differ in), {@code leaf-spine} or
     * {@code spine-core} (tree levels 1-2 and 2-3), else {@code switch}; null if the port is not linked.
     */
    public String linkKind(int node, int port) {
        int peer = fabric.peerNode(fabric.globalPort(node, port));
        if (peer == Fabric.NONE) {
            return null;
        }
        if (!fabric.isSwitch(node) || !fabric.isSwitch(peer)) {
            return "host";
        }
        if (group[node] != Fabric.NONE && group[peer] != Fabric.NONE) {
            return group[node] == group[peer] ? "local" : "global";
        }
        int[] a = coordinates[node];
        int[] b = coordinates[peer];
        if (a != null && b != null && a.length == b.length) {
            for (int d = 0; d < a.length && d < DIMENSIONS.length(); d++) {
                if (a[d] != b[d]) {
                    return "torus-" + DIMENSIONS.charAt(d);
                }
            }
        }
        int low = Math.min(level[node], level[peer]);
        int high = Math.max(level[node], level[peer]);
        if (low == 1 && high == 2) {
            return "leaf-spine";
        }
        if (low == 2 && high == 3) {
            return "spine-core";
        }
        return "switch";
    }
}
