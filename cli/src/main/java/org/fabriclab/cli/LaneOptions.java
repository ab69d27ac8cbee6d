package org.fabriclab.cli;

import org.fabriclab.routing.text.Excerpt;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --vls} and {@code --buffer}: a switch's virtual lanes and input buffers, live or simulated.
 * Both are checked while parsing, so a value the switch core cannot take is refused in one line
 * naming the option, before anything is built (a buffer of two billion packets overflowed the
 * simulator's packet pool with a stack trace; 16 lanes were refused as a routing table's SL-to-VL
 * entry the user never wrote).
 */
public final class LaneOptions {
    /** Data virtual lanes a port may have: InfiniBand's VL0..VL14 (VL15 is management), the switch core's limit too. */
    public static final int MAX_VLS = 15;
    /**
     * Packets of input buffer per port and lane: the switch core's limit on its output buffers, and
     * well inside the 16 bits a live link's HELLO gives the peer's initial credits.
     */
    public static final int MAX_BUFFER = 4096;

    @Option(names = "--vls", defaultValue = "2", paramLabel = "N", converter = Lanes.class,
            description = "Data virtual lanes per port, 1.." + MAX_VLS + ". Default: ${DEFAULT-VALUE}")
    public int vls;

    @Option(names = "--buffer", defaultValue = "8", paramLabel = "PACKETS", converter = Buffer.class,
            description = "Input buffer per port and lane, in packets, 1.." + MAX_BUFFER + ". Default: ${DEFAULT-VALUE}")
    public int buffer;

    /** {@code value} as a whole number in {@code min..max}, or a conversion error saying what the option counts. */
    static int count(String value, int min, int max, String what) {
        int v;
        try {
            v = Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            v = min - 1;
        }
        if (v < min || v > max) {
            throw new TypeConversionException("'" + Excerpt.bare(value) + "' is not " + what + "; give a whole number from " + min + " to " + max);
        }
        return v;
    }

    /** {@code --vls}: 1 to {@link #MAX_VLS}. */
    public static final class Lanes implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return count(value, 1, MAX_VLS, "a number of data lanes");
        }
    }

    /** {@code --buffer}: 1 to {@link #MAX_BUFFER}. */
    public static final class Buffer implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            return count(value, 1, MAX_BUFFER, "a buffer size in packets");
        }
    }
}
