package org.fabriclab.emulator.cli;

import java.util.List;
import java.util.Map;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.core.TrafficPlan;
import org.fabriclab.cli.NamedValues;
import org.fabriclab.routing.fabric.Fabric;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --pattern} (and, with {@code none}, {@code --traffic}): the hosts' traffic patterns by
 * their command-line names, and {@code adv+N} (Dragonfly's adversarial pattern with group offset
 * N; {@code adv+1} is {@code group-shift}, and reports name it so). Whether N fits a fabric's
 * groups is known once the topology is, so {@link #checkFits} refuses it then, before anything
 * starts.
 */
public class SimPatterns extends NamedValues<TrafficPattern> {
    public SimPatterns() {
        this("traffic pattern", names());
    }

    /** A table of {@code what} with the adversarial form beside it (the live plane's, with {@code none}). */
    protected SimPatterns(String what, Map<String, TrafficPattern> names) {
        super(what, names, List.of(TrafficPattern.ADVERSARIAL_PREFIX + "N"));
    }

    /** Every pattern with a name of its own, in the order help lists them; the simulator and the live hosts run each. */
    static Map<String, TrafficPattern> names() {
        return table(
                "uniform", TrafficPattern.UNIFORM,
                "permutation", TrafficPattern.PERMUTATION,
                "all-to-all", TrafficPattern.ALL_TO_ALL,
                "group-shift", TrafficPattern.GROUP_SHIFT);
    }

    /** {@code adv+N}, N from 1; null for any other name. */
    @Override
    protected TrafficPattern convertForm(String name) {
        if (!name.startsWith(TrafficPattern.ADVERSARIAL_PREFIX)) {
            return null;
        }
        try {
            return TrafficPattern.parse(name);
        } catch (IllegalArgumentException e) {
            throw new TypeConversionException(e.getMessage());
        }
    }

    @Override
    protected String formName(TrafficPattern value) {
        return value.cliName();
    }

    /**
     * Refuses {@code pattern}, given as {@code option}, if it cannot run on {@code fabric}: adversarial
     * traffic without two groups of hosts, or {@code adv+N} with N not below the number of groups.
     * For the commands to call before they start anything, once the topology is known.
     *
     * @throws IllegalArgumentException one line naming the option, the value and the reason
     */
    public static void checkFits(String option, TrafficPattern pattern, Fabric fabric) {
        if (pattern == null || pattern.kind() != TrafficPattern.Kind.ADVERSARIAL || fabric.endpointCount() < 2) {
            return; // the other patterns fit any fabric with two hosts; fewer is the simulator's own refusal
        }
        int[] groups = new int[fabric.endpointCount()];
        for (int e = 0; e < groups.length; e++) {
            groups[e] = fabric.group(fabric.endpointNode(e));
        }
        try {
            TrafficPlan.of(pattern, groups.length, groups, 0);
        } catch (IllegalArgumentException e) {
            String name = new SimPatterns().nameOf(pattern); // group-shift for adv+1: name both, either may have been typed
            String shown = name.startsWith(TrafficPattern.ADVERSARIAL_PREFIX) ? "'" + name + "'"
                    : "'" + name + "' (" + TrafficPattern.ADVERSARIAL_PREFIX + pattern.shift() + ")";
            throw new IllegalArgumentException("Invalid value for option '" + option + "': " + shown + " does not fit the fabric: "
                    + e.getMessage());
        }
    }
}
