package org.fabriclab.emulator.sim;

/**
 * The precision stop ({@code --until-precise}): the measured window cut into batches of simulated
 * time, the 95% confidence intervals of the mean packet latency and of the throughput by
 * non-overlapping batch means, and the decision to end the run once both are precise.
 *
 * <p><b>The intervals.</b> Over {@code k} batches of equal width, batch {@code j} having delivered
 * {@code N_j} measured packets (created in the window) whose latencies sum to {@code L_j}, and
 * {@code B_j} bytes: the throughput's half-width is {@code t(k-1) s_B / sqrt(k)} of the batches'
 * bytes (Student t at 97.5%, {@code k - 1} degrees of freedom); the mean latency, the report's
 * ratio {@code R = sum L / sum N}, has the half-width of the ratio estimator (the delta method, as
 * regenerative and batch-means ratio estimators use): {@code t(k-1) s_d / sqrt(k)} of the
 * residuals {@code d_j = (L_j - R N_j) / mean N}. The sums over the batches are the report's own
 * counts, so the interval is around the very mean the report gives.
 *
 * <p><b>The batches' width.</b> Batch means are only independent when a batch is long against the
 * correlation time of what it averages; too short, the interval is too narrow and the run stops
 * early. The standard remedy (Fishman's LBATCH, Law and Carson's sequential procedure): while the
 * batch means' lag-1 autocorrelation {@code r1} is significant, double the width, merging pairs.
 * The test: {@code r1} (of the throughput's batches, and of the latency's residuals) above
 * {@link #R1_CRITICAL} over {@code sqrt(k)}, one-sided at 10% against its large-sample null
 * distribution (normal, standard deviation {@code 1 / sqrt(k)}; LBATCH's level, which it applies
 * to von Neumann's ratio). A doubling needs {@code 2 MIN_BATCHES} batches to leave {@link
 * Simulation.Precise#MIN_BATCHES}; until there are, a correlated run is not precise. The width only
 * grows. A trend (a latency still rising as source queues fill) is correlated at every width, so
 * such a run is never precise and measures its whole window as without the option.
 *
 * <p><b>The stop.</b> At the end of every base batch whose count is a whole number of batches of
 * the current width, from {@link Simulation.Precise#MIN_BATCHES} batches on: not correlated, and
 * both half-widths within {@code rel} of their means. No packet measured or no byte delivered is
 * never precise (no ratio to take).
 *
 * <p>Allocates nothing after construction (the base batches' arrays are sized for the window);
 * {@link #close} runs once per base batch, in time linear in the base batches. Confined to the
 * simulation's thread.
 */
final class PreciseStop {
    /** One-sided 10% of the standard normal: the lag-1 autocorrelation test's critical value times {@code sqrt(k)}. */
    static final double R1_CRITICAL = 1.2815515655446004;
    /** The standard normal's 97.5% quantile. */
    private static final double Z975 = 1.959963984540054;

    private final double rel;
    private final long baseNs;
    private final int minBatches;
    /** Per base batch: measured packets delivered in it, their latencies' sum (ns), bytes delivered in it. */
    private final long[] packets;
    private final long[] latencyNs;
    private final long[] bytes;
    /** Base batches closed. */
    private int closed;
    /** Base batches a batch holds: a power of two, only growing. */
    private int width = 1;
    /** The estimate when the run became precise, or null. */
    private Estimate stoppedAt;

    /**
     * @param rel        the relative half-width both intervals must reach
     * @param baseNs     a base batch's width
     * @param minBatches the fewest batches an interval is taken over
     * @param maxBase    the most base batches that will be closed
     */
    PreciseStop(double rel, long baseNs, int minBatches, int maxBase) {
        this.rel = rel;
        this.baseNs = baseNs;
        this.minBatches = minBatches;
        packets = new long[maxBase];
        latencyNs = new long[maxBase];
        bytes = new long[maxBase];
    }

    /** {@link #close(long, long, long, double)} of a series without edges: the reported mean is the batches'. */
    boolean close(long n, long latency, long b) {
        return close(n, latency, b, Double.NaN);
    }

    /**
     * Closes a base batch in which {@code n} packets whose latencies sum to {@code latency} ns and
     * {@code b} bytes were delivered; true if the run is precise by the test above (then it stays
     * so: the caller ends the run). {@code reported}: the mean latency the report would give if the
     * run ended now (NaN: the batches' own; infinite: the report has none, no packet it measures
     * delivered yet, and is never precise), which must lie within {@code rel} of the batches'.
     */
    boolean close(long n, long latency, long b, double reported) {
        if (closed == packets.length) {
            throw new IllegalStateException("precision batch " + (closed + 1) + " beyond the " + packets.length + " sized for");
        }
        packets[closed] = n;
        latencyNs[closed] = latency;
        bytes[closed] = b;
        closed++;
        if (stoppedAt != null) {
            return true;
        }
        while (closed / width >= 2 * minBatches && estimate(width).correlated()) {
            width *= 2;
        }
        if (closed % width != 0 || closed / width < minBatches) {
            return false;
        }
        Estimate e = estimate(width);
        boolean edges = Double.isNaN(reported) || Math.abs(reported - e.latencyMean()) <= rel * e.latencyMean();
        if (!e.correlated() && e.latencyRelative() <= rel && e.bytesRelative() <= rel && edges) {
            stoppedAt = e;
            return true;
        }
        return false;
    }

