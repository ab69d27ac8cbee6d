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
 * to one host; its all-to-all goes round from the rank after the sender's. Allocates nothing;
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
    /** The last {@link #next} began a message. */
    private boolean started;

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
        // a job's all-to-all starts after the sender's own rank (r + 1, r + 2, .. wrapping), as MPI's
        // pairwise exchange does, so its ranks do not all start on rank 0 at once (an incast); the
        // fabric-wide pattern keeps its turn from host 0
        this.turn = hostOfRank != null && kind == TrafficPattern.Kind.ALL_TO_ALL && self > 0 ? self % choices : 0;
    }

    /** The destination of the next packet: a host number of the plan, never the sender's. */
    public int next() {
        if (left > 0) {
            left--;
            started = false;
            return current;
        }
        started = true;
        int d = pick();
        current = hostOfRank == null ? d : hostOfRank[d];
        left = messagePackets - 1;
        return current;
    }

    /** True if the destination {@link #next} named last is a message's first packet's. */
    public boolean startedMessage() {
        return started;
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
