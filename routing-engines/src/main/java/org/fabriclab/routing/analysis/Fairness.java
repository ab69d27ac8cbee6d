package org.fabriclab.routing.analysis;

import java.util.Arrays;

/**
 * Fairness of a set of throughputs, as the papers measure it: Jain's index, the coefficient of
 * variation (the RL congestion-control paper's metric) and the ratio of the largest to the
 * smallest. Shared by the scenario reports and the manager's metrics.
 */
public final class Fairness {
    /** An output at or above this utilisation with two or more inputs competing for it is congested. */
    public static final double CONGESTED_UTILISATION = 0.9;

    private Fairness() {
    }

    /**
     * Whether a switch output was congested over an interval of {@code intervalNs}: {@code inputs}
     * input ports competed for it (two or more) while it ran at {@link #CONGESTED_UTILISATION} or
     * more, or it waited for credits ({@code creditWaitNs}, PortXmitWait) a tenth of the interval
     * or more (congestion downstream; shorter waits are the credit loop's own latency, which on
     * the live plane's wall clock costs a lone flow at line rate a few percent). One flow alone at line rate is not congestion.
     */
    public static boolean congested(int inputs, double utilisation, long creditWaitNs, long intervalNs) {
        return inputs > 1 && utilisation >= CONGESTED_UTILISATION || creditWaitNs * 10 >= intervalNs;
    }

    /** Jain's fairness index: (sum x)^2 / (n sum x^2); 1 when all are equal. */
    public static double jain(double[] x) {
        double sum = 0;
        double squares = 0;
        for (double v : x) {
            sum += v;
            squares += v * v;
        }
        return squares == 0 ? 1 : sum * sum / (x.length * squares);
    }

    /** Standard deviation over mean (population); 0 when all are equal. */
    public static double coefficientOfVariation(double[] x) {
        double mean = Arrays.stream(x).average().orElse(0);
        if (mean == 0) {
            return 0;
        }
        double var = Arrays.stream(x).map(v -> (v - mean) * (v - mean)).average().orElse(0);
        return Math.sqrt(var) / mean;
    }

    /** The largest over the smallest; infinite if a flow got nothing. */
    public static double maxMin(double[] x) {
        double max = Arrays.stream(x).max().orElse(0);
        double min = Arrays.stream(x).min().orElse(0);
        return min == 0 ? (max == 0 ? 1 : Double.POSITIVE_INFINITY) : max / min;
    }
}
