package org.fabriclab.routing.dragonfly;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.fabriclab.routing.fabric.Fabric;

/**
 * A fabric read as a Dragonfly (Kim et al.): groups of routers cabled all-to-all by local links,
 * groups joined by global links, hosts on the routers. Groups come from the generator
 * ({@link Fabric#group}), else from {@code G<n>_} node names (the generator's, as discovery reads
 * them back), else from the cabling: two switches share a neighbour switch exactly when their link
 * is local (a group of three or more routers is a clique; with one global link between two groups
 * there is no triangle across groups). Groups are numbered 0.. in the order of their numbers (or
 * of their first switch), routers 0.. within a group in node order, a router's hosts 0.. (its
 * slots) in port order.
 *
 * <p>Required, with the reason when not: every switch in a group, every group the same number of
 * routers, every two routers of a group cabled together, every two groups joined by a global link,
 * at most {@link DragonflyHeader#MAX_GROUPS} groups and {@link DragonflyHeader#MAX_ROUTERS} routers
 * a group. Immutable.
 */
public final class DragonflyFabric {
    private static final Pattern GROUP_NAME = Pattern.compile("G(\\d+)_.*");
    private final Fabric fabric;
    private final int groups;
    private final int routers;
    private final int hostsPerRouter;
    /** Per switch number: its group and index. */
    private final int[] groupOf;
    private final int[] indexOf;
    /** Per group, per index: switch number. */
    private final int[][] router;
    /** Per endpoint: its slot on its router. */
    private final int[] slot;

    private DragonflyFabric(Fabric fabric, int[] groupOf) {
        this.fabric = fabric;
        int n = fabric.switchCount();
        this.groupOf = groupOf;
        int g = 0;
        for (int x : groupOf) {
            g = Math.max(g, x + 1);
        }
        groups = g;
        int[] size = new int[g];
        for (int x : groupOf) {
            size[x]++;
        }
        routers = size[0];
        for (int i = 0; i < g; i++) {
            if (size[i] != routers) {
                throw new IllegalArgumentException("not a dragonfly: group " + i + " has " + size[i] + " routers, group 0 has " + routers);
            }
        }
        if (g > DragonflyHeader.MAX_GROUPS || routers > DragonflyHeader.MAX_ROUTERS) {
            throw new IllegalArgumentException("a dragonfly of " + g + " groups of " + routers + " routers is beyond the packet header's "
                    + DragonflyHeader.MAX_GROUPS + " groups of " + DragonflyHeader.MAX_ROUTERS);
        }
        indexOf = new int[n];
        router = new int[g][routers];
        int[] next = new int[g];
        for (int s = 0; s < n; s++) {
            indexOf[s] = next[groupOf[s]]++;
            router[groupOf[s]][indexOf[s]] = s;
        }
        slot = new int[fabric.endpointCount()];
        Arrays.fill(slot, -1);
        int[] hosts = new int[n];
        for (int s = 0; s < n; s++) {
            int node = fabric.switchNode(s);
            for (int p = 1; p <= fabric.portCount(node); p++) {
                int peer = fabric.peerNode(fabric.globalPort(node, p));
                if (peer != Fabric.NONE && !fabric.isSwitch(peer)) {
                    int e = fabric.endpointOfPort(fabric.peerGlobalPort(fabric.globalPort(node, p)));
                    slot[e] = hosts[s]++;
                }
            }
        }
        int p = 0;
        for (int h : hosts) {
            p = Math.max(p, h);
        }
        hostsPerRouter = p;
        checkCabling();
    }

    /**
     * {@code f} as a Dragonfly.
     *
     * @throws IllegalArgumentException saying why it is not one
     */
    public static DragonflyFabric of(Fabric f) {
        if (f.switchCount() < 2) {
            throw new IllegalArgumentException("not a dragonfly: " + f.switchCount() + " switch");
        }
        return new DragonflyFabric(f, groups(f));
    }

