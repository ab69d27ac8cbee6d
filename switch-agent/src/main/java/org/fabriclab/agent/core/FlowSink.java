package org.fabriclab.agent.core;

import java.util.Arrays;

/**
 * What a host's sink has seen from every source LID: packets, bytes, packets out of order,
 * sequence numbers skipped and the sum of latencies. Each source sends to a destination with
 * consecutive sequence numbers, so a packet older than one already seen was reordered, and a gap
 * is a loss (or a reordering still to arrive). The live host's sink (the simulator counts
 * reordering itself, with one sequence counter per host). The per-source arrays grow when a
 * higher LID shows up, never per packet in steady state. Confined to the thread driving the host.
 */
public final class FlowSink {
    private static final int INITIAL_LIDS = 64;
    // per source LID, side by side (one or two cache lines per packet recorded, not six):
    private static final int EXPECT = 0;
    private static final int PACKETS = 1;
    private static final int BYTES = 2;
    private static final int OUT_OF_ORDER = 3;
    private static final int MISSING = 4;
    private static final int LATENCY = 5;
    private static final int STRIDE = 6;
    private long[] perSource;

    public FlowSink() {
        perSource = new long[INITIAL_LIDS * STRIDE];
    }

    /** Totals over every source; {@code missing} is the gaps less the packets that arrived late. */
    public record Totals(long packets, long bytes, long outOfOrder, long missing, long latencyNsSum) {
    }

    /** Records packet {@code seq} of {@code bytes} from source {@code slid}, {@code latencyNs} after it was sent. */
    public void record(int slid, int seq, int frameBytes, long latency) {
        int b = slid * STRIDE;
        if (b >= perSource.length) {
            perSource = Arrays.copyOf(perSource, Math.max(b + STRIDE, perSource.length * 2));
        }
        long[] x = perSource;
        if (seq < x[b + EXPECT]) {
            x[b + OUT_OF_ORDER]++;
        } else {
            x[b + MISSING] += seq - x[b + EXPECT];
            x[b + EXPECT] = seq + 1L;
        }
        x[b + PACKETS]++;
        x[b + BYTES] += frameBytes;
        x[b + LATENCY] += latency;
    }

    public Totals totals() {
        long r = 0;
        long by = 0;
        long o = 0;
        long m = 0;
        long l = 0;
        for (int b = 0; b < perSource.length; b += STRIDE) {
            r += perSource[b + PACKETS];
            by += perSource[b + BYTES];
            o += perSource[b + OUT_OF_ORDER];
            m += perSource[b + MISSING];
            l += perSource[b + LATENCY];
        }
        return new Totals(r, by, o, Math.max(0, m - o), l);
    }

    /** What arrived from one source LID; {@code missing} is its gaps less its packets that arrived late. */
    public record Flow(int sourceLid, long packets, long bytes, long outOfOrder, long missing, long latencyNsSum) {
    }

    /** Every source that has sent something, in LID order. */
    public java.util.List<Flow> flows() {
        java.util.List<Flow> out = new java.util.ArrayList<>();
        for (int b = 0; b < perSource.length; b += STRIDE) {
            if (perSource[b + PACKETS] > 0) {
                out.add(new Flow(b / STRIDE, perSource[b + PACKETS], perSource[b + BYTES], perSource[b + OUT_OF_ORDER],
                        Math.max(0, perSource[b + MISSING] - perSource[b + OUT_OF_ORDER]), perSource[b + LATENCY]));
            }
        }
        return out;
    }

    /** From source {@code slid}: packets, bytes, packets out of order. */
    public long[] from(int slid) {
        int b = slid * STRIDE;
        return b < perSource.length ? new long[] {perSource[b + PACKETS], perSource[b + BYTES], perSource[b + OUT_OF_ORDER]} : new long[3];
    }
}
