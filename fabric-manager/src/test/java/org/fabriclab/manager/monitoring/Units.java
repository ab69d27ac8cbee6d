package org.fabriclab.manager.monitoring;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The units a panel may say (Grafana's unit ids) and the values each admits: a panel whose
 * expression returns a value outside its unit's range shows something other than it says. A
 * panel may narrow the range with fieldConfig.defaults.min and max (Jain's index: 0..1).
 */
final class Units {
    /** A closed range of values and what the unit means. */
    record Range(double low, double high, String meaning) {
    }

    private static final double INF = Double.POSITIVE_INFINITY;
    /** Epoch milliseconds Grafana's date units read: after the project began, before tomorrow. */
    private static final double EPOCH_MS_LOW = Instant.parse("2020-01-01T00:00:00Z").toEpochMilli();

    static final Map<String, Range> RANGES = Map.of(
            "percentunit", new Range(0, 1, "a share, 0 to 1"),
            "s", new Range(0, INF, "seconds"),
            "bytes", new Range(0, INF, "bytes"),
            "bps", new Range(0, INF, "bits per second"),
            "Bps", new Range(0, INF, "bytes per second"),
            "pps", new Range(0, INF, "packets per second"),
            "cps", new Range(0, INF, "events per second"),
            "none", new Range(-INF, INF, "a plain number"),
            "dateTimeFromNow", new Range(EPOCH_MS_LOW, INF, "epoch milliseconds (Grafana's date units)"));

    /**
     * What {@code rate()} and {@code increase()} may overshoot a bound by: they extrapolate the
     * samples they have to the window's edges, and a dilation that changed inside the window scales
     * the whole window by its last value.
     */
    static final double RATE_SLACK = 0.05;

    private Units() {
    }

    /**
     * Why {@code value} is not in the unit and range {@code query} says, or null if it is.
     * {@code dateTimeFromNow} values must also lie before {@code now} plus a day.
     */
    static String outside(Query query, double value, Instant now) {
        Range unit = RANGES.get(query.unit());
        if (unit == null) {
            return "unit " + query.unit() + " has no check: add it to Units.RANGES";
        }
        if (!Double.isFinite(value)) {
            return "value " + value + " is not a number a panel can show";
        }
        double low = Math.max(unit.low(), query.min());
        double high = Math.min(unit.high(), query.max());
        if (query.unit().equals("dateTimeFromNow")) {
            high = Math.min(high, now.plus(Duration.ofDays(1)).toEpochMilli());
        }
        boolean rate = query.expr().contains("rate(") || query.expr().contains("increase(");
        double slack = rate && Double.isFinite(high) ? RATE_SLACK * Math.max(1, Math.abs(high)) : 0;
        if (value < low || value > high + slack) {
            return "value " + value + " outside " + low + ".." + high + (slack > 0 ? " (+" + slack + " for rate)" : "")
                    + " (" + unit.meaning() + ")";
        }
        return null;
    }
}
