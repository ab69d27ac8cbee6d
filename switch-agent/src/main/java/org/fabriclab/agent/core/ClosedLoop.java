package org.fabriclab.agent.core;

import java.util.Arrays;

/**
 * One closed-loop job's microbenchmark (De Sensi et al., SC'19): who sends a message to whom when
 * a message has fully arrived, and when an iteration ends. A rank sends when the whole of the
 * message it waits for has been received (its last packet), iterations back to back:
 * <ul>
 * <li>{@link Kind#PING_PONG}: rank 0 sends to rank 1, which answers; an iteration is the round trip,
 * ended when rank 0 has the answer (and sends the next ping).
 * <li>{@link Kind#BARRIER}: the dissemination barrier (Hensgen, Finkel and Manber), ceil(log2 n)
 * rounds; in round k rank i sends to rank i + 2^k and waits for rank i - 2^k's message (mod n),
 * then goes on to round k + 1, and after the last round to the next barrier; an iteration ends
 * when every rank has left it. A round's messages are counted over the run: a fast sender's
 * message of the next barrier may come before the receiver has left this one.
 * <li>{@link Kind#ALL_TO_ALL}: MPI's pairwise exchange, n - 1 steps; in step k (1 to n - 1) rank i
 * sends to rank i + k and waits for rank i - k's message (mod n), then goes on to step k + 1; an
 * iteration ends when every rank has finished its last step. It runs as the barrier does, with
 * steps for rounds: a message of the next all-to-all may come before the receiver has finished
 * this one, and it is counted.
 * <li>{@link Kind#ALLREDUCE}: the ring allreduce (reduce-scatter, then allgather), 2 (n - 1) steps;
 * in every step rank i sends to rank i + 1 and waits for rank i - 1's message, then goes on to the
 * next step; an iteration ends when every rank has finished its last step. One sender for every
 * step: its messages are counted over the run, the k-th is step k's.
 * <li>{@link Kind#BROADCAST}: a binomial tree from rank 0 (rank r's parent r minus its highest bit,
 * its children r + 2^k for 2^k > r, nearest first), each rank forwarding to its children when it
 * has the whole message; an iteration ends when every rank has it, and rank 0 starts the next at
 * once.
 * <li>{@link Kind#HALO3D}: ember's Halo3D (SST's nearest-neighbour motif) on the open-loop
 * halo3d's grid ({@link TrafficPlan#halo3dByDimension}: the most cubic periodic 3D grid of the
 * ranks); an iteration is a phase per side of the grid, x, then y, then z (a side of 1 has none):
 * in each a rank sends a message to its neighbours along that side (down, then up; one where the
 * side is 2) and waits for theirs, then goes on to the next phase; an iteration ends when every
 * rank has finished its last phase.
 * <li>{@link Kind#SWEEP3D}: ember's Sweep3D (KBA wavefronts) on the most square 2D grid of the
 * ranks, px x py ({@link #grid2d}), not periodic; an iteration is four sweeps, one from each corner
 * in ember's order ((0, 0), (px, 0), (px, py), (0, py)), each of {@link #SWEEP3D_BLOCKS} blocks: for
 * each block a rank waits for the messages of its upstream neighbours in x and in y (those nearer
 * the sweep's corner; none at the corner), then sends to its downstream ones, x first; a rank goes
 * through its blocks and sweeps in order, and an iteration ends when every rank has finished the
 * fourth sweep.
 * </ul>
 * The driver moves bytes and time: it tells the loop a message from rank {@code from} has been
 * fully received by rank {@code to} ({@link #received}; {@link #packetReceived} counts packets into
 * messages for a driver that sees packets), and does what the loop answers through its {@link
 * Actions}, in the order asked: send a whole message now, an iteration ended. The simulator drives
 * it from its event queue in virtual time; the live hosts of a job share one, from their event
 * loops in model time, under a lock. Ranks are the job's, 0..n-1; the driver maps them to hosts.
 *
 * <p>Nothing is allocated after construction. Not thread-safe: confined to one thread, or used
 * under one lock.
 */
