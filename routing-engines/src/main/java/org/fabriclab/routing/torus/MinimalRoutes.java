package org.fabriclab.routing.torus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The routes of a routing graph from one node to another that are as short as the torus allows:
 * every step takes the packet one hop closer in its dimension, along the ring's shorter way (where
 * both ways are equally short, either, but one way per route). Found by a depth-first walk of the
 * routing graph from {@code begin(source)} that follows only such steps, so it touches the few
 * routes the Angara rules allow between the pair (the direction order, a first step of a higher
 * positive direction, a last step of a lower negative one, the deadlock-free turns) and nothing
 * else of the graph. A pair whose every shortest way crosses a failed link has none; the engines
 * then search the whole graph for it.
 *
 * <p>One walk is capped at {@link #BUDGET} steps, and a pair keeps at most {@link #MAX_ROUTES};
 * a pair beyond either answers {@link #TOO_MANY} and is searched instead. Reusable from pair to
 * pair; not thread-safe.
 */
final class MinimalRoutes {
    /** Routes kept per offset; a pair with more is searched instead. */
    static final int MAX_ROUTES = 256;
    /** Steps one walk may take. */
    static final int BUDGET = 1 << 16;
    /** The answer for a pair whose walk ran out of steps. */
    static final int TOO_MANY = -1;

    private final Torus t;
    private final int n;
    private final int dirs;
    /** Per dimension: hops still to go. */
    private final int[] remaining = new int[Torus.MAX_DIMENSIONS];
    /** The directions that bring the packet closer (both of a dimension half way round, until one is taken), as bits. */
    private int wanted;
    /**
     * The graph's steps along links, compressed: a vertex is a node and a kind (begin, FS_j,
     * dirbit_k, LS_j, end: its number within the node), and a step in direction d leads to the
     * neighbour's vertex of some kind. Vertices differ in which kinds their steps lead to only where
     * channels are missing or a deadlock-free turn is allowed, so the steps are kept per pattern:
     * {@code pattern[v]}, and per pattern and direction d the target kinds {@code kinds[first[p *
     * dirs + d]..first[p * dirs + d + 1] - 1]}, the directions it has steps in, and the directions
     * a route may take after each target kind. A walk reads a few small arrays, not one per edge.
     */
    private final int perNode;
    private final char[] pattern;
    private final int[] first;
    private final int[] kinds;
    private final int[] directionsOf;
    private final int[] later;
    private final int[] next;
    /**
     * True where the vertices of one kind step alike at every node (a whole torus without failed
     * links or size-2 dimensions, whose single links differ at the two ends): the routes from u to
     * v are then those from the node at the origin to the node at v's offset from u, walked once
     * per offset and kept, and a pair costs a look-up.
     */
    private final boolean uniform;
    /** The torus node at each coordinate index (the last dimension fastest), when uniform. */
    private final int[] nodeAt;
    /** Per offset (a coordinate index): where its routes start in {@link #routes}, -1 until walked; how many (beyond {@link #MAX_ROUTES}: too many). */
    private final int[] offsetStart;
    private final int[] offsetRoutes;
    private final int[] offsetHops;
    private final boolean nodesInOrder;
    private final int[] coordinates;
    private final int[] sizes;
    private int lastFrom = -1;
    private int lastTo = -1;
    private int lastOffset;
    private byte[] routes = new byte[1 << 12];
    private int routesUsed;
    private final byte[] path = new byte[SourceRoutes.MAX_HOPS];
    /** Where the routes last asked for start in {@link #routes}. */
    private int found;
    private int hops;
    private int steps;
    /** Collecting: distinct routes so far (kept in {@link #routes} from {@link #routesUsed}), up to {@code limit}. */
    private int distinct;
    private int limit;

    MinimalRoutes(RoutingGraph g) {
        this.t = g.torus();
        this.n = t.dimensions();
        this.dirs = t.directions();
        this.perNode = g.perNode();
        this.later = laterDirections(g);
        int vertices = g.vertexCount();
        pattern = new char[vertices];
        Map<List<Integer>, Integer> ids = new HashMap<>();
        List<int[]> patterns = new ArrayList<>();
        List<Integer> key = new ArrayList<>();
        for (int v = 0; v < vertices; v++) {
            key.clear();
            int u = v / perNode;
            for (int e = g.firstEdge(v); e < g.firstEdge(v + 1); e++) {
                int c = g.edgeLink(e);
                if (c >= 0) {
                    if (g.edgeTarget(e) / perNode != t.next(c) || c / dirs != u) {
                        throw new IllegalStateException("routing graph step " + g.describe(v) + " -> " + g.describe(g.edgeTarget(e))
                                + " does not follow its channel");
                    }
                    key.add((c % dirs) * perNode + g.edgeTarget(e) % perNode);
                }
            }
            Collections.sort(key);
            Integer id = ids.get(key);
            if (id == null) {
                id = patterns.size();
                if (id > Character.MAX_VALUE) {
                    throw new IllegalStateException("more than " + (int) Character.MAX_VALUE + " vertex patterns in the routing graph");
                }
                ids.put(new ArrayList<>(key), id);
                patterns.add(key.stream().mapToInt(Integer::intValue).toArray());
            }
            pattern[v] = (char) (int) id;
        }
        first = new int[patterns.size() * dirs + 1];
        directionsOf = new int[patterns.size()];
        int total = 0;
        for (int[] steps : patterns) {
            total += steps.length;
        }
        kinds = new int[total];
        int x = 0;
        for (int p = 0; p < patterns.size(); p++) {
            int[] steps = patterns.get(p); // sorted by direction, then target kind
            int k = 0;
            for (int d = 0; d < dirs; d++) {
                first[p * dirs + d] = x;
                while (k < steps.length && steps[k] / perNode == d) {
                    kinds[x++] = steps[k++] % perNode;
                    directionsOf[p] |= 1 << d;
                }
            }
        }
        first[patterns.size() * dirs] = x;
        next = new int[t.channelIds()];
        for (int c = 0; c < next.length; c++) {
            next[c] = t.next(c);
        }
        int[] patternOfKind = new int[perNode];
        Arrays.fill(patternOfKind, -1);
        boolean alike = true;
        for (int v = 0; v < vertices && alike; v++) {
            int kind = v % perNode;
            alike = patternOfKind[kind] < 0 || patternOfKind[kind] == pattern[v];
            patternOfKind[kind] = pattern[v];
        }
        int cells = 1;
        for (int k = 0; k < n; k++) {
            cells *= t.size(k);
            alike &= t.size(k) != 2;
        }
        uniform = alike && cells == t.nodes();
        sizes = new int[n];
        coordinates = new int[t.nodes() * n];
        for (int k = 0; k < n; k++) {
            sizes[k] = t.size(k);
            for (int u = 0; u < t.nodes(); u++) {
                coordinates[u * n + k] = t.coordinate(u, k);
            }
        }
        nodeAt = new int[uniform ? cells : 0];
        for (int u = 0; u < nodeAt.length; u++) {
            nodeAt[coordinateIndex(u)] = u;
        }
        offsetStart = new int[nodeAt.length];
        offsetRoutes = new int[nodeAt.length];
        offsetHops = new int[nodeAt.length];
        Arrays.fill(offsetStart, -1);
        boolean inOrder = uniform;
        for (int cell = 0; cell < nodeAt.length && inOrder; cell++) {
            inOrder = nodeAt[cell] == cell;
        }
        nodesInOrder = inOrder;
    }

    /**
     * True if routes are kept per offset and the torus numbers its nodes in coordinate order (the
     * last dimension fastest, as generated tori do): {@link #offsetsFrom} then works.
     */
    boolean nodesInOrder() {
        return nodesInOrder;
    }

    /**
     * The offset from u to every node, in node order, into {@code out} (where {@link
     * #nodesInOrder}): an odometer over the coordinates, one addition per node.
     */
    void offsetsFrom(int u, int[] out) {
        int[][] rotated = new int[Torus.MAX_DIMENSIONS][];
        int stride = 1;
        for (int k = Torus.MAX_DIMENSIONS - 1; k >= 0; k--) {
            int s = k < n ? sizes[k] : 1;
            rotated[k] = new int[s];
            for (int x = 0; x < s; x++) {
                int d = k < n ? x - coordinates[u * n + k] : 0;
                rotated[k][x] = (d < 0 ? d + s : d) * stride;
            }
            stride *= s;
        }
        int v = 0;
        for (int o0 : rotated[0]) {
            for (int o1 : rotated[1]) {
                for (int o2 : rotated[2]) {
                    for (int o3 : rotated[3]) {
                        out[v++] = o0 + o1 + o2 + o3;
                    }
                }
            }
        }
    }

    /** Node u's coordinates as one index, the last dimension fastest (the order tori are generated in). */
    private int coordinateIndex(int u) {
        int index = 0;
        for (int k = 0; k < n; k++) {
            index = index * t.size(k) + t.coordinate(u, k);
        }
        return index;
    }

    /** The offset from u to v as a coordinate index (the last pair's is kept: a pair is often asked about twice). */
    private int offset(int u, int v) {
        if (u == lastFrom && v == lastTo) {
            return lastOffset;
        }
        int index = 0;
        for (int k = 0; k < n; k++) {
            int d = coordinates[v * n + k] - coordinates[u * n + k];
            index = index * sizes[k] + (d < 0 ? d + sizes[k] : d);
        }
        lastFrom = u;
        lastTo = v;
        lastOffset = index;
        return index;
    }

    /** The channels route r (of those last found) takes from u, into {@code out} from {@code at}. */
    void channels(int u, int r, int[] out, int at) {
        int first = start(r);
        int[] next = this.next;
        byte[] routes = this.routes;
        int node = u;
        for (int h = 0, len = hops; h < len; h++) {
            int channel = node * dirs + routes[first + h];
            out[at + h] = channel;
            node = next[channel];
        }
    }

    /** The routes of offset o, walked from the origin the first time they are asked for; how many. */
    private int routesOf(int o) {
        if (offsetStart[o] < 0) {
            int origin = nodeAt[0];
            prepare(origin, nodeAt[o]);
            distinct = 0;
            limit = MAX_ROUTES + 1;
            collect(origin, 0, 0, hops);
            offsetStart[o] = routesUsed;
            offsetRoutes[o] = steps > BUDGET ? MAX_ROUTES + 1 : distinct;
            offsetHops[o] = hops;
            routesUsed += distinct > MAX_ROUTES ? 0 : distinct * hops; // too many: not kept
        }
        hops = offsetHops[o];
        return offsetRoutes[o];
    }

    /**
     * Per vertex kind (begin, FS_j, dirbit_k, LS_j, end: the vertex's number within its node), the
     * directions a route may still take from it, as bits: a walk stops where a dimension still to
     * cross has none (after +Y, a route of the direction order takes +X no more). Over every
     * node's vertices (the deadlock-free turns differ from channel to channel), to a fixed point.
     */
    private static int[] laterDirections(RoutingGraph g) {
        int perNode = g.perNode();
        int dirs = g.torus().directions();
        // kind -> kind moves, with the directions they take
        int[] step = new int[perNode * perNode];
        for (int v = 0; v < g.vertexCount(); v++) {
            for (int e = g.firstEdge(v); e < g.firstEdge(v + 1); e++) {
                int c = g.edgeLink(e);
                if (c >= 0) {
                    step[(v % perNode) * perNode + g.edgeTarget(e) % perNode] |= 1 << (c % dirs);
                }
            }
        }
        int[] later = new int[perNode];
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int a = 0; a < perNode; a++) {
                int bits = later[a];
                for (int b = 0; b < perNode; b++) {
                    if (step[a * perNode + b] != 0) {
                        bits |= step[a * perNode + b] | later[b];
                    }
                }
                if (bits != later[a]) {
                    later[a] = bits;
                    changed = true;
                }
            }
        }
        return later;
    }

    /**
     * The distinct minimal routes from u to v, at least {@code limit} of them if there are as many
     * (all of them where routes are kept per offset): their number, 0 if there is none, or {@link
     * #TOO_MANY}. Route r is {@link #hops()} directions of {@link #directions()} from {@link
     * #start(int) start(r)}, valid until the next question.
     */
    int routes(int u, int v, int limit) {
        if (uniform) {
            int o = offset(u, v);
            int c = routesOf(o);
            found = offsetStart[o];
            return c > MAX_ROUTES ? TOO_MANY : c;
        }
        prepare(u, v);
        distinct = 0;
        this.limit = Math.min(limit, MAX_ROUTES + 1);
        collect(u, 0, 0, hops);
        found = routesUsed;
        return steps > BUDGET || distinct > MAX_ROUTES ? TOO_MANY : distinct;
    }

    /** True if the routes are kept per offset (see {@link #uniform}): every pair of one offset has the same routes. */
    boolean perOffset() {
        return uniform;
    }

    /** Offsets there are (coordinate indices, 0 being a node's own), when routes are kept per offset. */
    int offsets() {
        return nodeAt.length;
    }

    /** The node at the origin (all coordinates 0), when routes are kept per offset. */
    int origin() {
        return nodeAt[0];
    }

    /** The node at offset o from the origin, when routes are kept per offset. */
    int nodeAtOffset(int o) {
        return nodeAt[o];
    }

    /** The offset from u to v, when routes are kept per offset. */
    int offsetOf(int u, int v) {
        return offset(u, v);
    }

    /** The routes of offset o, as {@link #routes} gives a pair's (routes are kept per offset). */
    int routesAt(int o) {
        int c = routesOf(o);
        found = offsetStart[o];
        return c > MAX_ROUTES ? TOO_MANY : c;
    }

    /** Hops of the routes last found. */
    int hops() {
        return hops;
    }

    /** Where route r of those last found starts in {@link #directions()}. */
    int start(int r) {
        return found + r * hops;
    }

    /** The directions of the routes last found. */
    byte[] directions() {
        return routes;
    }

    private void prepare(int u, int v) {
        hops = 0;
        steps = 0;
        wanted = 0;
        for (int k = 0; k < n; k++) {
            int s = t.size(k);
            int forward = Math.floorMod(t.coordinate(v, k) - t.coordinate(u, k), s);
            int back = s - forward;
            if (forward == 0) {
                remaining[k] = 0;
            } else if (forward < back) {
                remaining[k] = forward;
                wanted |= 1 << k;
            } else if (back < forward) {
                remaining[k] = back;
                wanted |= 1 << (n + k);
            } else {
                remaining[k] = forward; // half way round (or the single link of a size-2 dimension): either way
                wanted |= (1 << k) | (1 << (n + k));
            }
            hops += remaining[k];
        }
    }

    /**
     * True if every dimension still to cross ({@code wanted}: the directions that bring the packet
     * closer) has such a direction among {@code later}, those a route may still take.
     */
    private boolean mayFinish(int wanted, int later) {
        int available = later & wanted;
        int dims = (1 << n) - 1;
        int required = (wanted | wanted >>> n) & dims;
        int satisfied = (available | available >>> n) & dims;
        return (required & ~satisfied) == 0;
    }

    /** The directions still wanted after a step in direction d: that way chosen, the dimension dropped once crossed. */
    private int after(int wanted, int d) {
        int k = d < n ? d : d - n;
        int w = wanted & ~(1 << (d < n ? d + n : d - n));
        return remaining[k] == 0 ? w & ~(1 << d) : w;
    }

    private void collect(int node, int kind, int depth, int left) {
        if (left == 0) {
            arrive(depth); // every vertex has its step to end
            return;
        }
        int before = wanted;
        int p = pattern[node * perNode + kind];
        for (int ds = before & directionsOf[p]; ds != 0 && distinct < limit; ds &= ds - 1) {
            int d = Integer.numberOfTrailingZeros(ds);
            int k = d < n ? d : d - n;
            remaining[k]--;
            int then = after(before, d);
            path[depth] = (byte) d;
            int to = next[node * dirs + d];
            for (int x = first[p * dirs + d]; x < first[p * dirs + d + 1] && distinct < limit && ++steps <= BUDGET; x++) {
                if (left == 1 || mayFinish(then, later[kinds[x]])) {
                    wanted = then;
                    collect(to, kinds[x], depth + 1, left - 1);
                }
            }
            remaining[k]++;
        }
        wanted = before;
    }

    /** A route found by {@link #collect}: kept after the others unless it repeats one (the same directions by other vertices). */
    private void arrive(int depth) {
        for (int r = 0; r < distinct; r++) {
            int at = routesUsed + r * depth;
            if (Arrays.equals(path, 0, depth, routes, at, at + depth)) {
                return;
            }
        }
        int at = routesUsed + distinct * depth;
        if (at + depth > routes.length) {
            routes = Arrays.copyOf(routes, Math.max(at + depth, routes.length * 2));
        }
        System.arraycopy(path, 0, routes, at, depth);
        distinct++;
    }
}
