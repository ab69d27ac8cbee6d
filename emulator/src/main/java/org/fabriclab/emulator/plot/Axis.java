package org.fabriclab.emulator.plot;

import java.util.ArrayList;
import java.util.List;

/**
 * One axis of a plot: its label, its range and where its ticks go, linear or logarithmic (base
 * 10). A value outside the range maps outside [0, 1]; callers clip what they must.
 *
 * @param ticks the values labelled, in order
 */
public record Axis(String label, double min, double max, boolean log, List<Double> ticks) {
    public Axis {
        if (!(max > min) || log && !(min > 0)) {
            throw new IllegalArgumentException("axis '" + label + "' needs min < max" + (log ? " and min > 0 (logarithmic)" : "")
                    + ", not " + min + ".." + max);
        }
        ticks = List.copyOf(ticks);
    }

    /** A linear axis over [min, max] with {@code divisions} equal steps between ticks. */
    public static Axis linear(String label, double min, double max, int divisions) {
        List<Double> ticks = new ArrayList<>();
        for (int k = 0; k <= divisions; k++) {
            ticks.add(min + (max - min) * k / divisions);
        }
        return new Axis(label, min, max, false, ticks);
    }

    /**
     * A linear axis from 0 to at least {@code top} in a round step (1, 2 or 5 times a power of
     * ten) that makes at most {@code maxDivisions} steps: an axis for values known only at the end.
     */
    public static Axis fromZero(String label, double top, int maxDivisions) {
        double t = top > 0 ? top : 1;
        double step = Math.pow(10, Math.floor(Math.log10(t / maxDivisions)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (Math.ceil(t / (step * m) - 1e-9) <= maxDivisions) {
                step *= m;
                break;
            }
        }
        int divisions = (int) Math.ceil(t / step - 1e-9);
        return linear(label, 0, step * divisions, divisions);
    }

    /** A logarithmic axis over whole decades covering [low, high] (at least one decade), a tick at each. */
    public static Axis logDecades(String label, double low, double high) {
        if (!(low > 0) || !(high >= low)) {
            throw new IllegalArgumentException("axis '" + label + "' needs 0 < low <= high, not " + low + ".." + high);
        }
        int from = (int) Math.floor(Math.log10(low) + 1e-9);
        int to = Math.max(from + 1, (int) Math.ceil(Math.log10(high) - 1e-9));
        List<Double> ticks = new ArrayList<>();
        for (int d = from; d <= to; d++) {
            ticks.add(Math.pow(10, d));
        }
        return new Axis(label, ticks.get(0), ticks.get(ticks.size() - 1), true, ticks);
    }

    /** Where {@code v} lies between min (0) and max (1). */
    public double fraction(double v) {
        return log ? (Math.log10(v) - Math.log10(min)) / (Math.log10(max) - Math.log10(min)) : (v - min) / (max - min);
    }
}
