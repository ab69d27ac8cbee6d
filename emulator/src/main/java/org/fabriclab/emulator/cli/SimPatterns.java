package org.fabriclab.emulator.cli;

import java.util.Map;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.cli.NamedValues;

/** {@code --pattern} (and, with {@code none}, {@code --traffic}): the hosts' traffic patterns by their command-line names. */
public final class SimPatterns extends NamedValues<TrafficPattern> {
    public SimPatterns() {
        super("traffic pattern", names());
    }

    /** Every pattern by name, in the order help lists them; the simulator and the live hosts run each. */
    static Map<String, TrafficPattern> names() {
        return table(
                "uniform", TrafficPattern.UNIFORM,
                "permutation", TrafficPattern.PERMUTATION,
                "all-to-all", TrafficPattern.ALL_TO_ALL,
                "group-shift", TrafficPattern.GROUP_SHIFT);
    }
}
