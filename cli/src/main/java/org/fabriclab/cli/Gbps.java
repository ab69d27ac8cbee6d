package org.fabriclab.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A rate option in Gbps ({@code --link-gbps}, {@code --traffic-gbps}): a positive, finite number,
 * checked while parsing. A rate of 0 or less is refused (a link at 0 Gbps never sends, and a host
 * offering 0 Gbps is {@code --traffic none}); so are {@code NaN} and {@code Infinity}, which
 * {@code Double.parseDouble} reads.
 */
public final class Gbps implements ITypeConverter<Double> {
    @Override
    public Double convert(String value) {
        double v;
        try {
            v = Double.parseDouble(value.strip());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + value + "' is not a rate; give a positive number of Gbps, e.g. 0.2 or 100");
        }
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new TypeConversionException("'" + value + "' is not a rate above 0; give a positive number of Gbps, e.g. 0.2 or 100");
        }
        return v;
    }
}
