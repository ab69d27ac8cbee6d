package org.fabriclab.emulator.cli;

import org.fabriclab.cli.NamedValues;
import org.fabriclab.emulator.sim.Simulation;

/** {@code emulator sim --pattern}: the simulator's traffic patterns by their command-line names. */
public final class SimPatterns extends NamedValues<Simulation.Pattern> {
    public SimPatterns() {
        super("traffic pattern", table(
                "uniform", Simulation.Pattern.UNIFORM,
                "permutation", Simulation.Pattern.PERMUTATION,
                "all-to-all", Simulation.Pattern.ALL_TO_ALL,
                "group-shift", Simulation.Pattern.GROUP_SHIFT));
    }
}
