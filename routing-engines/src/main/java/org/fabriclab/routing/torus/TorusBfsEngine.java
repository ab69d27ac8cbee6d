package org.fabriclab.routing.torus;

import java.util.Arrays;

/**
 * {@code torus-bfs}: Algorithms 1 and 2 of the Angara paper. From each source in turn, a
 * breadth-first search of the routing graph from {@code begin(source)}, level by level, each
 * level's vertices taken in ascending order of the weight of the edge the search took to them
 * (the paper's "ascending vertex sort in Q by outgoing edge weights": the edge out of the
 * previous level), ties in the order found; the first vertex to reach another claims it, so
 * lightly loaded links win. The search tree gives every destination's route, and each link on a
 * route has its weight raised by one (every edge of the routing graph on that link shares the
 * weight). The first source is the set's first node; each next one is the unprocessed node
 * farthest from the last source (the paper's GET_MAX_REMOTE), ties to the lowest node. The
 * routes are shortest under the rules.
 */
public final class TorusBfsEngine implements TorusEngine {
    public static final String NAME = "torus-bfs";

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
        int[] parent = new int[vertices];
        int[] parentEdge = new int[vertices];
        int[] level = new int[vertices];
        long[] key = new long[vertices];
        int[] queue = new int[vertices];
        int[] hops = new int[m];
        boolean[] processed = new boolean[m];
        byte[] path = new byte[vertices];
        int source = 0;
        for (int done = 0; done < m; done++) {
            int s = b.member(source);
            Arrays.fill(parent, -1);
            int begin = g.begin(s);
            parent[begin] = begin;
            parentEdge[begin] = -1;
            // breadth-first, a level at a time, each level in ascending order of outgoing edge weight
            int head = 0;
            int tail = 0;
            queue[tail++] = begin;
            while (head < tail) {
                int levelEnd = tail;
                sortByTreeEdgeWeight(g, weight, parentEdge, queue, head, levelEnd, key);
                for (int i = head; i < levelEnd; i++) {
                    int u = queue[i];
                    for (int e = g.firstEdge(u); e < g.firstEdge(u + 1); e++) {
                        int v = g.edgeTarget(e);
                        if (parent[v] < 0) {
                            parent[v] = u;
                            parentEdge[v] = e;
                            queue[tail++] = v;
                        }
                    }
                }
                head = levelEnd;
            }
            // the routes, read backwards from each destination's end vertex; their links' weights raised
            for (int j = 0; j < m; j++) {
                if (j == source) {
                    hops[j] = 0;
                    continue;
                }
                int end = g.end(b.member(j));
                if (parent[end] < 0) {
                    b.unroutable(source, j);
                    hops[j] = -1;
                    continue;
                }
                int len = 0;
                for (int v = end; v != begin; v = parent[v]) {
                    int c = g.edgeLink(parentEdge[v]);
                    if (c >= 0) {
                        path[len++] = (byte) (c % t.directions());
                        weight[c]++;
                    }
                }
                byte[] dirs = new byte[len];
                for (int h = 0; h < len; h++) {
                    dirs[h] = path[len - 1 - h];
                }
                b.route(source, j, dirs);
                hops[j] = len;
            }
            processed[source] = true;
            // GET_MAX_REMOTE: the unprocessed node farthest from this source
            int next = -1;
            for (int j = 0; j < m; j++) {
                if (!processed[j] && (next < 0 || hops[j] > hops[next])) {
                    next = j;
                }
            }
            source = next;
            if (source < 0) {
                break;
            }
        }
        return b.build(NAME);
    }

    /** Sorts queue[from, to) by the weight of the link each vertex was reached over (none: 0), stable (packed keys). */
    static void sortByTreeEdgeWeight(RoutingGraph g, long[] weight, int[] parentEdge, int[] queue, int from, int to, long[] key) {
        if (to - from < 2) {
            return;
        }
        long maxWeight = 0;
        for (int i = from; i < to; i++) {
            int e = parentEdge[queue[i]];
            int c = e < 0 ? -1 : g.edgeLink(e);
            key[i] = c < 0 ? 0 : weight[c];
            maxWeight = Math.max(maxWeight, key[i]);
        }
        if (maxWeight == 0) {
            return; // all equal: keep the order found
        }
        // weight in the high bits, position in the low 32: a sort of longs that is stable
        for (int i = from; i < to; i++) {
            key[i] = (key[i] << 32) | (i - from);
        }
        Arrays.sort(key, from, to);
        int[] copy = Arrays.copyOfRange(queue, from, to);
        for (int i = from; i < to; i++) {
            queue[i] = copy[(int) (key[i] & 0xFFFFFFFFL)];
        }
    }
}