public final class ClosedLoop {
    /** The closed-loop microbenchmarks. */
    public enum Kind {
        PING_PONG("ping-pong"),
        BARRIER("barrier"),
        BROADCAST("broadcast"),
        ALL_TO_ALL("alltoall"),
        ALLREDUCE("allreduce"),
        /** Named apart from the open-loop {@code halo3d} pattern (the same grid, Poisson messages), which keeps its name. */
        HALO3D("halo3d-loop"),
        SWEEP3D("sweep3d");

        private final String cliName;

        Kind(String cliName) {
            this.cliName = cliName;
        }

        /** Its name on the command lines ({@code --job pattern=}). */
        public String cliName() {
            return cliName;
        }

        /** The kind named {@code name} on the command lines, or null if none is. */
        public static Kind byCliName(String name) {
            for (Kind k : values()) {
                if (k.cliName.equals(name)) {
                    return k;
                }
            }
            return null;
        }
    }

    /** What the loop asks its driver to do, called back from {@link #start} and {@link #received}. */
    public interface Actions {
        /** Rank {@code from} sends a whole message (the job's packets per message) to rank {@code to} at {@code now}. */
        void send(int from, int to, long now);

        /** An iteration that started at {@code start} ended at {@code end}. */
        void iteration(long start, long end);
    }

    /**
     * A closed-loop message's flow in a source queue ({@link SourceQueue#addMessage}): this minus
     * its destination, below -1 (which is the pattern's: it picks the destination).
     */
    private static final int DESTINATION_FLOW = -2;

    /**
     * Sweep3D's blocks per sweep (ember's nz / kba, 50 by its defaults): a sweep's pipeline. Kept
     * short so that an iteration of 16 ranks takes tens of microseconds, not milliseconds; its
     * {@code message=} is a block's face.
     */
    public static final int SWEEP3D_BLOCKS = 2;

    private final Kind kind;
    private final int ranks;
    private final int messagePackets;
    /**
     * Messages a rank waits for apart: a barrier's rounds or an all-to-all's steps (one sender each),
     * halo3d's and sweep3d's neighbours (6 and 4 slots), else 1 (its one sender: the peer, the parent).
     */
    private final int senders;
    /** Barrier, all-to-all, allreduce, halo3d and sweep3d: the steps (rounds, phases, blocks) of an iteration; else 0. */
    private final int steps;
    /** Halo3d and sweep3d: per rank and slot, the neighbour (a rank) or -1; else null. */
    private final int[] peers;
    /**
     * Halo3d and sweep3d: per rank and pattern step (a halo3d phase, a sweep), the slots of
     * {@link #peers} it waits for, sends to on entering the step and sends to on finishing it, as
     * bit sets; a step is {@link #blocks} of them.
     */
    private final int[] waitSlots;
    private final int[] sendFirst;
    private final int[] sendAfter;
    /** Halo3d and sweep3d: steps per pattern step (sweep3d's blocks; 1). */
    private final int blocks;
    /** Halo3d and sweep3d: per rank and slot, the messages from it taken by a step so far. */
    private final long[] consumed;
    /** Per rank and sender ({@link #senderIndex}), the packets of the message in delivery received so far. */
    private final int[] packets;
    /** Barrier, all-to-all and allreduce: per rank and sender, the messages received from it over the run. */
    private final long[] roundMessages;
    /** Barrier, all-to-all and allreduce: per rank, its iteration and its round (step) in it. */
    private final long[] iterationOf;
    private final int[] roundOf;
    /**
     * Barrier, all-to-all and allreduce: per parity of the iteration, the ranks that have finished
     * it (no rank is two iterations ahead of another); halo3d and sweep3d: per iteration mod n + 1,
     * (a rank waits only for its neighbours, so one d hops away may be d iterations behind, d < n);
     * broadcast: [0], the ranks that have the message.
     */
    private final int[] left;
    private long iterationStart;

