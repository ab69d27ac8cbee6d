package org.fabriclab.cli;

/**
 * How a live fabric's time dilation D is chosen ({@code --time-dilation}): fixed at {@code
 * dilation}, or {@code auto} (then {@code dilation} is where it starts, 0 to estimate it from the
 * offered load when traffic starts) and moved by the emulator's controller as the fidelity
 * monitor's lags say. The range of D is this type's: the model clock checks against it too.
 */
public record TimeDilation(double dilation, boolean auto) {
    /** The largest dilation accepted: beyond it a model second takes over a quarter of an hour. */
    public static final double MAX = 1000;

    /** Real time, fixed: the live plane as it was before dilation. */
    public static final TimeDilation REAL_TIME = new TimeDilation(1, false);
    /** Automatic, starting from an estimate of the offered load. */
    public static final TimeDilation AUTO = new TimeDilation(0, true);

    public TimeDilation {
        String why = invalid(dilation);
        if (why != null && !(auto && dilation == 0)) {
            throw new IllegalArgumentException(why);
        }
    }

    /** Null if {@code d} is a dilation D in 1..{@link #MAX}, else why not (for option and RPC checks). */
    public static String invalid(double d) {
        if (!(d >= 1 && d <= MAX)) {
            return "time dilation " + d + " is out of range 1.." + (int) MAX + " (1: real time)";
        }
        return null;
    }

    /** {@code auto}, or a number D (1..{@link #MAX}); the message names what is wrong. */
    public static TimeDilation parse(String s) {
        if (s.equalsIgnoreCase("auto")) {
            return AUTO;
        }
        double d;
        try {
            d = Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("time dilation \"" + s + "\" is neither a number D (1..1000) nor auto");
        }
        return new TimeDilation(d, false);
    }

    @Override
    public String toString() {
        return auto ? (dilation == 0 ? "auto" : "auto from " + dilation) : Double.toString(dilation);
    }
}
