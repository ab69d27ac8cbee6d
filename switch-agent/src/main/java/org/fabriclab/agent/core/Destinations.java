package org.fabriclab.agent.core;

import java.util.SplittableRandom;

/**
 * One host's destination chooser: the host number of its next packet's destination by its
 * {@link TrafficPlan}'s pattern. The other hosts are numbered as if the sender were not among
 * them, so a uniform pick is one draw and the turn of all-to-all never names the sender. The turn
 * wraps at the number of destinations, so it runs for any number of packets (an ever-growing
 * counter taken modulo the destinations turned negative after 2^31 packets).
 *
 * <p>A job's chooser ({@link TrafficPlan#ofJob}) picks among the job's ranks and answers the
 * rank's host ({@code hostOfRank}); with messages of several packets it picks once per message
 * and names that destination for each of the message's packets, so a message leaves as a burst
 * to one host. Allocates nothing; confined to the thread driving the host.
 */
public final class Destinations {
    private final TrafficPattern.Kind kind;
    /** The sender's number, or {@link Integer#MAX_VALUE} when it is not among the hosts. */
    private final int skip;
    /** How many hosts it may send to. */
    private final int choices;
    private final SplittableRandom random;
    private final int fixed;
    /** Adversarial traffic: the hosts of the destination group; halo3d: the sender's neighbours, taken in turn. */
    private final int[] group;
    /** Per rank, its host (a job's chooser), or null: the pick is the host. */
    private final int[] hostOfRank;
    /** Packets per message: the pick is kept for this many packets. */
    private final int messagePackets;
    private int turn;
    /** Packets of the current message still to name {@link #current}. */
    private int left;
    private int current;

    /** {@code group}: for adversarial traffic, the hosts of the destination group. */
    Destinations(TrafficPattern.Kind kind, int self, int hosts, SplittableRandom random, int fixed, int[] group) {
        this(kind, self, hosts, random, fixed, group, null, 1);
    }

    /**
     * @param hostOfRank     per rank of a job, its host (null: the plan's numbers are hosts)
     * @param messagePackets packets per message, 1 or more
     */
    Destinations(TrafficPattern.Kind kind, int self, int hosts, SplittableRandom random, int fixed, int[] group, int[] hostOfRank,
                 int messagePackets) {
        if (messagePackets < 1) {
            throw new IllegalArgumentException("a message has at least one packet, not " + messagePackets);
        }
        this.kind = kind;
        this.skip = self < 0 ? Integer.MAX_VALUE : self;
        this.choices = self < 0 ? hosts : hosts - 1;
        this.random = random;
        this.fixed = fixed;
        this.group = group;
        this.hostOfRank = hostOfRank;
        this.messagePackets = messagePackets;
    }

    /** The destination of the next packet: a host number of the plan, never the sender's. */
    public int next() {
        if (left > 0) {
            left--;
            return current;
        }
        int d = pick();
        current = hostOfRank == null ? d : hostOfRank[d];
        left = messagePackets - 1;
        return current;
    }

    /** Packets per message: {@link #next} names one destination this many times in a row. */
    public int messagePackets() {
        return messagePackets;
    }

    private int pick() {
        switch (kind) {
            case UNIFORM: {
                int d = random.nextInt(choices);
                return d >= skip ? d + 1 : d;
            }
            case PERMUTATION:
            case ALLREDUCE_RING:
                return fixed;
            case ALL_TO_ALL: {
                int d = turn;
                turn = d + 1 == choices ? 0 : d + 1;
                return d >= skip ? d + 1 : d;
            }
            case HALO3D: {
                int d = group[turn];
                turn = turn + 1 == group.length ? 0 : turn + 1;
                return d;
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