    /**
     * The loop of {@code kind} over {@code ranks} ranks, messages of {@code messagePackets} packets.
     *
     * @throws IllegalArgumentException fewer than two ranks, ping-pong of other than two, a message of no packet
     */
    public ClosedLoop(Kind kind, int ranks, int messagePackets) {
        if (ranks < 2) {
            throw new IllegalArgumentException(kind.cliName() + " needs at least two ranks, not " + ranks);
        }
        if (kind == Kind.PING_PONG && ranks != 2) {
            throw new IllegalArgumentException("ping-pong runs between two ranks, not " + ranks);
        }
        if (messagePackets < 1) {
            throw new IllegalArgumentException("a message has at least one packet, not " + messagePackets);
        }
        this.kind = kind;
        this.ranks = ranks;
        this.messagePackets = messagePackets;
        senders = switch (kind) {
            case BARRIER -> log2Ceil(ranks);
            case ALL_TO_ALL -> ranks - 1;
            case HALO3D -> 6;
            case SWEEP3D -> 4;
            default -> 1;
        };
        packets = new int[ranks * senders];
        boolean neighbours = kind == Kind.HALO3D || kind == Kind.SWEEP3D;
        int patternSteps = kind == Kind.SWEEP3D ? 4 : kind == Kind.HALO3D ? halo3dPhases(ranks) : 0;
        blocks = kind == Kind.SWEEP3D ? SWEEP3D_BLOCKS : 1;
        steps = switch (kind) {
            case BARRIER, ALL_TO_ALL -> senders;
            case ALLREDUCE -> 2 * (ranks - 1);
            case HALO3D, SWEEP3D -> patternSteps * blocks;
            default -> 0;
        };
        boolean rounds = steps > 0;
        roundMessages = rounds ? new long[ranks * senders] : null;
        iterationOf = rounds ? new long[ranks] : null;
        roundOf = rounds ? new int[ranks] : null;
        left = new int[neighbours ? ranks + 1 : 2];
        peers = neighbours ? new int[ranks * senders] : null;
        waitSlots = neighbours ? new int[ranks * patternSteps] : null;
        sendFirst = neighbours ? new int[ranks * patternSteps] : null;
        sendAfter = neighbours ? new int[ranks * patternSteps] : null;
        consumed = neighbours ? new long[ranks * senders] : null;
        if (kind == Kind.HALO3D) {
            halo3d();
        } else if (kind == Kind.SWEEP3D) {
            sweep3d();
        }
    }

    /** Halo3d's phases: the sides of its grid longer than 1. */
    private static int halo3dPhases(int ranks) {
        int phases = 0;
        for (int side : TrafficPlan.grid3d(ranks)) {
            phases += side > 1 ? 1 : 0;
        }
        return phases;
    }

    /** Halo3d's slots: a rank's neighbours along x, y, z in turn; phase p sends to and waits for those along the p-th side longer than 1. */
    private void halo3d() {
        int[][][] grid = TrafficPlan.halo3dByDimension(ranks);
        int phases = steps;
        Arrays.fill(peers, -1);
        for (int r = 0; r < ranks; r++) {
            int slot = 0;
            int phase = 0;
            for (int[] along : grid[r]) {
                if (along.length == 0) {
                    continue;
                }
                int bits = 0;
                for (int peer : along) {
                    peers[r * senders + slot] = peer;
                    bits |= 1 << slot++;
                }
                waitSlots[r * phases + phase] = bits;
                sendFirst[r * phases + phase] = bits;
                phase++;
            }
        }
    }

