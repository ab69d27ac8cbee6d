package org.fabriclab.routing.torus;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The balance and safety of source routes, as the Angara paper measures them: the channel load
 * gamma_c (routes crossing channel c) over the channels the routes use, its maximum (the
 * edge-forwarding index) and minimum, the deviation sigma(4,R) = (1/|C| sum |gamma_perfect -
 * gamma_c|^4)^(1/4) from the mean load gamma_perfect, the longest route (max D); and whether the
 * routes can deadlock: their channel dependencies may cycle around a ring (bubble flow control
 * keeps a ring moving) but no cycle may contain a turn, that is, no strongly connected component
 * of the channel dependency graph may hold a dependency between two directions.
 */
public final class SourceRouteAnalysis {
    /** What the analysis found. */
    public record Report(String engine, int nodes, long pairs, int unroutablePairs, int channelsUsed, long maxLoad, long minLoad,
                         double meanLoad, double sigma4, int maxHops, double meanHops, boolean deadlockFree, List<String> cycle,
                         long[] loads) {
    }

    private SourceRouteAnalysis() {
    }

    public static Report analyze(SourceRoutes r) {
        Torus t = r.torus();
        long[] load = new long[t.channelIds()];
        int m = r.size();
        long pairs = 0;
        long hops = 0;
        int maxHops = 0;
        // channel dependencies: from channel a, the next channel's direction (bit per direction)
        long[] follows = new long[t.channelIds()];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < m; j++) {
                if (i == j || r.unroutable(i, j)) {
                    continue;
                }
                pairs++;
                int len = r.length(i, j);
                hops += len;
                maxHops = Math.max(maxHops, len);
                int at = r.member(i);
                int previous = -1;
                for (int h = 0; h < len; h++) {
                    int c = t.channel(at, r.direction(i, j, h));
                    if (t.next(c) < 0) {
                        throw new IllegalStateException(r.engine() + " routed " + t.name(r.member(i)) + " -> " + t.name(r.member(j))
                                + " over " + t.name(at) + " " + t.directionName(r.direction(i, j, h)) + ", which is no link");
                    }
                    load[c]++;
                    if (previous >= 0) {
                        follows[previous] |= 1L << r.direction(i, j, h);
                    }
                    previous = c;
                    at = t.next(c);
                }
                if (at != r.member(j)) {
                    throw new IllegalStateException(r.engine() + "'s route " + t.name(r.member(i)) + " -> " + t.name(r.member(j)) + " ("
                            + r.describe(i, j) + ") ends at " + t.name(at));
                }
            }
        }
        int used = 0;
        long max = 0;
        long min = Long.MAX_VALUE;
        long sum = 0;
        for (long x : load) {
            if (x > 0) {
                used++;
                max = Math.max(max, x);
                min = Math.min(min, x);
                sum += x;
            }
        }
        double mean = used == 0 ? 0 : (double) sum / used;
        double sigma4 = sigma4(load);
        List<String> cycle = turnCycle(t, follows);
        return new Report(r.engine(), m, pairs, r.unroutableCount(), used, max, used == 0 ? 0 : min, mean, sigma4, maxHops,
                pairs == 0 ? 0 : (double) hops / pairs, cycle.isEmpty(), cycle, load);
    }

    /** sigma(4,R) of channel loads: over the channels with a load, the fourth root of the mean fourth power of the deviation from the mean. */
    static double sigma4(long[] load) {
        int used = 0;
        long sum = 0;
        for (long x : load) {
            if (x > 0) {
                used++;
                sum += x;
            }
        }
        if (used == 0) {
            return 0;
        }
        double mean = (double) sum / used;
        double dev = 0;
        for (long x : load) {
            if (x > 0) {
                double d = mean - x;
                dev += d * d * d * d;
            }
        }
        return Math.pow(dev / used, 0.25);
    }

    /**
     * A cycle of channel dependencies that contains a turn, as channel names, or empty: Tarjan's
     * strongly connected components (iterative), then a turn between two channels of one component.
     */
    static List<String> turnCycle(Torus t, long[] follows) {
        int channels = t.channelIds();
        int dirs = t.directions();
        int[] index = new int[channels];
        int[] low = new int[channels];
        int[] component = new int[channels];
        boolean[] onStack = new boolean[channels];
        int[] stack = new int[channels];
        int[] callNode = new int[channels];
        int[] callNext = new int[channels];
        Arrays.fill(index, -1);
        int counter = 0;
        int sp = 0;
        int components = 0;
        for (int root = 0; root < channels; root++) {
            if (index[root] >= 0 || t.next(root) < 0) {
                continue;
            }
            int depth = 0;
            callNode[0] = root;
            callNext[0] = 0;
            index[root] = low[root] = counter++;
            stack[sp++] = root;
            onStack[root] = true;
            while (depth >= 0) {
                int c = callNode[depth];
                int d = callNext[depth];
                boolean descended = false;
                while (d < dirs) {
                    int dir = d++;
                    if ((follows[c] & (1L << dir)) == 0) {
                        continue;
                    }
                    int w = t.channel(t.next(c), dir);
                    if (index[w] < 0) {
                        callNext[depth] = d;
                        depth++;
                        callNode[depth] = w;
                        callNext[depth] = 0;
                        index[w] = low[w] = counter++;
                        stack[sp++] = w;
                        onStack[w] = true;
                        descended = true;
                        break;
                    } else if (onStack[w]) {
                        low[c] = Math.min(low[c], index[w]);
                    }
                }
                if (descended) {
                    continue;
                }
                if (low[c] == index[c]) {
                    int w;
                    do {
                        w = stack[--sp];
                        onStack[w] = false;
                        component[w] = components;
                    } while (w != c);
                    components++;
                }
                depth--;
                if (depth >= 0) {
                    int parent = callNode[depth];
                    low[parent] = Math.min(low[parent], low[c]);
                }
            }
        }
        for (int c = 0; c < channels; c++) {
            if (t.next(c) < 0) {
                continue;
            }
            for (int dir = 0; dir < dirs; dir++) {
                if ((follows[c] & (1L << dir)) == 0 || dir == c % dirs) {
                    continue;
                }
                int w = t.channel(t.next(c), dir);
                if (component[w] == component[c]) {
                    return describeCycle(t, follows, c, w, component);
                }
            }
        }
        return List.of();
    }

    /** The channels of a cycle through the turn c -> w within one component: w back to c by breadth-first search. */
    private static List<String> describeCycle(Torus t, long[] follows, int c, int w, int[] component) {
        int dirs = t.directions();
        int[] parent = new int[t.channelIds()];
        Arrays.fill(parent, -2);
        ArrayDeque<Integer> q = new ArrayDeque<>();
        q.add(w);
        parent[w] = -1;
        while (!q.isEmpty() && parent[c] == -2) {
            int x = q.poll();
            for (int dir = 0; dir < dirs; dir++) {
                if ((follows[x] & (1L << dir)) == 0) {
                    continue;
                }
                int y = t.channel(t.next(x), dir);
                if (parent[y] == -2 && component[y] == component[c]) {
                    parent[y] = x;
                    q.add(y);
                }
            }
        }
        List<String> out = new ArrayList<>();
        for (int x = c; x != -1 && out.size() <= t.channelIds(); x = parent[x]) {
            out.add(0, t.name(x / dirs) + t.directionName(x % dirs));
        }
        return out;
    }
}