    /** Per switch, its group numbered 0..; from the generator, the names, or the cabling. */
    private static int[] groups(Fabric f) {
        int n = f.switchCount();
        int[] raw = new int[n];
        boolean all = true;
        for (int s = 0; s < n; s++) {
            raw[s] = f.group(f.switchNode(s));
            all &= raw[s] != Fabric.NONE;
        }
        if (!all) {
            all = true;
            for (int s = 0; s < n && all; s++) {
                Matcher m = GROUP_NAME.matcher(f.name(f.switchNode(s)));
                all = m.matches();
                raw[s] = all ? Integer.parseInt(m.group(1)) : Fabric.NONE;
            }
        }
        if (!all) {
            raw = groupsByCabling(f);
        }
        TreeMap<Integer, Integer> number = new TreeMap<>();
        for (int x : raw) {
            number.putIfAbsent(x, 0);
        }
        int i = 0;
        for (var e : number.entrySet()) {
            e.setValue(i++);
        }
        int[] out = new int[n];
        for (int s = 0; s < n; s++) {
            out[s] = number.get(raw[s]);
        }
        return out;
    }

    /** Groups as the components of the links whose two switches share a neighbour switch. */
    private static int[] groupsByCabling(Fabric f) {
        int n = f.switchCount();
        List<int[]> neighbours = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            neighbours.add(switchNeighbours(f, s));
        }
        int[] parent = new int[n];
        for (int s = 0; s < n; s++) {
            parent[s] = s;
        }
        for (int s = 0; s < n; s++) {
            for (int t : neighbours.get(s)) {
                if (t > s && shareOne(neighbours.get(s), neighbours.get(t))) {
                    parent[find(parent, s)] = find(parent, t);
                }
            }
        }
        int[] out = new int[n];
        for (int s = 0; s < n; s++) {
            out[s] = find(parent, s);
        }
        return out;
    }

    private static int find(int[] parent, int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }

    private static boolean shareOne(int[] a, int[] b) {
        int i = 0;
        int j = 0;
        while (i < a.length && j < b.length) {
            if (a[i] == b[j]) {
                return true;
            }
            if (a[i] < b[j]) {
                i++;
            } else {
                j++;
            }
        }
        return false;
    }

    /** The switch numbers cabled to switch {@code s}, ascending, each once. */
    private static int[] switchNeighbours(Fabric f, int s) {
        int node = f.switchNode(s);
        return IntStream.rangeClosed(1, f.portCount(node)).map(p -> f.peerNode(f.globalPort(node, p)))
                .filter(peer -> peer != Fabric.NONE && f.isSwitch(peer)).map(f::switchIndex).sorted().distinct().toArray();
    }

    private void checkCabling() {
        boolean[][] joined = new boolean[groups][groups];
        for (int s = 0; s < fabric.switchCount(); s++) {
            boolean[] local = new boolean[routers];
            int node = fabric.switchNode(s);
            for (int p = 1; p <= fabric.portCount(node); p++) {
                int peer = fabric.peerNode(fabric.globalPort(node, p));
                if (peer == Fabric.NONE || !fabric.isSwitch(peer)) {
                    continue;
                }
                int t = fabric.switchIndex(peer);
                if (groupOf[t] == groupOf[s]) {
                    local[indexOf[t]] = true;
                } else {
                    joined[groupOf[s]][groupOf[t]] = true;
                }
            }
            for (int i = 0; i < routers; i++) {
                if (i != indexOf[s] && !local[i]) {
                    throw new IllegalArgumentException("not a dragonfly: routers " + fabric.name(node) + " and "
                            + fabric.name(fabric.switchNode(router[groupOf[s]][i])) + " of group " + groupOf[s] + " are not cabled together");
                }
            }
        }
        for (int a = 0; a < groups; a++) {
            for (int b = 0; b < groups; b++) {
                if (a != b && !joined[a][b]) {
                    throw new IllegalArgumentException("not a dragonfly: no global link joins groups " + a + " and " + b);
                }
            }
        }
    }

    public Fabric fabric() {
        return fabric;
    }

    /** Number of groups (g). */
    public int groups() {
        return groups;
    }

    /** Routers per group (a). */
    public int routers() {
        return routers;
    }

    /** The most hosts any router has (p): the slots of a Q-table's rows. */
    public int hostsPerRouter() {
        return hostsPerRouter;
    }

    /** The group of switch number {@code s}. */
    public int group(int s) {
        return groupOf[s];
    }

    /** The index of switch number {@code s} in its group. */
    public int index(int s) {
        return indexOf[s];
    }

    /** The switch number of router {@code index} of group {@code group}. */
    public int router(int group, int index) {
        return router[group][index];
    }

    /** Endpoint {@code e}'s slot on its router, -1 if it is not cabled to a switch. */
    public int slot(int e) {
        return slot[e];
    }
}