    /**
     * Sweep3d's slots: a rank's neighbours x - 1, x + 1, y - 1, y + 1 (or -1 at the grid's edge);
     * sweep k waits for those on the side of its corner and then sends to those on the other.
     */
    private void sweep3d() {
        int[] side = grid2d(ranks);
        int px = side[0];
        for (int r = 0; r < ranks; r++) {
            int x = r % px;
            int y = r / px;
            int base = r * senders;
            peers[base] = x > 0 ? r - 1 : -1;
            peers[base + 1] = x < px - 1 ? r + 1 : -1;
            peers[base + 2] = y > 0 ? r - px : -1;
            peers[base + 3] = y < side[1] - 1 ? r + px : -1;
            for (int sweep = 0; sweep < 4; sweep++) {
                // ember's corners in turn: (0, 0), (px, 0), (px, py), (0, py); x rises in sweeps 0 and 3, y in 0 and 1
                int fromX = sweep == 0 || sweep == 3 ? 0 : 1;
                int fromY = sweep < 2 ? 2 : 3;
                int wait = 0;
                int after = 0;
                for (int slot : new int[] {fromX, fromY}) {
                    if (peers[base + slot] >= 0) {
                        wait |= 1 << slot;
                    }
                    if (peers[base + (slot ^ 1)] >= 0) {
                        after |= 1 << (slot ^ 1);
                    }
                }
                waitSlots[r * 4 + sweep] = wait;
                sendAfter[r * 4 + sweep] = after;
            }
        }
    }

    /** Sweep3d's grid of {@code n} ranks: px <= py, px * py = n, the most square; rank r at (r mod px, r / px), as ember places them. */
    public static int[] grid2d(int n) {
        int px = 1;
        for (int x = 1; (long) x * x <= n; x++) {
            if (n % x == 0) {
                px = x;
            }
        }
        return new int[] {px, n / px};
    }

    public Kind kind() {
        return kind;
    }

    public int ranks() {
        return ranks;
    }

    public int messagePackets() {
        return messagePackets;
    }

    /**
     * The most whole messages one rank of a {@code kind} loop over {@code ranks} ranks may have
     * queued at once, for a driver to check its source queue holds them before it starts: ping-pong
     * 1; a broadcast's rank 0 queues one to each of its ceil(log2 n) children at once (at the start
     * of an iteration, when its queue is empty: the last iteration ended with every message
     * delivered); a barrier rank sends one per round it gets through, and a message of the next
     * barrier may come before it has left this one, so at most two barriers' rounds, 2 ceil(log2 n);
     * an all-to-all rank so two all-to-alls' steps, 2 (n - 1); an allreduce rank's predecessor is at
     * most n - 1 steps ahead of it (its own steps wait, round the ring, on the rank's), so n. A
     * halo3d rank of P phases sends up to 2 a phase (1 where the side is 2), and its messages of a
     * phase have all left before it finishes the phase along the same side of the next iteration
     * (the neighbours they went to wait for them before they send that phase's), so P + 1 phases'
     * at once, at most 8. A sweep3d rank's messages of a sweep have left before it sends in the
     * sweep after next (both of its directions have turned: the neighbours it sent to wait for them
     * first), so two sweeps' at once: 2 blocks x its directions (2, or 1 on a grid of one row).
     */
    public static int messagesQueuedAtOnce(Kind kind, int ranks) {
        int rounds = log2Ceil(ranks);
        return switch (kind) {
            case PING_PONG -> 1;
            case BROADCAST -> rounds;
            case BARRIER -> 2 * rounds;
            case ALL_TO_ALL -> 2 * (ranks - 1);
            case ALLREDUCE -> ranks;
            case HALO3D -> {
                int perPhase = 0;
                for (int side : TrafficPlan.grid3d(ranks)) {
                    perPhase = Math.max(perPhase, Math.min(2, side - 1));
                }
                yield (halo3dPhases(ranks) + 1) * perPhase;
            }
            case SWEEP3D -> 2 * SWEEP3D_BLOCKS * (grid2d(ranks)[0] > 1 ? 2 : 1);
        };
    }

    /** The source-queue flow of a closed-loop message to host (or rank) {@code destination}. */
    public static int destinationFlow(int destination) {
        return DESTINATION_FLOW - destination;
    }

