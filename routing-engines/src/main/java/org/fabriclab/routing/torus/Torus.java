package org.fabriclab.routing.torus;

import java.util.Arrays;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabriclab.routing.fabric.Fabric;

/**
 * A fabric's switches seen as the nodes of an n-dimensional torus (n from 1 to 4), as the Angara
 * paper models its network: node {@code u} has coordinates {@code (u_1..u_n)}, and the 2n
 * directions are ordered {@code +X +Y +Z +K -X -Y -Z -K} (direction {@code j < n} is +1 in
 * dimension j, {@code j >= n} is -1 in dimension {@code j - n}). A dimension of size 2 is a single
 * link (a mesh along it: +1 from coordinate 0, -1 from coordinate 1); a dimension of size 1 has
 * no link. A channel {@code (u, D)} exists when the fabric has a link from u to its neighbour in
 * direction D; a torus link missing from the fabric is a failed link, routed around.
 *
 * <p>Coordinates come from the fabric (generated tori carry them) or from switch names of the
 * form {@code T<x>_<y>[_<z>[_<k>]]}, as {@code shared/peers/opensm/gen_net.py torus} writes them.
 * A fabric that is not such a torus (a switch without coordinates, two switches on one
 * coordinate, a link between switches that are not torus neighbours, more than half the places
 * without a switch) is refused with the reason. A place without a switch is a failed node: its
 * links are missing channels, and the engines route around it.
 */
public final class Torus {
    /** The most dimensions Angara routes (its routers have eight links). */
    public static final int MAX_DIMENSIONS = 4;
    private static final Pattern NAME = Pattern.compile("T(\\d+(?:_\\d+){0,3})");

    private final Fabric fabric;
    private final int n;
    private final int[] size;
    private final int nodes;
    /** Torus node -> fabric switch node, and back. */
    private final int[] switchNode;
    private final int[] torusNode;
    /** Per torus node, its coordinates, n each. */
    private final int[] coord;
    /** Per channel {@code u * 2n + dir}: the neighbour's torus node, or -1 if the channel does not exist. */
    private final int[] next;
    /** Per channel: the fabric port number on u that carries it, or 0. */
    private final int[] port;

    private Torus(Fabric fabric, int n, int[] size, int[] switchNode, int[] coord) {
        this.fabric = fabric;
        this.n = n;
        this.size = size;
        this.nodes = switchNode.length;
        this.switchNode = switchNode;
        this.coord = coord;
        torusNode = new int[fabric.nodeCount()];
        Arrays.fill(torusNode, -1);
        for (int u = 0; u < nodes; u++) {
            if (switchNode[u] >= 0) {
                torusNode[switchNode[u]] = u;
            }
        }
        next = new int[nodes * 2 * n];
        port = new int[nodes * 2 * n];
        Arrays.fill(next, -1);
    }

    /**
     * The torus of {@code fabric}'s switches.
     *
     * @throws IllegalArgumentException naming what makes the fabric no torus
     */
    public static Torus of(Fabric fabric) {
        return of(fabric, Map.of());
    }

    /**
     * The torus of {@code fabric}'s switches, with coordinates by switch name from {@code
     * coordinates} first (a coordinates file: a net file carries none), then from the fabric,
     * then from names of the form {@code T<x>_<y>...}.
     *
     * @throws IllegalArgumentException naming what makes the fabric no torus
     */
    public static Torus of(Fabric fabric, Map<String, int[]> coordinates) {
        int switches = fabric.switchCount();
        if (switches == 0) {
            throw new IllegalArgumentException("the fabric has no switches, so no torus");
        }
        int[][] c = new int[switches][];
        int n = -1;
        for (int s = 0; s < switches; s++) {
            int node = fabric.switchNode(s);
            int[] given = coordinates.get(fabric.name(node));
            c[s] = given != null ? given.clone() : fabric.coordinates(node).orElseGet(() -> parseName(fabric.name(node)));
            if (c[s] == null) {
                throw new IllegalArgumentException("switch " + fabric.name(node) + " has no torus coordinates: generated tori carry them, "
                        + "a net file names its switches T<x>_<y>[_<z>[_<k>]], or a coordinates file gives them");
            }
            if (n < 0) {
                n = c[s].length;
            } else if (c[s].length != n) {
                throw new IllegalArgumentException("switch " + fabric.name(node) + " has " + c[s].length + " coordinates, others " + n);
            }
        }
        if (n < 1 || n > MAX_DIMENSIONS) {
            throw new IllegalArgumentException("a torus of " + n + " dimensions: Angara routes 1 to " + MAX_DIMENSIONS);
        }
        int[] size = new int[n];
        for (int[] x : c) {
            for (int k = 0; k < n; k++) {
                size[k] = Math.max(size[k], x[k] + 1);
            }
        }
        long cells = 1;
        for (int d : size) {
            cells *= d;
        }
        if (switches * 2 < cells) {
            throw new IllegalArgumentException("the switches' coordinates span " + Arrays.toString(size).replace(", ", "x") + " = " + cells
                    + " places but there are only " + switches + " switches: more than half the torus missing is not routed as a torus");
        }
        // a place without a switch is a failed node: its links are missing channels, routed around
        int[] switchNode = new int[(int) cells];
        Arrays.fill(switchNode, -1);
        int[] coord = new int[(int) cells * n];
        for (int u = 0, rest; u < cells; u++) {
            rest = u;
            for (int k = n - 1; k >= 0; k--) {
                coord[u * n + k] = rest % size[k];
                rest /= size[k];
            }
        }
        for (int s = 0; s < switches; s++) {
            int u = index(c[s], size);
            if (switchNode[u] >= 0) {
                throw new IllegalArgumentException("two switches sit at " + Arrays.toString(c[s]) + ", one of them " + fabric.name(fabric.switchNode(s)));
            }
            switchNode[u] = fabric.switchNode(s);
        }
        Torus t = new Torus(fabric, n, size, switchNode, coord);
        t.cable();
        return t;
    }

