package org.fabriclab.emulator.cli;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --loads}: the offered loads of a sweep, as written and as values. Either a range
 * {@code START:STOP:STEP} (from START by STEP up to and including STOP, in exact decimal steps, so
 * {@code 0.1:0.9:0.05} is 0.1, 0.15, ..., 0.9 and never 0.8999999) or a list {@code 0.2,0.5,0.8}
 * (one load alone too). Every load in (0, 1], at most {@link #MAX_POINTS} of them, none twice.
 *
 * @param loads ascending for a range, in the order given for a list
 */
public record LoadGrid(String text, double[] loads) {
    /** Loads a sweep may have: more is a typing mistake (a step of 0.0001) rather than an experiment. */
    public static final int MAX_POINTS = 1000;

    /** Parses {@code text}; refuses, saying why, what is not a grid of loads in (0, 1]. */
    public static LoadGrid parse(String text) {
        String t = text.strip();
        List<BigDecimal> loads = new ArrayList<>();
        if (t.contains(":")) {
            String[] part = t.split(":", -1);
            if (part.length != 3) {
                throw new IllegalArgumentException("'" + text + "' is not a range of loads; write START:STOP:STEP, e.g. 0.1:0.9:0.05");
            }
            BigDecimal start = number(text, part[0]);
            BigDecimal stop = number(text, part[1]);
            BigDecimal step = number(text, part[2]);
            if (step.signum() <= 0 || start.compareTo(stop) > 0) {
                throw new IllegalArgumentException("'" + text + "' is not a range of loads: it needs START <= STOP and a STEP above 0");
            }
            for (BigDecimal l = start; l.compareTo(stop) <= 0; l = l.add(step)) {
                if (loads.size() == MAX_POINTS) {
                    throw new IllegalArgumentException("'" + text + "' makes more than " + MAX_POINTS + " loads; take a larger step");
                }
                loads.add(l);
            }
        } else {
            for (String p : t.split(",", -1)) {
                BigDecimal l = number(text, p);
                if (loads.stream().anyMatch(x -> x.compareTo(l) == 0)) {
                    throw new IllegalArgumentException("'" + text + "' names the load " + p.strip() + " twice");
                }
                loads.add(l);
            }
            if (loads.size() > MAX_POINTS) {
                throw new IllegalArgumentException("'" + text + "' names more than " + MAX_POINTS + " loads");
            }
        }
        for (BigDecimal l : loads) {
            if (l.signum() <= 0 || l.compareTo(BigDecimal.ONE) > 0) {
                throw new IllegalArgumentException("'" + text + "' has the load " + l.toPlainString() + ", outside (0, 1]: a load is a "
                        + "fraction of the link rate");
            }
        }
        return new LoadGrid(t, loads.stream().mapToDouble(BigDecimal::doubleValue).toArray());
    }

    private static BigDecimal number(String text, String part) {
        try {
            return new BigDecimal(part.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' is not a list or range of loads: '" + part.strip() + "' is not a number");
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LoadGrid g && g.text.equals(text) && Arrays.equals(g.loads, loads);
    }

    @Override
    public int hashCode() {
        return text.hashCode() * 31 + Arrays.hashCode(loads);
    }

    @Override
    public String toString() {
        return text;
    }

    /** {@code --loads} while parsing. */
    public static final class Converter implements ITypeConverter<LoadGrid> {
        @Override
        public LoadGrid convert(String value) {
            try {
                return parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