    /** The destination a source-queue flow names ({@link #destinationFlow}), or -1 if it names none. */
    public static int destinationOf(int flow) {
        return flow <= DESTINATION_FLOW ? DESTINATION_FLOW - flow : -1;
    }

    /**
     * Starts the first iteration at {@code now}: ping-pong's rank 0 sends, broadcast's rank 0 sends
     * to its children, every barrier rank sends its first round (in rank order), every halo3d rank
     * its first phase's, every sweep3d rank what it needs no message for (the first sweep's corner
     * its blocks).
     */
    public void start(long now, Actions out) {
        iterationStart = now;
        switch (kind) {
            case PING_PONG -> out.send(0, 1, now);
            case BROADCAST -> sendToChildren(0, now, out);
            case BARRIER, ALL_TO_ALL, ALLREDUCE -> {
                for (int r = 0; r < ranks; r++) {
                    out.send(r, roundPeer(r), now);
                }
            }
            case HALO3D, SWEEP3D -> {
                for (int r = 0; r < ranks; r++) {
                    sendSlots(r, sendFirst[r * (steps / blocks)], now, out);
                    neighbourSteps(r, now, out);
                }
            }
        }
    }

    /**
     * A packet from rank {@code from} was received by rank {@code to}: true if it completes a
     * message (then call {@link #received}). A message's packets are counted per receiver and
     * sender, {@link #messagePackets} to a message (ping-pong and broadcast: one sender per
     * receiver, whoever sent it; a barrier rank: each round's sender apart, a packet from a rank
     * that is none of them ignored).
     */
    public boolean packetReceived(int from, int to) {
        int s = senderIndex(from, to);
        if (s < 0) {
            return false;
        }
        int slot = to * senders + s;
        if (++packets[slot] < messagePackets) {
            return false;
        }
        packets[slot] = 0;
        return true;
    }

    /**
     * Rank {@code to} has received the whole of a message from rank {@code from} at {@code now}:
     * the sends and the iteration it leads to, asked of {@code out} in the order they happen.
     */
    public void received(int from, int to, long now, Actions out) {
        switch (kind) {
            case PING_PONG -> {
                if (to == 0) {
                    iterationEnded(now, out);
                }
                out.send(to, 1 - to, now);
            }
            case BROADCAST -> {
                sendToChildren(to, now, out);
                if (++left[0] == ranks - 1) {
                    left[0] = 0;
                    iterationEnded(now, out);
                    sendToChildren(0, now, out);
                }
            }
            case BARRIER, ALL_TO_ALL, ALLREDUCE -> stepReceived(from, to, now, out);
            case HALO3D, SWEEP3D -> {
                int s = senderIndex(from, to);
                if (s >= 0) {
                    roundMessages[to * senders + s]++;
                    neighbourSteps(to, now, out);
                }
            }
        }
    }

    /**
     * Halo3d or sweep3d rank {@code r} goes through every step whose messages it now has (one from
     * each slot the step waits for, beyond those earlier steps took): it sends what the step sends
     * when finished, then what the next sends when entered; after its last step it has finished the
     * iteration, and when every rank has, an iteration ends.
     */
    private void neighbourSteps(int r, long now, Actions out) {
        int base = r * senders;
        int patternSteps = steps / blocks;
        while (true) {
            int at = r * patternSteps + roundOf[r] / blocks;
            int wait = waitSlots[at];
            for (int bits = wait; bits != 0; bits &= bits - 1) {
                int slot = Integer.numberOfTrailingZeros(bits);
                if (roundMessages[base + slot] <= consumed[base + slot]) {
                    return;
                }
            }
            for (int bits = wait; bits != 0; bits &= bits - 1) {
                consumed[base + Integer.numberOfTrailingZeros(bits)]++;
            }
            sendSlots(r, sendAfter[at], now, out);
            if (++roundOf[r] == steps) {
                finishedIteration(r, now, out);
            }
            if (roundOf[r] % blocks == 0) {
                sendSlots(r, sendFirst[r * patternSteps + roundOf[r] / blocks], now, out);
            }
        }
    }