    private static int[] parseName(String name) {
        Matcher m = NAME.matcher(name);
        if (!m.matches()) {
            return null;
        }
        return Arrays.stream(m.group(1).split("_")).mapToInt(Integer::parseInt).toArray();
    }

    /** Row-major index, the last coordinate fastest (the generators' order). */
    private static int index(int[] c, int[] size) {
        int u = 0;
        for (int k = 0; k < size.length; k++) {
            u = u * size[k] + c[k];
        }
        return u;
    }

    /** Finds each channel's port; refuses links between switches that are not torus neighbours. */
    private void cable() {
        for (int u = 0; u < nodes; u++) {
            int sw = switchNode[u];
            if (sw < 0) {
                continue; // a failed node: no channel leaves or enters it
            }
            for (int p = 1; p <= fabric.portCount(sw); p++) {
                int peer = fabric.peerNode(fabric.globalPort(sw, p));
                if (peer == Fabric.NONE || !fabric.isSwitch(peer)) {
                    continue;
                }
                int v = torusNode[peer];
                int dir = -1;
                for (int d = 0; d < 2 * n && dir < 0; d++) {
                    if (neighbourByCoordinates(u, d) == v && port[u * 2 * n + d] == 0) {
                        dir = d;
                    }
                }
                if (dir < 0) {
                    throw new IllegalArgumentException("the link " + fabric.name(sw) + "[" + p + "] -> " + fabric.name(peer)
                            + " joins switches that are not torus neighbours (or is a second cable between neighbours): not the torus "
                            + Arrays.toString(size).replace(", ", "x"));
                }
                next[u * 2 * n + dir] = v;
                port[u * 2 * n + dir] = p;
            }
        }
    }

    /** The torus neighbour of u in direction {@code dir} by coordinates alone (-1 where a mesh dimension ends or a dimension is 1). */
    private int neighbourByCoordinates(int u, int dir) {
        int k = dir % n;
        int d = size[k];
        int x = coord[u * n + k];
        boolean plus = dir < n;
        if (d == 1 || d == 2 && (plus ? x == 1 : x == 0)) {
            return -1;
        }
        int stride = 1;
        for (int j = n - 1; j > k; j--) {
            stride *= size[j];
        }
        int y = plus ? (x + 1) % d : (x - 1 + d) % d;
        return u + (y - x) * stride;
    }

    public Fabric fabric() {
        return fabric;
    }

    /** Number of dimensions n. */
    public int dimensions() {
        return n;
    }

    /** Number of directions, 2n. */
    public int directions() {
        return 2 * n;
    }

    /** The size of dimension k. */
    public int size(int k) {
        return size[k];
    }

    /** Number of torus nodes: the places of the torus, failed ones included. */
    public int nodes() {
        return nodes;
    }

    /** True if torus node u has its switch (not a failed node). */
    public boolean present(int u) {
        return switchNode[u] >= 0;
    }

    /** Coordinate k of node u. */
    public int coordinate(int u, int k) {
        return coord[u * n + k];
    }

    /** The fabric switch node of torus node u, or -1 for a failed node (a place without a switch). */
    public int switchNode(int u) {
        return switchNode[u];
    }

    /** The torus node of fabric node {@code node}, or -1 if it is not a switch of this torus. */
    public int torusNode(int node) {
        return torusNode[node];
    }

    /** Channel id of {@code (u, dir)}: {@code u * 2n + dir}. */
    public int channel(int u, int dir) {
        return u * 2 * n + dir;
    }

    /** Number of channel ids, existing or not: {@code nodes * 2n}. */
    public int channelIds() {
        return nodes * 2 * n;
    }

    /** The node a channel leads to, or -1 if it does not exist (no such link, or a failed one). */
    public int next(int channel) {
        return next[channel];
    }

    /** The fabric port on the channel's node that carries it (0 if it does not exist). */
    public int port(int channel) {
        return port[channel];
    }

    /** The port of each direction at fabric switch {@code node} (0 where it has none): its direction-port table. */
    public int[] directionPorts(int node) {
        int u = torusNode[node];
        int[] out = new int[2 * n];
        for (int d = 0; d < out.length && u >= 0; d++) {
            out[d] = port[channel(u, d)];
        }
        return out;
    }

    /** The direction opposite to {@code dir} (+X and -X, ...). */
    public int opposite(int dir) {
        return dir < n ? dir + n : dir - n;
    }

    /** The channel that arrives at u travelling in direction {@code dir} (from u's neighbour the other way), or -1. */
    public int arrivalChannel(int u, int dir) {
        int from = next[channel(u, opposite(dir))];
        if (from < 0) {
            return -1;
        }
        int c = channel(from, dir);
        return next[c] == u ? c : -1;
    }

    /** The name of direction {@code dir}: +X, +Y, +Z, +K, -X, ... */
    public String directionName(int dir) {
        return (dir < n ? "+" : "-") + "XYZK".charAt(dir % n);
    }

    /** A node's name in the fabric. */
    public String name(int u) {
        if (switchNode[u] < 0) {
            StringBuilder sb = new StringBuilder("T");
            for (int k = 0; k < n; k++) {
                sb.append(k == 0 ? "" : "_").append(coord[u * n + k]);
            }
            return sb.append(" (failed: no switch)").toString();
        }
        return fabric.name(switchNode[u]);
    }
}

