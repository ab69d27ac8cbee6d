package org.fabriclab.agent.core;

import java.util.List;
import java.util.Locale;

/**
 * How each host picks the destination of its next packet, the same on both clocks (the live
 * hosts and the simulator's): a {@link Kind} and, for Dragonfly's adversarial traffic, the group
 * offset {@code shift}. {@link TrafficPlan} holds what a pattern needs of the whole fabric.
 *
 * <p>A small immutable value: patterns compare by value, so {@code adversarial(1)} is
 * {@link #GROUP_SHIFT} (the name it has always had, {@code group-shift}) and {@code adv+1} on a
 * command line gives group-shift's very traffic.
 *
 * @param kind  how destinations are picked
 * @param shift for {@link Kind#ADVERSARIAL}, the offset N of the destination group (own + N mod
 *              the number of groups), 1 or more; 0 for the other kinds
 */
public record TrafficPattern(Kind kind, int shift) {
    /** The ways a host picks destinations. */
    public enum Kind {
        /** Uniformly at random among the other hosts. */
        UNIFORM,
        /** Each host to one other, a random permutation without fixed points (seeded, the same on every host). */
        PERMUTATION,
        /** Every other host in turn (all-to-all); the live plane called it ROUND_ROBIN. */
        ALL_TO_ALL,
        /**
         * Uniformly at random among the hosts of the group {@code shift} after the sender's (groups
         * numbered in order, wrapping): Dragonfly's adversarial pattern ADV+N, which minimal routing
         * squeezes onto the few global links between two groups.
         */
        ADVERSARIAL,
        /** Each host to the next (host i to i + 1, the last to the first): a ring allreduce's steps. */
        ALLREDUCE_RING,
        /**
         * Each host to its six neighbours in turn in the most cubic 3D grid of the hosts, periodic
         * (ember's halo3d stencil; fewer where a side of the grid is 1 or 2 hosts long).
         */
        HALO3D
    }

    /** Uniformly at random among the other hosts. */
    public static final TrafficPattern UNIFORM = new TrafficPattern(Kind.UNIFORM, 0);
    /** Each host to one other, a random permutation without fixed points (seeded, the same on every host). */
    public static final TrafficPattern PERMUTATION = new TrafficPattern(Kind.PERMUTATION, 0);
    /** Every other host in turn (all-to-all); the live plane called it ROUND_ROBIN. */
    public static final TrafficPattern ALL_TO_ALL = new TrafficPattern(Kind.ALL_TO_ALL, 0);
    /** Uniformly at random among the hosts of the next group (group i to i+1, the last to the first): ADV+1. */
    public static final TrafficPattern GROUP_SHIFT = new TrafficPattern(Kind.ADVERSARIAL, 1);

    /** Each host to the next, the last to the first: a ring allreduce. */
    public static final TrafficPattern ALLREDUCE_RING = new TrafficPattern(Kind.ALLREDUCE_RING, 0);
    /** Each host to its neighbours in turn in the most cubic periodic 3D grid of the hosts. */
    public static final TrafficPattern HALO3D = new TrafficPattern(Kind.HALO3D, 0);

    /** The prefix of the adversarial patterns' names: {@code adv+N}. */
    public static final String ADVERSARIAL_PREFIX = "adv+";

    /** The names the command lines take. */
    public static final String NAMES = "uniform, permutation, all-to-all, allreduce-ring, halo3d, group-shift or adv+N (N >= 1)";

    public TrafficPattern {
        if (kind == null) {
            throw new IllegalArgumentException("a traffic pattern needs a kind");
        }
        if (kind == Kind.ADVERSARIAL ? shift < 1 : shift != 0) {
            throw new IllegalArgumentException(kind == Kind.ADVERSARIAL
                    ? "adversarial traffic sends to the group N after the sender's, N 1 or more, not " + shift
                    : kind + " traffic has no group offset, not " + shift);
        }
    }

    /** ADV+{@code shift}: every host to a random host of the group {@code shift} after its own; ADV+1 is {@link #GROUP_SHIFT}. */
    public static TrafficPattern adversarial(int shift) {
        return new TrafficPattern(Kind.ADVERSARIAL, shift);
    }

    /** The patterns with a name of their own, in the order the command lines list them (ADV+N for N > 1 aside). */
    public static List<TrafficPattern> named() {
        return List.of(UNIFORM, PERMUTATION, ALL_TO_ALL, GROUP_SHIFT);
    }

    /**
     * The pattern named {@code name} as the command lines spell it ({@code uniform},
     * {@code permutation}, {@code all-to-all}, {@code group-shift}, {@code adv+N}; any case,
     * {@code _} for {@code -}); {@code round-robin}, the live plane's old name of all-to-all, is
     * still taken.
     *
     * @throws IllegalArgumentException naming the value and the patterns there are, or what is wrong with an {@code adv+N}
     */
    public static TrafficPattern parse(String name) {
        String n = name.toLowerCase(Locale.ROOT).replace('_', '-');
        if (n.startsWith(ADVERSARIAL_PREFIX)) {
            String digits = n.substring(ADVERSARIAL_PREFIX.length());
            int shift;
            try {
                shift = digits.chars().allMatch(Character::isDigit) ? Integer.parseInt(digits) : -1;
            } catch (NumberFormatException e) { // empty or too long
                shift = -1;
            }
            if (shift < 1) {
                throw new IllegalArgumentException("'" + name + "' is not an adversarial pattern: adv+N takes the group offset N, "
                        + "a whole number from 1 (adv+1 is group-shift)");
            }
            return adversarial(shift);
        }
        return switch (n) {
            case "uniform" -> UNIFORM;
            case "permutation" -> PERMUTATION;
            case "all-to-all", "round-robin" -> ALL_TO_ALL;
            case "group-shift" -> GROUP_SHIFT;
            case "allreduce-ring" -> ALLREDUCE_RING;
            case "halo3d" -> HALO3D;
            default -> throw new IllegalArgumentException("unknown pattern '" + name + "'; use " + NAMES);
        };
    }

    /** The command-line spelling: {@code all-to-all} for {@link #ALL_TO_ALL}, {@code group-shift} for ADV+1, {@code adv+4} for ADV+4. */
    public String cliName() {
        if (kind == Kind.ADVERSARIAL) {
            return shift == 1 ? "group-shift" : ADVERSARIAL_PREFIX + shift;
        }
        return kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    @Override
    public String toString() {
        return cliName();
    }
}
