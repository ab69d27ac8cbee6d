package org.fabriclab.routing.analysis;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.fabriclab.routing.engine.SwitchGraph;
import org.fabriclab.routing.fabric.Fabric;

/**
 * The time a frame takes from one endpoint to another through an empty fabric: over the quickest
 * path, each link its frame time at the link rate ({@code ceil(bytes * 8 / Gbps)} ns, as the
 * simulator charges a link) plus its propagation delay (the topology's where it gives one, else the
 * one given), and no queue or arbitration wait on the way. Where every cable is alike that is a
 * path of the fewest links; on a Dragonfly with long global cables it is the minimal path (one
 * global link), never a detour through another group. What the NIC counters charge a response for
 * its way back (an Aries NIC's latency counter is a request's round trip: {@code NicCounters}).
 *
 * <p>Rows (one per switch the frame leaves from, to every switch) are computed on first use, by
 * Dijkstra's search over the switches, and kept: a row is {@link Fabric#switchCount()} ints. Safe
 * to share between threads (a row is published whole; two threads may compute the same row, to
 * the same values).
 */
public final class NoLoadLatency {
    /** A pair with no path between them. */
    public static final long UNREACHABLE = -1;
    /** A search heap's entry: the time above, the switch's number in the low bits. */
    private static final int NODE_BITS = 24;
    private static final long NODE_MASK = (1L << NODE_BITS) - 1;
    private final SwitchGraph graph;
    /** Per global port, its link's time for the frame: frame time plus delay. */
    private final long[] linkNs;
    /** Per endpoint: its switch's number (-1: cabled to another CA), its link's time up to it and down from it. */
    private final int[] switchOf;
    private final long[] upNs;
    private final long[] downNs;
    /** Per endpoint cabled to another CA: that endpoint (-1: none). */
    private final int[] peerOf;
    private final AtomicReferenceArray<int[]> rows;

    /**
     * Times of a frame of {@code frameBytes} on links of {@code linkGbps}, every link's delay the
     * topology's or else {@code defaultDelayNs}.
     */
    public NoLoadLatency(Fabric f, long defaultDelayNs, double linkGbps, int frameBytes) {
        if (linkGbps <= 0 || defaultDelayNs < 0 || frameBytes < 0) {
            throw new IllegalArgumentException("a link rate above 0 and a delay and frame size of 0 or more, not " + linkGbps + " Gbps, "
                    + defaultDelayNs + " ns, " + frameBytes + " bytes");
        }
        if (f.switchCount() > NODE_MASK) {
            throw new IllegalArgumentException(f.switchCount() + " switches: at most " + NODE_MASK);
        }
        this.graph = new SwitchGraph(f);
        long frameNs = (long) Math.ceil(frameBytes * (8.0 / linkGbps));
        linkNs = new long[f.globalPortCount()];
        for (int g = 0; g < linkNs.length; g++) {
            linkNs[g] = frameNs + (f.linkDelayNs(g) >= 0 ? f.linkDelayNs(g) : defaultDelayNs);
        }
        int n = f.endpointCount();
        switchOf = new int[n];
        upNs = new long[n];
        downNs = new long[n];
        peerOf = new int[n];
        for (int e = 0; e < n; e++) {
            int g = f.endpointPort(e);
            int sw = f.endpointSwitch(e);
            switchOf[e] = sw == Fabric.NONE ? -1 : f.switchIndex(sw);
            upNs[e] = linkNs[g];
            downNs[e] = linkNs[f.peerGlobalPort(g)];
            peerOf[e] = sw == Fabric.NONE ? f.endpointOfPort(f.peerGlobalPort(g)) : -1;
        }
        rows = new AtomicReferenceArray<>(f.switchCount());
    }

    /** Nanoseconds from endpoint {@code from} to endpoint {@code to} at no load, or {@link #UNREACHABLE}. */
    public long ns(int from, int to) {
        int sa = switchOf[from];
        int sb = switchOf[to];
        if (sa < 0 || sb < 0) { // cabled to another CA: only that one is reached, over the one cable
            return peerOf[from] == to ? upNs[from] : UNREACHABLE;
        }
        int[] row = rows.get(sa);
        if (row == null) {
            row = row(sa);
            rows.set(sa, row);
        }
        int between = row[sb];
        return between < 0 ? UNREACHABLE : upNs[from] + between + downNs[to];
    }

    /** From switch {@code s}: per switch, the time of the quickest path to it (-1: none). */
    private int[] row(int s) {
        int n = graph.switchCount();
        long[] ns = new long[n];
        Arrays.fill(ns, Long.MAX_VALUE);
        ns[s] = 0;
        // a heap of (time, switch) in one long each, time above the switch's number; stale entries skipped
        long[] heap = new long[Math.max(16, n)];
        int size = 0;
        heap[size++] = (long) s;
        boolean[] done = new boolean[n];
        while (size > 0) {
            long top = heap[0];
            size = pop(heap, size);
            int u = (int) (top & NODE_MASK);
            if (done[u]) {
                continue;
            }
            done[u] = true;
            for (int e = graph.offset(u), end = graph.offset(u + 1); e < end; e++) {
                int v = graph.neighbour(e);
                long t = ns[u] + linkNs[graph.channel(e)];
                if (!done[v] && t < ns[v]) {
                    ns[v] = t;
                    if (size == heap.length) {
                        heap = Arrays.copyOf(heap, 2 * size);
                    }
                    size = push(heap, size, t << NODE_BITS | v);
                }
            }
        }
        int[] row = new int[n];
        for (int v = 0; v < n; v++) {
            row[v] = ns[v] == Long.MAX_VALUE ? -1 : Math.toIntExact(ns[v]);
        }
        return row;
    }

    private static int push(long[] heap, int size, long x) {
        int i = size;
        while (i > 0 && heap[(i - 1) / 2] > x) {
            heap[i] = heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        heap[i] = x;
        return size + 1;
    }

    /** Removes the least; returns the new size. */
    private static int pop(long[] heap, int size) {
        long x = heap[--size];
        int i = 0;
        while (2 * i + 1 < size) {
            int c = 2 * i + 1;
            if (c + 1 < size && heap[c + 1] < heap[c]) {
                c++;
            }
            if (heap[c] >= x) {
                break;
            }
            heap[i] = heap[c];
            i = c;
        }
        heap[i] = x;
        return size;
    }
}
