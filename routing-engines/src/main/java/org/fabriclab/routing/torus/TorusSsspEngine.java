package org.fabriclab.routing.torus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code torus-sssp}: Algorithms 3 and 4 of the Angara paper.
 * <ol>
 *   <li><b>Unique routes.</b> A breadth-first search from every source counts the shortest routes to
 *       each destination; a pair with exactly one (distinct as a sequence of directions: the
 *       routing graph may reach one route by two vertex paths, a first step taken as FS or as a
 *       standard step) takes it, and its links' weights rise by one.
 *   <li><b>Sort and group.</b> The other pairs, in ascending order of their turns (dimensions in
 *       which source and destination differ, less one), then of their length, then by source,
 *       grouped by those three keys. For each group, a single-source shortest-path search from the
 *       source to the group's destinations (breadth-first with relaxation: every edge costs
 *       {@code |N|^2} plus its link's weight, so no detour is ever cheaper and a level's distances
 *       are final when it ends; the search stops once every destination is reached); of the
 *       paths found, those that share no link with one taken before them in this round are taken
 *       and their links' weights raised, and the search repeats for the rest.
 * </ol>
 */
public final class TorusSsspEngine implements TorusEngine {
    public static final String NAME = "torus-sssp";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SourceRoutes route(RoutingGraph g, int[] nodes, long seed) {
        Torus t = g.torus();
        SourceRoutes.Builder b = new SourceRoutes.Builder(t, nodes);
        int m = b.size();
        int vertices = g.vertexCount();
        long[] weight = new long[t.channelIds()];
        List<long[]> pending = new ArrayList<>(); // (turns, length, source, destination)
        // 1) unique routes
        ShortestRoutes shortest = new ShortestRoutes(g);
        for (int i = 0; i < m; i++) {
            int source = g.begin(b.member(i));
            shortest.from(source);
            for (int j = 0; j < m; j++) {
                if (i == j) {
                    continue;
                }
                int end = g.end(b.member(j));
                if (!shortest.reached(end)) {
                    b.unroutable(i, j);
                    continue;
                }
                List<byte[]> routes = shortest.vertexPaths(end) <= ShortestRoutes.DUPLICATES ? shortest.routes(end, 2) : null;
                if (routes != null && routes.size() == 1) {
                    apply(b, t, i, j, routes.get(0), weight);
                } else {
                    pending.add(new long[] {turns(t, b.member(i), b.member(j)), shortest.hops(end), i, j});
                }
            }
        }
        // 2) sort and group
        pending.sort((x, y) -> {
            for (int k = 0; k < 4; k++) {
                int c = Long.compare(x[k], y[k]);
                if (c != 0) {
                    return c;
                }
            }
            return 0;
        });
        long baseCost = (long) m * m;
        Search search = new Search(vertices);
        boolean[] usedThisRound = new boolean[t.channelIds()];
        int from = 0;
        while (from < pending.size()) {
            int to = from;
            long[] key = pending.get(from);
            while (to < pending.size() && pending.get(to)[0] == key[0] && pending.get(to)[1] == key[1] && pending.get(to)[2] == key[2]) {
                to++;
            }
            int i = (int) key[2];
            List<Integer> remaining = new ArrayList<>();
            for (int k = from; k < to; k++) {
                remaining.add((int) pending.get(k)[3]);
            }
            while (!remaining.isEmpty()) {
                search.run(g, g.begin(b.member(i)), remaining, b, weight, baseCost);
                Arrays.fill(usedThisRound, false);
                List<Integer> left = new ArrayList<>();
                for (int j : remaining) {
                    byte[] dirs = pathTo(g, t, g.begin(b.member(i)), g.end(b.member(j)), search.parentEdge, search.parent);
                    if (crosses(t, b.member(i), dirs, usedThisRound)) {
                        left.add(j);
                        continue;
                    }
                    mark(t, b.member(i), dirs, usedThisRound);
                    apply(b, t, i, j, dirs, weight);
                }
                remaining = left;
            }
            from = to;
        }
        return b.build(NAME);
    }

