package org.fabriclab.agent.core;

import java.util.Arrays;
import org.fabriclab.agent.mgmt.ManagedNode;

/**
 * Port counters of one node in one flat {@code long[]}, indexed {@code port * COUNTERS + counter},
 * as the data plane increments them and as metrics read them at scrape time (no meter call per
 * packet). Writes come from the one thread that owns the node's data plane, resets included
 * ({@code ManagedNode.resetCounters} runs them there: a reset from another thread would race the
 * read-increment-write of {@link #add}); reads from anywhere may lag by a packet or two, which
 * monitoring tolerates.
 *
 * <p>Beside the counters, a matrix of the bytes each output port sent by the input port they came
 * in on: what each input got of an output, unless made without it ({@link #PortCounterArray(int, boolean)}:
 * a simulation that reports no port shares saves a cache miss per packet). (Queue depths are the core's own state, read through
 * {@link ManagedNode#gauges}, not kept twice.)
 *
 * <p>Discards are counted twice at no cost on the hot path (a discard is never on it): in the
 * total {@link #XMIT_DISCARDS} the simulator's reports read, and by {@link DiscardReason}, as IBA
 * splits PortXmitDiscards from the errors behind them. Beside them, per port, {@link #rcvErrors}:
 * frames received with an error and dropped (IBA's PortRcvErrors), which the live plane counts
 * where a peer's frame is malformed or refused; never on the hot path either. Node-level counters (not of a port) are the
 * adaptive decisions of a switch, minimal or not ({@link #ADAPTIVE_MINIMAL}, {@link #ADAPTIVE_NONMINIMAL}: an AR
 * group's, or a Dragonfly algorithm's at a decision point), and Q-adaptive's learning ({@link #Q_UPDATES},
 * {@link #Q_EXPLORATIONS}, {@link #Q_CHANGE_PS}); on a channel adapter, its NIC's counters as Aries offers
 * them ({@link NicCounters}).
 */
public final class PortCounterArray {
    public static final int XMIT_DATA = 0;
    public static final int RCV_DATA = 1;
    public static final int XMIT_PKTS = 2;
    public static final int RCV_PKTS = 3;
    public static final int XMIT_WAIT_NS = 4;
    public static final int XMIT_DISCARDS = 5;
    public static final int COUNTERS = 6;

