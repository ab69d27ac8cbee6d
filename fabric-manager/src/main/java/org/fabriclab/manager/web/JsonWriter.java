package org.fabriclab.manager.web;

import java.math.BigDecimal;
import java.math.MathContext;
import org.fabriclab.routing.format.Json;

/**
 * A streaming JSON writer for the fabric view's answers, which are large flat arrays ({@link Json}
 * of routing-engines writes maps and lists of boxed values, and strings, as this one does through
 * it): the caller writes names, values and brackets in order; commas are placed here. Numbers
 * are written compactly (integers without a fraction, others with at most {@link #DIGITS}
 * significant digits), non-finite numbers as {@code null}.
 */
final class JsonWriter {
    /** Significant digits of a fractional number: enough for a utilisation of 0.0002 to read as such. */
    static final int DIGITS = 4;
    private static final MathContext ROUND = new MathContext(DIGITS);

    private final StringBuilder out;
    /** Whether the next value in the current container needs a comma before it. */
    private boolean comma;

    JsonWriter(int capacity) {
        out = new StringBuilder(capacity);
    }

    JsonWriter open() {
        value();
        out.append('{');
        comma = false;
        return this;
    }

    JsonWriter close() {
        out.append('}');
        comma = true;
        return this;
    }

    JsonWriter array() {
        value();
        out.append('[');
        comma = false;
        return this;
    }

    JsonWriter end() {
        out.append(']');
        comma = true;
        return this;
    }

    /** The name of the next member of an object. */
    JsonWriter name(String name) {
        value();
        quote(name);
        out.append(':');
        comma = false;
        return this;
    }

    JsonWriter value(String s) {
        value();
        if (s == null) {
            out.append("null");
        } else {
            quote(s);
        }
        return this;
    }

    JsonWriter value(long v) {
        value();
        out.append(v);
        return this;
    }

    JsonWriter value(boolean v) {
        value();
        out.append(v);
        return this;
    }

    JsonWriter value(double v) {
        value();
        number(v);
        return this;
    }

    JsonWriter values(int[] v) {
        array();
        for (int x : v) {
            value(x);
        }
        return end();
    }

    JsonWriter member(String name, String v) {
        return name(name).value(v);
    }

    JsonWriter member(String name, long v) {
        return name(name).value(v);
    }

    JsonWriter member(String name, double v) {
        return name(name).value(v);
    }

    JsonWriter member(String name, boolean v) {
        return name(name).value(v);
    }

    private void value() {
        if (comma) {
            out.append(',');
        }
        comma = true;
    }

    private void number(double v) {
        if (!Double.isFinite(v)) {
            out.append("null");
        } else if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            out.append((long) v);
        } else {
            out.append(new BigDecimal(v).round(ROUND).stripTrailingZeros()); // E notation below 1e-6 is JSON too
        }
    }

    private void quote(String s) {
        Json.append(out, s);
    }

    @Override
    public String toString() {
        return out.toString();
    }
}