    /** Dimensions in which u and v differ, less one: the turns of a direction-order route between them. */
    static int turns(Torus t, int u, int v) {
        int differ = 0;
        for (int k = 0; k < t.dimensions(); k++) {
            differ += t.coordinate(u, k) != t.coordinate(v, k) ? 1 : 0;
        }
        return Math.max(0, differ - 1);
    }

    /**
     * Breadth-first search with relaxation (Algorithm 4), reusable: the vertices a search touched
     * are reset by the next one (not the whole graph), and its targets are marked in an array.
     */
    private static final class Search {
        final long[] distance;
        final int[] parentEdge;
        final int[] parent;
        final int[] queue;
        final boolean[] queued;
        final boolean[] target;
        int touched;

        Search(int vertices) {
            distance = new long[vertices];
            Arrays.fill(distance, Long.MAX_VALUE);
            parentEdge = new int[vertices];
            parent = new int[vertices];
            queue = new int[vertices];
            queued = new boolean[vertices];
            target = new boolean[vertices];
        }

        /** From source until every destination's end vertex is settled (its level is done). */
        void run(RoutingGraph g, int source, List<Integer> destinations, SourceRoutes.Builder b, long[] weight, long baseCost) {
            for (int k = 0; k < touched; k++) {
                distance[queue[k]] = Long.MAX_VALUE;
            }
            for (int j : destinations) {
                target[g.end(b.member(j))] = true;
            }
            distance[source] = 0;
            parentEdge[source] = -1;
            int head = 0;
            int tail = 0;
            queue[tail++] = source;
            int reached = 0;
            while (head < tail) {
                int levelEnd = tail;
                for (int i = head; i < levelEnd; i++) {
                    int u = queue[i];
                    queued[u] = false;
                    for (int e = g.firstEdge(u); e < g.firstEdge(u + 1); e++) {
                        int v = g.edgeTarget(e);
                        int c = g.edgeLink(e);
                        long d = distance[u] + (c < 0 ? 0 : baseCost + weight[c]);
                        if (d < distance[v]) {
                            if (distance[v] == Long.MAX_VALUE) {
                                reached += target[v] ? 1 : 0;
                                queue[tail++] = v; // first reached: queued once (later improvements come within its level)
                                queued[v] = true;
                            } else if (!queued[v]) {
                                queued[v] = true;
                                queue[tail++] = v;
                            }
                            distance[v] = d;
                            parentEdge[v] = e;
                            parent[v] = u;
                        }
                    }
                }
                head = levelEnd;
                if (reached == destinations.size()) {
                    break;
                }
            }
            for (int k = head; k < tail; k++) {
                queued[queue[k]] = false;
            }
            touched = tail;
            for (int j : destinations) {
                target[g.end(b.member(j))] = false;
            }
        }
    }

    /** The route to {@code end} in the search tree, as directions from the source. */
    private static byte[] pathTo(RoutingGraph g, Torus t, int source, int end, int[] parentEdge, int[] parent) {
        int len = 0;
        for (int v = end; v != source; v = parent[v]) {
            len += g.edgeLink(parentEdge[v]) >= 0 ? 1 : 0;
        }
        byte[] out = new byte[len];
        for (int v = end; v != source; v = parent[v]) {
            int c = g.edgeLink(parentEdge[v]);
            if (c >= 0) {
                out[--len] = (byte) (c % t.directions());
            }
        }
        return out;
    }

    private static boolean crosses(Torus t, int u, byte[] dirs, boolean[] used) {
        int at = u;
        for (byte d : dirs) {
            int c = t.channel(at, d);
            if (used[c]) {
                return true;
            }
            at = t.next(c);
        }
        return false;
    }

    private static void mark(Torus t, int u, byte[] dirs, boolean[] used) {
        int at = u;
        for (byte d : dirs) {
            int c = t.channel(at, d);
            used[c] = true;
            at = t.next(c);
        }
    }

    /** Takes the route for pair (i, j) and raises its links' weights. */
    private static void apply(SourceRoutes.Builder b, Torus t, int i, int j, byte[] dirs, long[] weight) {
        b.route(i, j, dirs);
        int at = b.member(i);
        for (byte d : dirs) {
            int c = t.channel(at, d);
            weight[c]++;
            at = t.next(c);
        }
    }
}
