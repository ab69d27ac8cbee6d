package org.fabriclab.routing.graph;

import java.util.Arrays;
import java.util.Optional;

/**
 * A channel dependency graph (Dally and Seitz): a vertex per channel, an edge c1 -> c2 where some
 * route holds c1 while it asks for c2. Routing over one virtual lane is deadlock-free if this graph
 * is acyclic. Stored as CSR; every algorithm here is iterative (Kahn's topological sort, a
 * predecessor walk for the witness cycle), so a million channels cannot overflow a stack.
 */
public final class ChannelDependencyGraph {
    private final int channels;
    private final int[] offsets;
    private final int[] targets;

    private ChannelDependencyGraph(int channels, int[] offsets, int[] targets) {
        this.channels = channels;
        this.offsets = offsets;
        this.targets = targets;
    }

    public static Builder builder(int channels) {
        return new Builder(channels);
    }

    /** Collects dependencies; duplicates are dropped at {@link #build()}. */
    public static final class Builder {
        private final int channels;
        private long[] edges = new long[1024];
        private int size;

        private Builder(int channels) {
            this.channels = channels;
        }

        public Builder add(int from, int to) {
            if (from < 0 || from >= channels || to < 0 || to >= channels) {
                throw new IllegalArgumentException("dependency " + from + " -> " + to + " outside 0.." + (channels - 1));
            }
            if (size == edges.length) {
                edges = Arrays.copyOf(edges, size * 2);
            }
            edges[size++] = ((long) from << 32) | to;
            return this;
        }

        public ChannelDependencyGraph build() {
            long[] e = Arrays.copyOf(edges, size);
            Arrays.sort(e);
            int unique = 0;
            for (int i = 0; i < e.length; i++) {
                if (i == 0 || e[i] != e[i - 1]) {
                    e[unique++] = e[i];
                }
            }
            int[] offsets = new int[channels + 1];
            int[] targets = new int[unique];
            for (int i = 0; i < unique; i++) {
                offsets[(int) (e[i] >>> 32) + 1]++;
                targets[i] = (int) e[i];
            }
            for (int c = 0; c < channels; c++) {
                offsets[c + 1] += offsets[c];
            }
            return new ChannelDependencyGraph(channels, offsets, targets);
        }
    }

    public int channelCount() {
        return channels;
    }

    public int dependencyCount() {
        return targets.length;
    }

    /** True if the graph has no cycle: routing on this lane cannot deadlock. */
    public boolean isAcyclic() {
        return remainingAfterTopologicalSort() == null;
    }

    /**
     * A cycle, as the channels along it in dependency order, if there is one.
     * Kahn's algorithm leaves exactly the vertices on or downstream of cycles; each of those has a
     * predecessor among them, so walking predecessors must revisit a vertex, and that loop is a cycle.
     */
    public Optional<int[]> findCycle() {
        boolean[] remaining = remainingAfterTopologicalSort();
        if (remaining == null) {
            return Optional.empty();
        }
        int[] predOffsets = new int[channels + 1];
        for (int t : targets) {
            predOffsets[t + 1]++;
        }
        for (int c = 0; c < channels; c++) {
            predOffsets[c + 1] += predOffsets[c];
        }
        int[] preds = new int[targets.length];
        int[] fill = Arrays.copyOf(predOffsets, channels);
        for (int c = 0; c < channels; c++) {
            for (int i = offsets[c]; i < offsets[c + 1]; i++) {
                preds[fill[targets[i]]++] = c;
            }
        }
        int start = 0;
        while (!remaining[start]) {
            start++;
        }
        int[] visitedAt = new int[channels];
        Arrays.fill(visitedAt, -1);
        int[] walk = new int[channels + 1];
        int len = 0;
        int v = start;
        while (visitedAt[v] < 0) {
            visitedAt[v] = len;
            walk[len++] = v;
            int next = -1;
            for (int i = predOffsets[v]; i < predOffsets[v + 1] && next < 0; i++) {
                if (remaining[preds[i]]) {
                    next = preds[i];
                }
            }
            assert next >= 0 : "a vertex left by Kahn's algorithm has a remaining predecessor";
            v = next;
        }
        // walk[visitedAt[v]..len-1] goes backwards along the dependencies; reverse it
        int[] cycle = new int[len - visitedAt[v]];
        for (int i = 0; i < cycle.length; i++) {
            cycle[i] = walk[len - 1 - i];
        }
        return Optional.of(cycle);
    }

    /** Null if the sort removed every vertex, else which vertices remain. */
    private boolean[] remainingAfterTopologicalSort() {
        int[] indegree = new int[channels];
        for (int t : targets) {
            indegree[t]++;
        }
        int[] queue = new int[channels];
        int tail = 0;
        for (int c = 0; c < channels; c++) {
            if (indegree[c] == 0) {
                queue[tail++] = c;
            }
        }
        for (int head = 0; head < tail; head++) {
            int c = queue[head];
            for (int i = offsets[c]; i < offsets[c + 1]; i++) {
                if (--indegree[targets[i]] == 0) {
                    queue[tail++] = targets[i];
                }
            }
        }
        if (tail == channels) {
            return null;
        }
        boolean[] remaining = new boolean[channels];
        for (int c = 0; c < channels; c++) {
            remaining[c] = indegree[c] > 0;
        }
        return remaining;
    }
}