    /** The estimate at the stop, or over the whole batches closed so far at the current width. */
    Estimate result() {
        return stoppedAt != null ? stoppedAt : estimate(width);
    }

    /** A batch's width in ns at the current width. */
    long batchNs() {
        return result().width() * baseNs;
    }

    boolean stopped() {
        return stoppedAt != null;
    }

    /** The estimate over the first whole batches of {@code w} base batches each. */
    private Estimate estimate(int w) {
        return estimate(packets, latencyNs, bytes, closed, w);
    }

    /**
     * What batch means say over the first {@code n / w} whole batches of {@code w} base batches each
     * (of the {@code n} given): their count, the mean latency (the ratio) and bytes per batch, each
     * half-width of the 95% interval (infinite with fewer than two batches or nothing to divide by)
     * and each lag-1 autocorrelation.
     */
    static Estimate estimate(long[] packets, long[] latencyNs, long[] bytes, int n, int w) {
        int k = n / w;
        double sumN = 0;
        double sumL = 0;
        double sumB = 0;
        for (int i = 0; i < k * w; i++) {
            sumN += packets[i];
            sumL += latencyNs[i];
            sumB += bytes[i];
        }
        if (k < 2) {
            return new Estimate(k, w, sumN == 0 ? Double.NaN : sumL / sumN, Double.POSITIVE_INFINITY, k == 0 ? 0 : sumB / k,
                    Double.POSITIVE_INFINITY, 0, 0);
        }
        double ratio = sumN == 0 ? 0 : sumL / sumN;
        double meanN = sumN / k;
        double meanB = sumB / k;
        // the latency's residuals d_j = (L_j - R N_j) / mean N (mean 0), and the bytes' deviations, batch by batch
        double ssD = 0;
        double lagD = 0;
        double ssB = 0;
        double lagB = 0;
        double prevD = 0;
        double prevB = 0;
        for (int j = 0; j < k; j++) {
            long bn = 0;
            long bl = 0;
            long bb = 0;
            for (int i = j * w; i < (j + 1) * w; i++) {
                bn += packets[i];
                bl += latencyNs[i];
                bb += bytes[i];
            }
            double d = meanN == 0 ? 0 : (bl - ratio * bn) / meanN;
            double db = bb - meanB;
            ssD += d * d;
            ssB += db * db;
            if (j > 0) {
                lagD += d * prevD;
                lagB += db * prevB;
            }
            prevD = d;
            prevB = db;
        }
        double t = t975(k - 1);
        double hwL = sumN == 0 ? Double.POSITIVE_INFINITY : t * Math.sqrt(ssD / (k - 1) / k);
        double hwB = t * Math.sqrt(ssB / (k - 1) / k);
        return new Estimate(k, w, sumN == 0 ? Double.NaN : ratio, hwL, meanB, hwB, ssD == 0 ? 0 : lagD / ssD, ssB == 0 ? 0 : lagB / ssB);
    }

    /**
     * Student's t distribution's 97.5% quantile for {@code df} degrees of freedom: the Cornish-Fisher
     * expansion around the normal's (Abramowitz and Stegun 26.7.5, four terms), within 10^-5 from 10
     * degrees of freedom on (the intervals here have at least 19); exact values below 10 from the table.
     */
    static double t975(int df) {
        if (df < 1) {
            throw new IllegalArgumentException("Student's t needs at least one degree of freedom, not " + df);
        }
        if (df < SMALL_T.length) {
            return SMALL_T[df];
        }
        double x = Z975;
        double x2 = x * x;
        double g1 = (x2 + 1) * x / 4;
        double g2 = ((5 * x2 + 16) * x2 + 3) * x / 96;
        double g3 = (((3 * x2 + 19) * x2 + 17) * x2 - 15) * x / 384;
        double g4 = ((((79 * x2 + 776) * x2 + 1482) * x2 - 1920) * x2 - 945) * x / 92160;
        double v = df;
        return x + g1 / v + g2 / (v * v) + g3 / (v * v * v) + g4 / (v * v * v * v);
    }

    /** t(0.975) for 1 to 9 degrees of freedom (index 0 unused). */
    private static final double[] SMALL_T = {Double.NaN, 12.7062047362, 4.3026527297, 3.1824463053, 2.7764451052, 2.5705818366,
        2.4469118511, 2.3646242516, 2.3060041352, 2.2621571628};

    /**
     * Batch means over {@code batches} batches of {@code width} base batches: the mean latency (ns,
     * NaN without packets) and its half-width, the mean bytes per batch and its half-width, and the
     * lag-1 autocorrelations of the latency's residuals and of the bytes.
     */
    record Estimate(int batches, int width, double latencyMean, double latencyHalfWidth, double bytesMean, double bytesHalfWidth,
                    double latencyR1, double bytesR1) {
        /** Either series' lag-1 autocorrelation is significant (one-sided, 10%): the batches are too short. */
        boolean correlated() {
            double critical = R1_CRITICAL / Math.sqrt(batches);
            return latencyR1 > critical || bytesR1 > critical;
        }

        /** The latency's half-width over its mean (infinite without a mean). */
        double latencyRelative() {
            return latencyMean > 0 ? latencyHalfWidth / latencyMean : Double.POSITIVE_INFINITY;
        }

        /** The throughput's half-width over its mean (infinite when nothing was delivered). */
        double bytesRelative() {
            return bytesMean > 0 ? bytesHalfWidth / bytesMean : Double.POSITIVE_INFINITY;
        }
    }
}