    /** Node counter: packets an AR group routed by a minimal port. */
    public static final int ADAPTIVE_MINIMAL = 0;
    /** Node counter: packets an AR group routed by a detour port (non-minimal). */
    public static final int ADAPTIVE_NONMINIMAL = 1;
    /** Node counter: Q-adaptive updates of this switch's Q-table (one per feedback message from a downstream router). */
    public static final int Q_UPDATES = 2;
    /** Node counter: Q-adaptive decisions that took a random port (epsilon-greedy exploration). */
    public static final int Q_EXPLORATIONS = 3;
    /** Node counter: how far the Q-table's values moved, every update's absolute change summed, in picoseconds. */
    public static final int Q_CHANGE_PS = 4;
    /** Node counter (a channel adapter's NIC): request flits sent ({@link NicCounters#flits}). */
    public static final int NIC_REQUEST_FLITS = 5;
    /**
     * Node counter (a NIC): its own data packets whose latency was sampled (every one), each when
     * its response came back ({@link HostCore#responseReturns}): Aries' Request Packets.
     */
    public static final int NIC_LATENCY_PACKETS = 6;
    /**
     * Node counter (a NIC): the sampled packets' round trips summed, ns from the packet's NIC send
     * (its source and send queues left out) to its response's return (Aries' Request Packets
     * Cumulative Latency; {@link NicCounters}).
     */
    public static final int NIC_LATENCY_NS = 7;
    /** Node counter (a NIC): the sampled packets' hops summed, links between switches (the simulator's {@code meanHops}). */
    public static final int NIC_RECEIVED_HOPS = 8;
    /** Node counter (a NIC with congestion control): CNPs received (DCQCN's rate cuts asked for). */
    public static final int NIC_CNPS_RECEIVED = 9;
    /** Node counter (a NIC with congestion control): ACKs received (Swift's and RL-CC's RTT samples). */
    public static final int NIC_ACKS_RECEIVED = 10;
    /** Node counter (a NIC with congestion control): control packets (ACKs, CNPs) it made and sent back. */
    public static final int NIC_CONTROL_SENT = 11;
    /** Node counter (a NIC with congestion control): control packets it could not queue (its control queue full). */
    public static final int NIC_CONTROL_DROPPED = 12;
    /** Node counter (a switch marking ECN): packets it marked congestion-experienced. */
    public static final int ECN_MARKED = 13;
    /** Node counter (a NIC of a job's host): its job's messages received whole here (a live job's; {@code emulator up --job}). */
    public static final int JOB_MESSAGES = 14;
    /** Node counter (a NIC of a job's host): those messages' completion times summed, ns from creation to the last packet's arrival. */
    public static final int JOB_MESSAGE_NS = 15;
    /** Node counter (a NIC of a job's host): its job's data packets received here. */
    public static final int JOB_PACKETS = 16;
    /** Node counter (a NIC of a job's host): of those, the packets a Dragonfly's routing sent through an intermediate group. */
    public static final int JOB_NONMINIMAL_PACKETS = 17;
    /** Node counter (the NIC of a closed-loop job's rank 0): the job's iterations ended ({@code ClosedLoop}; a live job's). */
    public static final int JOB_ITERATIONS = 18;
    /** Node counter (the NIC of a closed-loop job's rank 0): those iterations' times summed, model ns. */
    public static final int JOB_ITERATION_NS = 19;
    /**
     * Node counter (the NIC of a closed-loop job's host): messages its loop sent that the source
     * queue refused (full), each queued later, in order, when it had room (a live job's).
     */
    public static final int JOB_REFUSED_MESSAGES = 20;
    /**
     * Node counters (a NIC of a job's host), one per routing mode, this plus the mode's header code
     * ({@code RoutingMode.code()}, 0 to {@link #ROUTING_MODES} - 1): its job's data packets received
     * here that asked for the mode (a live job's).
     */
    public static final int JOB_MODE_PACKETS = 21;
    /** Routing modes counted apart ({@link #JOB_MODE_PACKETS}): every code {@code RoutingMode} names. */
    public static final int ROUTING_MODES = 8;
    public static final int NODE_COUNTERS = JOB_MODE_PACKETS + ROUTING_MODES;

    /** Why a packet was discarded (IBA counts them apart: PortXmitDiscards, VL15Dropped, buffer overruns, link errors). */
    public enum DiscardReason {
        /** No output for the destination: no LFT entry, or a port beyond the switch's. */
        NO_ROUTE,
        /** The packet's lane, or the lane the SL-to-VL map gives it, is one the node does not have. */
        NO_LANE,
        /** Routed to (or arriving on) a port whose link is down. */
        PORT_DOWN,
        /**
         * No input buffer space for it: a sender that ignored credits (the core's buffer check). A live
         * node with no packet slot left for a DATA frame counts it as the port's {@link #rcvError} instead.
         */
        OVERFLOW,
        /** Lost with its link: in the dead link's buffers or on the wire when it failed. */
        LINK_LOST;

        private static final DiscardReason[] ALL = values();

        /** Every reason, in ordinal order (a shared array: do not write to it). */
        public static DiscardReason[] all() {
            return ALL;
        }
    }

    private static final int REASONS = DiscardReason.ALL.length;

    private final long[] values;
    /** Per output, per input: bytes; null if not kept. */
    private final long[] inputBytes;
    /** Per port, per {@link DiscardReason}: packets. */
    private final long[] discards;
    /** Per port: frames received with an error (PortRcvErrors). */
    private final long[] rcvErrors;
    private final long[] node = new long[NODE_COUNTERS];
    private final int ports;

