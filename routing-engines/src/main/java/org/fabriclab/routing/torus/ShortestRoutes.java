package org.fabriclab.routing.torus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The shortest routes from one source in a routing graph, for the engines that choose among them:
 * breadth-first levels from {@code begin(source)}, the number of shortest vertex paths to each
 * vertex (counted up to a cap), and the distinct routes to an end vertex, walked backwards through
 * the edges that come from the level before (every vertex with a level lies on a shortest path
 * from the source, so the walk never strays). Distinct: one route can be several vertex paths,
 * its first positive step taken as FS or as a standard step, its last negative one as LS or as a
 * standard step. Reusable from source to source; not thread-safe.
 */
final class ShortestRoutes {
    /** At most this many vertex paths are one route (FS or not, times LS or not). */
    static final int DUPLICATES = 4;
    /** Vertex paths are counted up to this (more is "many"). */
    private static final long CAP = 1 << 20;

    private final RoutingGraph g;
    private final Torus t;
    private final int[] level;
    private final long[] count;
    private final int[] queue;
    private final int[] revStart;
    private final int[] revEdge;
    private final int[] edgeSource;
    private int source = -1;

    ShortestRoutes(RoutingGraph g) {
        this.g = g;
        this.t = g.torus();
        int vertices = g.vertexCount();
        level = new int[vertices];
        count = new long[vertices];
        queue = new int[vertices];
        revStart = new int[vertices + 1];
        revEdge = new int[g.edgeCount()];
        edgeSource = new int[g.edgeCount()];
        for (int u = 0; u < vertices; u++) {
            for (int e = g.firstEdge(u); e < g.firstEdge(u + 1); e++) {
                edgeSource[e] = u;
                revStart[g.edgeTarget(e) + 1]++;
            }
        }
        for (int v = 0; v < vertices; v++) {
            revStart[v + 1] += revStart[v];
        }
        int[] fill = Arrays.copyOf(revStart, vertices);
        for (int e = 0; e < g.edgeCount(); e++) {
            revEdge[fill[g.edgeTarget(e)]++] = e;
        }
    }

    /** Searches from vertex {@code from} (a begin vertex). */
    void from(int from) {
        source = from;
        Arrays.fill(level, -1);
        Arrays.fill(count, 0);
        int head = 0;
        int tail = 0;
        queue[tail++] = from;
        level[from] = 0;
        count[from] = 1;
        while (head < tail) {
            int u = queue[head++];
            for (int e = g.firstEdge(u); e < g.firstEdge(u + 1); e++) {
                int v = g.edgeTarget(e);
                if (level[v] < 0) {
                    level[v] = level[u] + 1;
                    queue[tail++] = v;
                }
                if (level[v] == level[u] + 1) {
                    count[v] = Math.min(CAP, count[v] + count[u]);
                }
            }
        }
    }

    boolean reached(int v) {
        return level[v] >= 0;
    }

    /** Hops of the shortest routes to end vertex {@code end} (its level less the step to end). */
    int hops(int end) {
        return level[end] - 1;
    }

    /** Shortest vertex paths to v, up to a cap. */
    long vertexPaths(int v) {
        return count[v];
    }

    /** Up to {@code limit} distinct shortest routes to end vertex {@code end}, as directions from the source. */
    List<byte[]> routes(int end, int limit) {
        List<byte[]> found = new ArrayList<>();
        walkBack(end, new byte[level[end]], 0, found, limit, new HashSet<>());
        return found;
    }

    private void walkBack(int v, byte[] path, int len, List<byte[]> found, int limit, Set<String> seen) {
        if (found.size() >= limit) {
            return;
        }
        if (v == source) {
            byte[] r = new byte[len];
            for (int h = 0; h < len; h++) {
                r[h] = path[len - 1 - h];
            }
            if (seen.add(Arrays.toString(r))) {
                found.add(r);
            }
            return;
        }
        for (int k = revStart[v]; k < revStart[v + 1] && found.size() < limit; k++) {
            int e = revEdge[k];
            int u = edgeSource[e];
            if (level[u] != level[v] - 1) {
                continue;
            }
            int c = g.edgeLink(e);
            if (c >= 0) {
                path[len] = (byte) (c % t.directions());
            }
            walkBack(u, path, c >= 0 ? len + 1 : len, found, limit, seen);
        }
    }
}