    /** Rank {@code r} sends a message to each neighbour of the slots {@code bits}, lowest slot first. */
    private void sendSlots(int r, int bits, long now, Actions out) {
        for (; bits != 0; bits &= bits - 1) {
            out.send(r, peers[r * senders + Integer.numberOfTrailingZeros(bits)], now);
        }
    }

    /**
     * Barrier, all-to-all or allreduce rank {@code to} has a message from {@code from}: it goes
     * through every round (step) it now has the message of, sending each next round's message, and
     * finishes the iteration after the last round; when every rank has, an iteration ends.
     */
    private void stepReceived(int from, int to, long now, Actions out) {
        int s = senderIndex(from, to);
        if (s < 0) {
            return;
        }
        int base = to * senders;
        roundMessages[base + s]++;
        // the messages the current round needs from its sender: one an iteration from each round's own
        // sender, or the ring's one sender's every step so far
        while (kind == Kind.ALLREDUCE ? roundMessages[base] > iterationOf[to] * steps + roundOf[to]
                : roundMessages[base + roundOf[to]] > iterationOf[to]) {
            if (++roundOf[to] == steps) {
                finishedIteration(to, now, out);
            }
            out.send(to, roundPeer(to), now);
        }
    }

    /**
     * Rank {@code r} has finished its iteration's last step: it starts its next at step 0, and when
     * every rank has finished this one, an iteration ends.
     */
    private void finishedIteration(int r, long now, Actions out) {
        roundOf[r] = 0;
        int slot = (int) (iterationOf[r] % left.length);
        if (++left[slot] == ranks) {
            left[slot] = 0;
            iterationEnded(now, out);
        }
        iterationOf[r]++;
    }

    /** ceil(log2 n): a barrier's rounds, a binomial broadcast's root's children (1 for n = 2). */
    private static int log2Ceil(int n) {
        return 32 - Integer.numberOfLeadingZeros(Math.max(1, n - 1));
    }

    private void iterationEnded(long now, Actions out) {
        out.iteration(iterationStart, now);
        iterationStart = now;
    }

    /**
     * Of rank {@code to}'s senders, the index of {@code from}: 0 for ping-pong and broadcast (one
     * sender each); a barrier's round whose sender it is (from = to - 2^k), an all-to-all's step
     * (from = to - (k + 1)), 0 for an allreduce's one sender (from = to - 1), a halo3d or sweep3d
     * neighbour's slot; or -1 if none.
     */
    private int senderIndex(int from, int to) {
        int d = Math.floorMod(to - from, ranks);
        return switch (kind) {
            case BARRIER -> d != 0 && Integer.bitCount(d) == 1 && Integer.numberOfTrailingZeros(d) < senders
                    ? Integer.numberOfTrailingZeros(d) : -1;
            case ALL_TO_ALL -> d - 1;
            case ALLREDUCE -> d == 1 ? 0 : -1;
            case HALO3D, SWEEP3D -> {
                for (int s = 0; s < senders; s++) {
                    if (peers[to * senders + s] == from) {
                        yield s;
                    }
                }
                yield -1;
            }
            default -> 0;
        };
    }

    /** Rank {@code r}'s destination in its current round: a barrier's r + 2^round (mod n), an all-to-all's r + round + 1, an allreduce's r + 1. */
    private int roundPeer(int r) {
        return Math.floorMod(r + switch (kind) {
            case BARRIER -> 1 << roundOf[r];
            case ALL_TO_ALL -> roundOf[r] + 1;
            default -> 1;
        }, ranks);
    }

    /** Broadcast: {@code rank} sends the message to its children in the binomial tree, nearest bit first. */
    private void sendToChildren(int rank, long now, Actions out) {
        for (int step = rank == 0 ? 1 : Integer.highestOneBit(rank) << 1; rank + step < ranks; step <<= 1) {
            out.send(rank, rank + step, now);
        }
    }
}