    /** Counters of {@code ports} ports and the bytes each output sent by input port. */
    public PortCounterArray(int ports) {
        this(ports, true);
    }

    /** Counters of {@code ports} ports, and the bytes each output sent by input port if {@code perInputBytes}. */
    public PortCounterArray(int ports, boolean perInputBytes) {
        this.ports = ports;
        values = new long[(ports + 1) * COUNTERS];
        discards = new long[(ports + 1) * REASONS];
        rcvErrors = new long[ports + 1];
        inputBytes = perInputBytes ? new long[(ports + 1) * (ports + 1)] : null;
    }

    public int ports() {
        return ports;
    }

    public void add(int port, int counter, long delta) {
        values[port * COUNTERS + counter] += delta;
    }

    public long get(int port, int counter) {
        return values[port * COUNTERS + counter];
    }

    /** A packet was discarded at {@code port} for {@code reason}: counted in {@link #XMIT_DISCARDS} and by reason. */
    public void discard(int port, DiscardReason reason) {
        values[port * COUNTERS + XMIT_DISCARDS]++;
        discards[port * REASONS + reason.ordinal()]++;
    }

    /** Packets discarded at {@code port} for {@code reason}. */
    public long discards(int port, DiscardReason reason) {
        return discards[port * REASONS + reason.ordinal()];
    }

    /**
     * A frame received on {@code port} had an error and was dropped: IBA's PortRcvErrors, "packets
     * containing an error" received on the port, link packets included (malformed data and link
     * packets: a wrong length, lane or operand) and packets discarded for a buffer overrun. In the
     * live plane: a frame shorter than its type's fields, a CREDIT frame refused (a lane or port the
     * node has not, or a count past the peer's buffer), a frame of a type the link does not know, or
     * a DATA frame for which the node had no packet slot left (a buffer overrun, on the port it
     * arrived at).
     */
    public void rcvError(int port) {
        rcvErrors[port]++;
    }

    /** Frames received on {@code port} with an error, and dropped ({@link #rcvError}). */
    public long rcvErrors(int port) {
        return rcvErrors[port];
    }

    /** Adds one to node counter {@code counter} ({@link #ADAPTIVE_MINIMAL}, {@link #ADAPTIVE_NONMINIMAL}). */
    public void addNode(int counter) {
        node[counter]++;
    }

    /** Adds {@code delta} to node counter {@code counter} ({@link #Q_CHANGE_PS}). */
    public void addNode(int counter, long delta) {
        node[counter] += delta;
    }

    public long getNode(int counter) {
        return node[counter];
    }

    /** Output {@code out} sent {@code bytes} that arrived on input {@code in}. */
    public void addInput(int out, int in, long bytes) {
        if (inputBytes != null) {
            inputBytes[out * (ports + 1) + in] += bytes;
        }
    }

    /** Bytes output {@code out} has sent that arrived on input {@code in} (0 if they are not kept). */
    public long inputBytes(int out, int in) {
        return inputBytes == null ? 0 : inputBytes[out * (ports + 1) + in];
    }

    /** Clears one port's counters, or every port's and the node's when {@code port} is 0. */
    public void reset(int port) {
        if (port == 0) {
            Arrays.fill(node, 0);
        }
        for (int p = port == 0 ? 0 : port; p <= (port == 0 ? ports : port); p++) {
            for (int c = 0; c < COUNTERS; c++) {
                values[p * COUNTERS + c] = 0;
            }
            Arrays.fill(discards, p * REASONS, (p + 1) * REASONS, 0);
            rcvErrors[p] = 0;
            if (inputBytes != null) {
                Arrays.fill(inputBytes, p * (ports + 1), (p + 1) * (ports + 1), 0);
            }
        }
    }
}
