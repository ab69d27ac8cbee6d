package org.fabriclab.agent.core;

import java.util.Arrays;

/**
 * What a host's sink has seen from every source LID: packets, bytes, packets out of order,
 * sequence numbers skipped and the sum of latencies. Each source sends to a destination with
 * consecutive sequence numbers, so a packet older than one already seen was reordered, and a gap
 * is a loss (or a reordering still to arrive). Shared by the live host and the simulator's; the
 * per-source arrays grow when a higher LID shows up, never per packet in steady state. Confined
 * to the thread driving the host.
 */
public final class FlowSink {
    private static final int INITIAL_LIDS = 64;
    private int[] expectSeq = new int[INITIAL_LIDS];
    private long[] packets = new long[INITIAL_LIDS];
    private long[] bytes = new long[INITIAL_LIDS];
    private long[] outOfOrder = new long[INITIAL_LIDS];
    private long[] missing = new long[INITIAL_LIDS];
    private long[] latencyNs = new long[INITIAL_LIDS];

    /** Totals over every source; {@code missing} is the gaps less the packets that arrived late. */
    public record Totals(long packets, long bytes, long outOfOrder, long missing, long latencyNsSum) {
    }

    /** Records packet {@code seq} of {@code bytes} from source {@code slid}, {@code latencyNs} after it was sent. */
    public void record(int slid, int seq, int frameBytes, long latency) {
        if (slid >= packets.length) {
            int n = Math.max(slid + 1, packets.length * 2);
            expectSeq = Arrays.copyOf(expectSeq, n);
            packets = Arrays.copyOf(packets, n);
            bytes = Arrays.copyOf(bytes, n);
            outOfOrder = Arrays.copyOf(outOfOrder, n);
            missing = Arrays.copyOf(missing, n);
            latencyNs = Arrays.copyOf(latencyNs, n);
        }
        if (seq < expectSeq[slid]) {
            outOfOrder[slid]++;
        } else {
            missing[slid] += seq - expectSeq[slid];
            expectSeq[slid] = seq + 1;
        }
        packets[slid]++;
        bytes[slid] += frameBytes;
        latencyNs[slid] += latency;
    }

    public Totals totals() {
        long r = 0;
        long b = 0;
        long o = 0;
        long m = 0;
        long l = 0;
        for (int i = 0; i < packets.length; i++) {
            r += packets[i];
            b += bytes[i];
            o += outOfOrder[i];
            m += missing[i];
            l += latencyNs[i];
        }
        return new Totals(r, b, o, Math.max(0, m - o), l);
    }

    /** What arrived from one source LID; {@code missing} is its gaps less its packets that arrived late. */
    public record Flow(int sourceLid, long packets, long bytes, long outOfOrder, long missing, long latencyNsSum) {
    }

    /** Every source that has sent something, in LID order. */
    public java.util.List<Flow> flows() {
        java.util.List<Flow> out = new java.util.ArrayList<>();
        for (int i = 0; i < packets.length; i++) {
            if (packets[i] > 0) {
                out.add(new Flow(i, packets[i], bytes[i], outOfOrder[i], Math.max(0, missing[i] - outOfOrder[i]), latencyNs[i]));
            }
        }
        return out;
    }

    /** From source {@code slid}: packets, bytes, packets out of order. */
    public long[] from(int slid) {
        return slid < packets.length ? new long[] {packets[slid], bytes[slid], outOfOrder[slid]} : new long[3];
    }
}
