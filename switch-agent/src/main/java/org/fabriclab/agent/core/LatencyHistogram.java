package org.fabriclab.agent.core;

/**
 * Latencies in log-linear buckets: exact below 64 ns, then 32 buckets per power of two (about 3%
 * wide), so percentiles cost a fixed 16 KB and nothing per sample. A percentile is reported as
 * the middle of its bucket. The one histogram of both clocks: the simulator's report and the live
 * host's {@link FlowSink} keep their latencies here. Not thread-safe; confined to the driving thread.
 */
public final class LatencyHistogram {
    private static final int SUB = 32;
    private final long[] counts = new long[64 + 58 * SUB];
    private long total;
    private double sum;

    public void add(long ns) {
        long v = Math.max(0, ns);
        counts[bucket(v)]++;
        total++;
        sum += v;
    }

    public long count() {
        return total;
    }

    public double mean() {
        return total == 0 ? 0 : sum / total;
    }

    /** The latency below which a fraction {@code q} of the samples lie (0 without samples). */
    public long percentile(double q) {
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(q * total);
        long seen = 0;
        for (int b = 0; b < counts.length; b++) {
            seen += counts[b];
            if (seen >= rank) {
                return (low(b) + low(b + 1) - 1) / 2;
            }
        }
        return low(counts.length - 1);
    }

    static int bucket(long v) {
        if (v < 64) {
            return (int) v;
        }
        int e = 63 - Long.numberOfLeadingZeros(v); // >= 6
        int m = (int) (v >>> (e - 5)) & (SUB - 1);
        return 64 + (e - 6) * SUB + m;
    }

    /** The smallest latency in bucket {@code b}. */
    static long low(int b) {
        if (b < 64) {
            return b;
        }
        int e = (b - 64) / SUB + 6;
        int m = (b - 64) % SUB;
        return (long) (SUB + m) << (e - 5);
    }
}
