package org.fabriclab.cli;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --time-dilation D|auto}: how much slower than real time the live plane runs, so that a
 * machine too small for the fabric's load still carries it faithfully in model time (every rate,
 * counter and metric is in model time). Checked before anything starts.
 */
public final class TimeDilationOption {
    @Option(names = "--time-dilation", defaultValue = "auto", paramLabel = "D|auto", converter = Converter.class,
            description = "Run the live plane D times slower than real time (1..1000; 1: real time), every rate and counter in "
                    + "model time; auto: start from the offered load and follow the fidelity monitor's lags. Default: ${DEFAULT-VALUE}")
    public TimeDilation timeDilation = TimeDilation.AUTO;

    /** Parses the option's value; a bad one is a usage error naming the value. */
    public static final class Converter implements ITypeConverter<TimeDilation> {
        @Override
        public TimeDilation convert(String value) {
            try {
                return TimeDilation.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
