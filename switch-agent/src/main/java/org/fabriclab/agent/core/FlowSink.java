package org.fabriclab.agent.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What a host's sink has seen from every source LID: packets, bytes, packets out of order,
 * packets missing and latencies (a sum per source, and a {@link LatencyHistogram} over all for
 * percentiles: the simulator's histogram).
 *
 * <p>Two numbers per packet. Its sequence number is the sender's one counter over all its
 * destinations ({@link HostPolicy}): increasing along each pair, so a packet numbered below one
 * already received from its source was overtaken ({@link HostPolicy#overtaken}, wrap-safe: the
 * simulator's meaning of out of order). Its pair number counts the packets of its pair
 * (consecutive), so a gap is a loss or a reordering still to arrive: {@code missing} is the gaps
 * less the packets that arrived late. The per-source arrays grow when a higher LID shows up, never
 * per packet in steady state. Confined to the thread driving the host.
 */
public final class FlowSink {
    private static final int INITIAL_LIDS = 64;
    // per source LID, side by side (one or two cache lines per packet recorded, not seven):
    private static final int EXPECT = 0;
    private static final int EXPECT_PAIR = 1;
    private static final int PACKETS = 2;
    private static final int BYTES = 3;
    private static final int OUT_OF_ORDER = 4;
    private static final int MISSING = 5;
    private static final int LATENCY = 6;
    private static final int STRIDE = 7;
    private long[] perSource;
    private final LatencyHistogram latency = new LatencyHistogram();

    public FlowSink() {
        perSource = new long[INITIAL_LIDS * STRIDE];
    }

    /**
     * Totals over every source; {@code missing} is the gaps less the packets that arrived late;
     * the percentiles are of every packet's latency (0 before any).
     */
    public record Totals(long packets, long bytes, long outOfOrder, long missing, long latencyNsSum, long latencyP95Ns,
                         long latencyP99Ns) {
    }

    /** Records packet {@code seq} (numbered per pair too) of {@code frameBytes} from source {@code slid}, {@code latency} ns after it was sent. */
    public void record(int slid, int seq, int frameBytes, long latency) {
        record(slid, seq, seq, frameBytes, latency);
    }

    /**
     * Records a packet from source {@code slid}: its sequence number {@code seq} (the sender's
     * counter), its number {@code pairSeq} among the packets of its pair, its size and latency.
     */
    public void record(int slid, int seq, int pairSeq, int frameBytes, long latency) {
        int b = slid * STRIDE;
        if (b >= perSource.length) {
            perSource = Arrays.copyOf(perSource, Math.max(b + STRIDE, perSource.length * 2));
        }
        long[] x = perSource;
        if (HostPolicy.overtaken((int) x[b + EXPECT], seq)) {
            x[b + OUT_OF_ORDER]++;
        } else {
            x[b + EXPECT] = seq + 1;
        }
        int gap = pairSeq - (int) x[b + EXPECT_PAIR]; // wrap-safe: a pair's numbers run past 2^32 in a long run
        if (gap >= 0) {
            x[b + MISSING] += gap;
            x[b + EXPECT_PAIR] = pairSeq + 1;
        }
        x[b + PACKETS]++;
        x[b + BYTES] += frameBytes;
        x[b + LATENCY] += latency;
        this.latency.add(latency);
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
        return new Totals(r, by, o, Math.max(0, m - o), l, latency.percentile(0.95), latency.percentile(0.99));
    }

    /** What arrived from one source LID; {@code missing} is its gaps less its packets that arrived late. */
    public record Flow(int sourceLid, long packets, long bytes, long outOfOrder, long missing, long latencyNsSum) {
    }

    /** Every source that has sent something, in LID order. */
    public List<Flow> flows() {
        List<Flow> out = new ArrayList<>();
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
