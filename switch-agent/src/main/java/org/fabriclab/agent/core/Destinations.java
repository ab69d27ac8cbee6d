package org.fabriclab.agent.core;

import java.util.SplittableRandom;

/**
 * One host's destination chooser: the host number of its next packet's destination by its
 * {@link TrafficPlan}'s pattern. The other hosts are numbered as if the sender were not among
 * them, so a uniform pick is one draw and the turn of all-to-all never names the sender. The turn
 * wraps at the number of destinations, so it runs for any number of packets (an ever-growing
 * counter taken modulo the destinations turned negative after 2^31 packets). Allocates nothing;
 * confined to the thread driving the host.
 */
public final class Destinations {
    private final TrafficPattern.Kind kind;
    /** The sender's number, or {@link Integer#MAX_VALUE} when it is not among the hosts. */
    private final int skip;
    /** How many hosts it may send to. */
    private final int choices;
    private final SplittableRandom random;
    private final int fixed;
    private final int[] group;
    private int turn;

    /** {@code group}: for adversarial traffic, the hosts of the destination group. */
    Destinations(TrafficPattern.Kind kind, int self, int hosts, SplittableRandom random, int fixed, int[] group) {
        this.kind = kind;
        this.skip = self < 0 ? Integer.MAX_VALUE : self;
        this.choices = self < 0 ? hosts : hosts - 1;
        this.random = random;
        this.fixed = fixed;
        this.group = group;
    }

    /** The destination of the next packet: a host number of the plan, never the sender's. */
    public int next() {
        switch (kind) {
            case UNIFORM: {
                int d = random.nextInt(choices);
                return d >= skip ? d + 1 : d;
            }
            case PERMUTATION:
                return fixed;
            case ALL_TO_ALL: {
                int d = turn;
                turn = d + 1 == choices ? 0 : d + 1;
                return d >= skip ? d + 1 : d;
            }
            default: // adversarial: a host of the destination group
                return group[random.nextInt(group.length)];
        }
    }

    /** Moves the all-to-all turn on as if {@code picks} packets had been sent (tests of long runs). */
    void skip(long picks) {
        turn = (int) ((turn + picks % choices) % choices);
    }
}
