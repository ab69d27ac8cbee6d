package org.fabriclab.cli;

import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A duration given on the command line with its unit: {@code 500ns}, {@code 100us}, {@code 2ms},
 * {@code 1s} (decimals allowed: {@code 1.5ms}). Every duration option of every main takes this
 * form. {@code 0} needs no unit. Options that took a bare number before (seconds, milliseconds,
 * nanoseconds) read one in that old unit for one more release, through the converter named after
 * it, and {@link Cli} warns that the unit is missing.
 *
 * @param nanos     the duration in nanoseconds
 * @param text      as written
 * @param bareUnit  the unit a bare number was read in (then deprecated), or {@code ""} if the text had one
 */
public record TimeSpan(long nanos, String text, String bareUnit) {
    private static final Pattern TIME = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|ms|s)?");

    public TimeSpan {
        if (nanos < 0) {
            throw new IllegalArgumentException("a duration is 0 or more, not " + text);
        }
    }

    /** Parses {@code text}; a bare number (other than 0) is refused. */
    public static TimeSpan parse(String text) {
        return parse(text, null);
    }

    /**
     * Parses {@code text}, reading a bare number in {@code bareUnit} ({@code ns}, {@code ms} or
     * {@code s}) if that is not null. The arithmetic is the simulator's since its first version
     * (the value times the unit's scale, rounded), so reports keep their values.
     */
    static TimeSpan parse(String text, String bareUnit) {
        Matcher m = TIME.matcher(text.strip());
        if (!m.matches()) {
            throw new IllegalArgumentException("'" + text + "' is not a duration; write e.g. 500ns, 100us, 2ms or 1s");
        }
        double v = Double.parseDouble(m.group(1));
        String unit = m.group(2);
        String bare = "";
        if (unit == null) {
            if (v != 0 && bareUnit == null) {
                throw new IllegalArgumentException("'" + text + "' has no unit; write e.g. " + m.group(1) + "us (ns, us, ms or s)");
            }
            unit = bareUnit == null ? "ns" : bareUnit;
            bare = v == 0 ? "" : unit;
        }
        double scale = switch (unit) {
            case "us" -> 1e3;
            case "ms" -> 1e6;
            case "s" -> 1e9;
            default -> 1;
        };
        return new TimeSpan(Math.round(v * scale), text.strip(), bare);
    }

    /** {@code nanos} as a duration option would take it, in the largest unit that keeps it whole. */
    public static TimeSpan ofNanos(long nanos) {
        String text = nanos % 1_000_000_000L == 0 ? nanos / 1_000_000_000L + "s"
                : nanos % 1_000_000 == 0 ? nanos / 1_000_000 + "ms" : nanos % 1000 == 0 ? nanos / 1000 + "us" : nanos + "ns";
        return new TimeSpan(nanos, text, "");
    }

    /** True if the text was a bare number read in an old unit (a deprecated spelling). */
    public boolean unitless() {
        return !bareUnit.isEmpty();
    }

    public long millis() {
        return nanos / 1_000_000;
    }

    public double seconds() {
        return nanos / 1e9;
    }

    /** This duration if it is above 0; refuses 0, naming the option (an interval or a deadline of 0 is no setting). */
    public TimeSpan positive(String option) {
        if (nanos <= 0) {
            throw new IllegalArgumentException(option + " must be above 0, not " + text);
        }
        return this;
    }

    /** Whole seconds, for settings kept in seconds; refuses a fraction, naming the option. */
    public long wholeSeconds(String option) {
        if (nanos % 1_000_000_000L != 0) {
            throw new IllegalArgumentException(option + " is whole seconds, not " + text);
        }
        return nanos / 1_000_000_000L;
    }

    @Override
    public String toString() {
        return text;
    }

    /** Durations with units (a bare 0 allowed). */
    public static final class Converter implements ITypeConverter<TimeSpan> {
        @Override
        public TimeSpan convert(String value) {
            return convert(value, null);
        }

        static TimeSpan convert(String value, String bareUnit) {
            try {
                return parse(value, bareUnit);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** Durations with units; for one release a bare number is nanoseconds, as it was. */
    public static final class BareNanos implements ITypeConverter<TimeSpan> {
        @Override
        public TimeSpan convert(String value) {
            return Converter.convert(value, "ns");
        }
    }

    /** Durations with units; for one release a bare number is milliseconds, as it was. */
    public static final class BareMillis implements ITypeConverter<TimeSpan> {
        @Override
        public TimeSpan convert(String value) {
            return Converter.convert(value, "ms");
        }
    }

    /** Durations with units; for one release a bare number is seconds, as it was. */
    public static final class BareSeconds implements ITypeConverter<TimeSpan> {
        @Override
        public TimeSpan convert(String value) {
            return Converter.convert(value, "s");
        }
    }
}
