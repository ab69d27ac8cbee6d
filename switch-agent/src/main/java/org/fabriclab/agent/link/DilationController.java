package org.fabriclab.agent.link;

/**
 * {@code --time-dilation auto}'s decisions, fed once an interval with the worst lag of the fabric
 * (model ns) and the bound it must stay within; no clock of its own, so tests feed it figures.
 *
 * <p>A lag over the bound raises D at once, by the lag's excess (at least {@link #RAISE_MIN}
 * times, at most {@link #RAISE_MAX} times an interval): the loops could not keep up. Lags under a
 * quarter of the bound for {@link #QUIET_INTERVALS} intervals in a row lower D by
 * {@link #LOWER}, never to within {@link #MARGIN} of a D that lagged in the last
 * {@link #MEMORY_INTERVALS} intervals (hysteresis: it does not go back to where it failed, and
 * tries again only after a while). In between, D holds. After a change (or a {@link #hold}) the
 * next {@link #HOLD_INTERVALS} figures are ignored: their window began before it, so they say how
 * the old D fared, and a backlog built at the old D is still draining.
 */
public final class DilationController {
    static final double RAISE_MIN = 1.5;
    static final double RAISE_MAX = 4;
    static final double LOWER = 1.5;
    static final double MARGIN = 1.25;
    static final int QUIET_INTERVALS = 3;
    static final int MEMORY_INTERVALS = 150;
    static final int HOLD_INTERVALS = 1;

    /** A change of D and why, or none ({@code dilation} is the one in force, {@code why} null). */
    public record Decision(double dilation, String why) {
        public boolean changes() {
            return why != null;
        }
    }

    private int quiet;
    private int held;
    /** The highest D that lagged recently (0: none remembered), and how many intervals ago. */
    private double failedAt;
    private int sinceFailure;

    /** The next D, given the one in force and the worst lag over the interval just ended. */
    public Decision next(double d, long lagNs, long boundNs) {
        if (failedAt > 0 && ++sinceFailure > MEMORY_INTERVALS) {
            failedAt = 0;
        }
        if (held > 0) {
            held--;
            return new Decision(d, null);
        }
        Decision x = decide(d, lagNs, boundNs);
        if (x.changes()) {
            hold();
        }
        return x;
    }

    /** Ignores the next figures: D was changed from outside (the starting estimate), or the fabric is starting. */
    public void hold() {
        held = HOLD_INTERVALS;
        quiet = 0;
    }

    private Decision decide(double d, long lagNs, long boundNs) {
        if (lagNs > boundNs) {
            quiet = 0;
            failedAt = Math.max(d, sinceFailure > MEMORY_INTERVALS ? 0 : failedAt);
            sinceFailure = 0;
            double up = Math.min(ModelClock.MAX_DILATION, d * Math.max(RAISE_MIN, Math.min(RAISE_MAX, (double) lagNs / boundNs)));
            return up > d ? new Decision(up, String.format("lag %s over the bound %s at D=%s", us(lagNs), us(boundNs), fmt(d)))
                    : new Decision(d, null);
        }
        if (lagNs * 4 > boundNs || d <= 1) {
            quiet = 0;
            return new Decision(d, null);
        }
        if (++quiet < QUIET_INTERVALS) {
            return new Decision(d, null);
        }
        quiet = 0;
        double down = Math.max(1, Math.max(d / LOWER, failedAt * MARGIN));
        if (down >= d) {
            return new Decision(d, null);
        }
        return new Decision(down, String.format("lag at most %s, under a quarter of the bound %s, for %d intervals at D=%s", us(lagNs),
                us(boundNs), QUIET_INTERVALS, fmt(d)));
    }

    /**
     * A starting D for {@code auto}: the frames a second the fabric's links carry at the offered
     * load (hosts x rate / frame, each over {@code links} links on average) over what the event
     * loops forward in a second at half load, {@code framesPerLoopSecond} each; 1 if it fits.
     */
    public static double initial(int hosts, double gbpsPerHost, int frameBytes, double links, int loops, double framesPerLoopSecond) {
        double frames = hosts * gbpsPerHost * 1e9 / 8 / frameBytes * links;
        double d = Math.ceil(frames / (loops * framesPerLoopSecond * 0.5));
        return Math.max(1, Math.min(ModelClock.MAX_DILATION, d));
    }

    private static String us(long ns) {
        return String.format("%.1f us", ns / 1000.0);
    }

    private static String fmt(double d) {
        return String.format("%.3g", d);
    }
}
