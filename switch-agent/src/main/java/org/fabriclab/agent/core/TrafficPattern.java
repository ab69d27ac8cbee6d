package org.fabriclab.agent.core;

import java.util.Locale;

/**
 * How each host picks the destination of its next packet, the same on both clocks (the live
 * hosts and the simulator's). {@link TrafficPlan} holds what a pattern needs of the whole fabric.
 */
public enum TrafficPattern {
    /** Uniformly at random among the other hosts. */
    UNIFORM,
    /** Each host to one other, a random permutation without fixed points (seeded, the same on every host). */
    PERMUTATION,
    /** Every other host in turn (all-to-all); the live plane called it ROUND_ROBIN. */
    ALL_TO_ALL,
    /**
     * Uniformly at random among the hosts of the next group (group i to group i+1, the last to the
     * first): Dragonfly's adversarial pattern, which minimal routing squeezes onto the few global
     * links between two groups.
     */
    GROUP_SHIFT;

    /** The names the command lines take, in the order of the constants. */
    public static final String NAMES = "uniform, permutation, all-to-all or group-shift";

    /**
     * The pattern named {@code name} as the command lines spell it ({@code uniform},
     * {@code permutation}, {@code all-to-all}, {@code group-shift}; any case, {@code _} for
     * {@code -}); {@code round-robin}, the live plane's old name of all-to-all, is still taken.
     *
     * @throws IllegalArgumentException naming the value and the patterns there are
     */
    public static TrafficPattern parse(String name) {
        String n = name.toLowerCase(Locale.ROOT).replace('_', '-');
        return switch (n) {
            case "uniform" -> UNIFORM;
            case "permutation" -> PERMUTATION;
            case "all-to-all", "round-robin" -> ALL_TO_ALL;
            case "group-shift" -> GROUP_SHIFT;
            default -> throw new IllegalArgumentException("unknown pattern '" + name + "'; use " + NAMES);
        };
    }

    /** The command-line spelling: {@code all-to-all} for {@link #ALL_TO_ALL}. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
