package org.fabriclab.agent.core;

import java.util.Arrays;
import java.util.Objects;
import java.util.SplittableRandom;
import org.fabriclab.agent.core.PortCounterArray.DiscardReason;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.DragonflyHeader;
import org.fabriclab.routing.dragonfly.DragonflyLids;
import org.fabriclab.routing.dragonfly.DragonflyParams;
import org.fabriclab.routing.dragonfly.DragonflyRules;
import org.fabriclab.routing.dragonfly.DragonflySwitch;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.torus.SourceRoute;

/**
 * The decisions of one switch, written once for both clocks: the live agent drives it from a Netty
 * event loop, the simulator from its event queue. It has no Netty, no threads and no clock of its
 * own: events come in with the driver's time, actions go out through {@link Output}.
 *
 * <p>Model: an input-queued, lossless, credit-based switch with virtual lanes (as InfiniBand).
 * <ul>
 *   <li>every input port has a FIFO buffer per VL of {@code bufferPackets} packets of the run's largest
 *       size, counted in 64-byte blocks ({@link CreditBlocks}), and the upstream sender holds one credit
 *       per free block: a packet is only ever sent into free space, and a header-only ACK or CNP takes
 *       one block of it, not a whole packet's slot;
 *   <li>the head packet of each input buffer is routed when it reaches the head: LFT lookup on its
 *       destination LID, output VL from the SL-to-VL map; an unroutable packet is discarded and
 *       counted on its input port by reason ({@link PortCounterArray#discard}), and its credit returned;
 *   <li>each output port has an arbiter that, when the link is free, grants round-robin over
 *       (input port, VL) pairs whose head wants this output and has a credit on the output VL.
 *       Round-robin over inputs is what makes the parking-lot effect real: a local input gets as
 *       many grants as an input carrying many upstream flows. Least recently used over the whole
 *       switch instead, as SST/Merlin's crossbar, by {@link #arbitration(CrossbarArbitration)};
 *   <li>granting sends the packet ({@link Output#transmit}) and returns its credit upstream
 *       ({@link Output#returnCredit}); the link is busy until the driver reports {@link #linkFree}.
 * </ul>
 * Nothing here allocates per packet: queues are int rings sized at construction, packets are
 * {@link PacketPool} handles. Hot-path invariants are {@code assert}s.
 *
 * <p>Thread confinement: one core is driven by one thread at a time (the switch's event loop, or
 * the simulator); it is not thread-safe and needs no locks.
 */
public final class SwitchCore {
    /** Actions of the core, carried out by the driver. */
    public interface Output {
        /** Send packet {@code h} on {@code port}, lane {@code vl}; the driver owns the handle from now on. */
        void transmit(int port, int vl, int h, long now);

        /** {@code blocks} blocks of lane {@code vl}'s buffer on input {@code port} were freed (a packet left it): return their credits to the sender. */
        void returnCredit(int port, int vl, int blocks, long now);

        /** Packet {@code h} cannot be forwarded and was discarded; the driver releases what it attached. */
        void discarded(int h, int inPort, long now);

        /**
         * Q-adaptive's feedback to the router upstream of {@code port}: for Q-table row {@code row}, the
         * time the packet took from its arrival there to its arrival here plus this router's estimate
         * of the rest ({@code value}, ns). Sent right after the credit of the same packet, on the same
         * link; the driver delivers it to the upstream core's {@link SwitchCore#qFeedback}.
         */
        void qFeedback(int port, int row, float value, long now);
    }

    private static final int NO_TARGET = -1;

    private final int ports;
    private final int vls;
    /** The credit unit: blocks per buffer slot and per packet. */
    private final CreditBlocks blocks;
    /** An input buffer's blocks (per port and lane): {@code bufferPackets} slots. */
    private final int capBlocks;
    /** Packets an input buffer's blocks can hold at most: its ring's bound. */
    private final int mostQueued;
    /** Slots per input ring (grown, up to {@link #mostQueued}, when small packets fill one before its blocks). */
    private int depth;
    /** 2^32 / {@code vls}, rounded up ({@link #inPortOf}). */
    private final long vlsReciprocal;
    private final TableStore tables;
    private final PortCounterArray counters;
    private final PacketPool pool;
    private final Output out;
    // input buffers, index q = (inPort - 1) * vls + vl: ring of handles, and the blocks they take
    private int[] ring;
    private final int[] head;
    private final int[] count;
    private final int[] used;
    private final int[] target;
    private final int[] targetVl;
    // per output port
    private final int[] credits;
    private final boolean[] busy;
    private final boolean[] active;
    private final int[] nextGrant;
    /** Load added to a port without credit on the packet's lane: it is chosen only if every port is blocked. */
    private static final int BLOCKED = 1 << 16;
    /** Per AR group: the index in its port list after the last choice (round-robin among equals). */
    private int[] arNext = new int[16];
    /** Per output port: how many queue heads are routed to it. */
    private final int[] wanting;
    /** Per output port, {@link #requestWords} words: bit q set when queue q's head is routed to it. */
    private final long[] requests;
    private final int requestWords;
    private final long[] waitingSince;
    /** Per buffer slot (as {@link #ring}), when its packet arrived: Q-adaptive's reward starts there. */
    private long[] arrivedAt;
    /** Per output port, the peer's buffer per lane in packets (slots), as {@link #portActive} gave it. */
    private final int[] creditCap;
    /** Per output port, the peer's buffer per lane in blocks: its credits when none is in use. */
    private final int[] creditCapBlocks;
    /** The Dragonfly routing whose random generator and Q-table are in use here (adopted from the tables on this thread), or null. */
    private DragonflySwitch dragonfly;
    private SplittableRandom random;
    /** The Q-table being learnt (rows x columns, ns), or null. */
    private float[] qTable;
    /** The VC the last Dragonfly routing decision gave its packet. */
    private int dragonflyVc;
    /** The largest output buffer, per port and lane, a core takes. */
    public static final int MAX_OUTPUT_BUFFER = 4096;
    // output buffers (input-output queued), per (port, lane) o = port * vls + vl: a ring of handles, and the blocks they take
    /** Slots per output ring (0: input-queued; grown, up to {@link #mostOutput}, as {@link #depth}). */
    private int odepth;
    private int[] oring;
    private final int[] ohead;
    private final int[] ocount;
    private final int[] oused;
    /** An output buffer's blocks (per port and lane) and the packets they can hold at most. */
    private final int ocapBlocks;
    private final int mostOutput;
    /** Per output port, packets in its output buffers, every lane. */
    private final int[] ototal;
    /** Per output port, blocks in its output buffers, every lane. */
    private final int[] oblocks;
    /** Per output port, the lane the link serves first next (round-robin over lanes). */
    private final int[] nextVl;
    /** Outputs to serve before the current event ends (input-output queued: no recursion however far a move leads). */
    private final boolean[] scheduled;
    private final int[] scheduledList;
    private int scheduledCount;
    /**
     * Input-output queued, per output port: a head routed to it may have room in its lane's buffer
     * since {@link #fill} last found none (a head routed to it since, a packet sent from its
     * buffers, the link come up or gone down). While false, a fill would scan every head waiting
     * for the port and move none: under saturation most of the fills a credit or a link's end asks for.
     */
    private final boolean[] fillDue;
    private boolean serving;
    /** ECN marking of ECN-capable packets by their output's queue (null: off, the default). */
    private EcnMarking ecn;
    private SplittableRandom ecnRandom;
    /** With ECN marking, per output port: bytes in its output buffers. */
    private long[] obytes;
    /**
     * With ECN marking in an input-queued core, per input buffer (as {@link #head}): the bytes of
     * its packets, so that an output's queue is read in bytes, each packet its own size (an ACK or
     * CNP among data packets counts its header, not a data packet's bytes); null otherwise, and
     * then never touched (a run without marking pays nothing for it).
     */
    private long[] qbytes;
    /** With {@link #qbytes}: the largest packet an input buffer has taken, bytes (the no-scan bound of {@link #mark}). */
    private int largestBytes;
    /** Which waiting input buffer an output takes next ({@link #arbitration(CrossbarArbitration)}). */
    private CrossbarArbitration arbitration = CrossbarArbitration.ROUND_ROBIN;
    /** Per input buffer (as {@link #head}), the value of {@link #served} when an output last took its head: LRU's order. */
    private final long[] lastServed;
    /** Heads taken by any output so far (moved to an output buffer, or granted a link). */
    private long served;

    /** An input-queued switch core (no output buffers), packet-counted credits ({@link CreditBlocks#PACKETS}). */
    public SwitchCore(int ports, int vls, int bufferPackets, TableStore tables, PortCounterArray counters,
                      PacketPool pool, Output out) {
        this(ports, vls, bufferPackets, 0, tables, counters, pool, out);
    }

    /** As {@link #SwitchCore(int, int, int, int, CreditBlocks, TableStore, PortCounterArray, PacketPool, Output)}, packet-counted. */
    public SwitchCore(int ports, int vls, int bufferPackets, int outputBufferPackets, TableStore tables, PortCounterArray counters,
                      PacketPool pool, Output out) {
        this(ports, vls, bufferPackets, outputBufferPackets, CreditBlocks.PACKETS, tables, counters, pool, out);
    }

    /**
     * A switch core with {@code outputBufferPackets} packets of output buffer per port and lane (0:
     * input-queued only, the InfiniBand-like default; more: input-output queued, as SST/Merlin's
     * router); both in slots of the run's largest packet, credits counted in {@code blocks}.
     */
    public SwitchCore(int ports, int vls, int bufferPackets, int outputBufferPackets, CreditBlocks blocks, TableStore tables,
                      PortCounterArray counters, PacketPool pool, Output out) {
        if (vls < 1 || vls > 15 || ports < 1 || ports > 254 || bufferPackets < 1 || outputBufferPackets < 0
                || outputBufferPackets > MAX_OUTPUT_BUFFER) {
            throw new IllegalArgumentException("a switch core needs 1 to 254 ports (it has " + ports + "), 1 to 15 data lanes ("
                    + vls + "), a buffer of at least one packet (" + bufferPackets + ") and an output buffer of 0 to "
                    + MAX_OUTPUT_BUFFER + " packets (" + outputBufferPackets + ")");
        }
        this.blocks = Objects.requireNonNull(blocks, "blocks");
        this.odepth = outputBufferPackets;
        int outputs = (ports + 1) * vls;
        oring = new int[outputs * outputBufferPackets];
        ohead = new int[outputBufferPackets > 0 ? outputs : 0];
        ocount = new int[ohead.length];
        oused = new int[ohead.length];
        ocapBlocks = blocks.capacity(outputBufferPackets);
        mostOutput = blocks.mostPackets(outputBufferPackets);
        ototal = new int[ports + 1];
        oblocks = new int[ports + 1];
        nextVl = new int[ports + 1];
        scheduled = new boolean[ports + 1];
        scheduledList = new int[ports + 1];
        fillDue = new boolean[ports + 1];
        this.ports = ports;
        this.vls = vls;
        this.depth = bufferPackets;
        this.capBlocks = blocks.capacity(bufferPackets);
        this.mostQueued = blocks.mostPackets(bufferPackets);
        this.vlsReciprocal = 0xFFFFFFFFL / vls + 1;
        this.tables = tables;
        this.counters = counters;
        this.pool = pool;
        this.out = out;
        int queues = ports * vls;
        ring = new int[queues * bufferPackets];
        head = new int[queues];
        count = new int[queues];
        used = new int[queues];
        target = new int[queues];
        targetVl = new int[queues];
        Arrays.fill(target, NO_TARGET);
        credits = new int[(ports + 1) * vls];
        busy = new boolean[ports + 1];
        active = new boolean[ports + 1];
        nextGrant = new int[ports + 1];
        wanting = new int[ports + 1];
        requestWords = (queues + 63) >>> 6;
        requests = new long[(ports + 1) * requestWords];
        waitingSince = new long[ports + 1];
        Arrays.fill(waitingSince, -1);
        arrivedAt = new long[queues * bufferPackets];
        lastServed = new long[queues];
        creditCap = new int[ports + 1];
        creditCapBlocks = new int[ports + 1];
        // made on the thread that hands the core to its driver: safe to take up the tables' routing here
        adopt(tables.current().dragonfly());
    }

    public int ports() {
        return ports;
    }

    public int vls() {
        return vls;
    }

    /** The buffers, credits and links, for troubleshooting: {@code port: in[vl]=queued->target out[vl]=credits busy}. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        for (int p = 1; p <= ports; p++) {
            sb.append(" p").append(p).append(active[p] ? "" : "(down)").append(':');
            for (int v = 0; v < vls; v++) {
                int q = (p - 1) * vls + v;
                sb.append(" in").append(v).append('=').append(count[q]);
                if (count[q] > 0) {
                    sb.append("->").append(target[q]);
                }
            }
            for (int v = 0; v < vls && odepth > 0; v++) {
                sb.append(" oq").append(v).append('=').append(ocount[p * vls + v]);
            }
            for (int v = 0; v < vls; v++) {
                sb.append(" cr").append(v).append('=').append(credits[p * vls + v]);
            }
            if (busy[p]) {
                sb.append(" busy");
            }
        }
        return sb.toString();
    }

    /** Packets buffered on input {@code port}, lane {@code vl}. */
    public int queued(int port, int vl) {
        return count[(port - 1) * vls + vl];
    }

    /**
     * Packets in input {@code port}'s buffers, every lane: the queue depth of an input-queued
     * switch. Management reads it from another thread; the value may lag by a packet.
     */
    public int queuedPackets(int port) {
        int n = 0;
        for (int v = 0; v < vls; v++) {
            n += count[(port - 1) * vls + v];
        }
        return n;
    }

    /** Packets in output {@code port}'s output buffers, every lane (0 in an input-queued core); read as {@link #queuedPackets}. */
    public int outputQueued(int port) {
        return ototal[port];
    }

    /** Queue heads routed to output {@code port} and waiting for it (its contention); read as {@link #queuedPackets}. */
    public int waitingHeads(int port) {
        return wanting[port];
    }

    /** Blocks buffered on input {@code port}, lane {@code vl}. */
    public int queuedBlocks(int port, int vl) {
        return used[(port - 1) * vls + vl];
    }

    /** Credits (blocks) held for output {@code port}, lane {@code vl}. */
    public int credits(int port, int vl) {
        return credits[port * vls + vl];
    }

    /**
     * The link on {@code port} is up and may carry data: the peer's buffers give {@code peerBufferPackets}
     * slots per lane, their blocks in credits.
     */
    public void portActive(int port, int peerBufferPackets, long now) {
        active[port] = true;
        busy[port] = false;
        fillDue[port] = true;
        creditCap[port] = peerBufferPackets;
        creditCapBlocks[port] = blocks.capacity(peerBufferPackets);
        for (int v = 0; v < vls; v++) {
            credits[port * vls + v] = creditCapBlocks[port];
        }
        // heads that were waiting for a route through this port may go now
        for (int q = 0; q < ports * vls; q++) {
            if (count[q] > 0 && target[q] == NO_TARGET) {
                routeHead(q, now);
            }
        }
        arbitrate(port, now);
        serveScheduled(now);
    }

    /** The link on {@code port} went down: nothing more is sent on it; packets routed to it are discarded. */
    public void portDown(int port, long now) {
        endWait(port, now);
        active[port] = false;
        fillDue[port] = true;
        for (int v = 0; v < vls; v++) {
            credits[port * vls + v] = 0;
        }
        int q0 = (port - 1) * vls;
        for (int v = 0; v < vls; v++) {
            // whatever sat in the dead link's input buffers will never be credited back: drop it
            while (count[q0 + v] > 0) {
                int h = ring[(q0 + v) * depth + head[q0 + v]];
                dequeue(q0 + v); // (it returns the blocks freed, not the handle)
                counters.discard(port, DiscardReason.LINK_LOST);
                out.discarded(h, port, now);
            }
            setTarget(q0 + v, NO_TARGET);
        }
        for (int v = 0; v < vls && odepth > 0; v++) {
            // and what waited in its output buffers for the link
            int o = port * vls + v;
            while (ocount[o] > 0) {
                int h = odequeue(o, port);
                counters.discard(port, DiscardReason.LINK_LOST);
                out.discarded(h, port, now);
            }
        }
        for (int q = 0; q < ports * vls; q++) {
            if (count[q] > 0 && target[q] == port) {
                routeHead(q, now);
            }
        }
        serveScheduled(now);
    }

    /**
     * Marks ECN-capable packets by DCQCN's rule ({@link EcnMarking}) from now on, drawing from a
     * generator seeded with {@code seed}; null: no marking (the default). An input-queued core
     * marks a packet as it leaves, by the bytes waiting for its output, its own included (the
     * input buffers whose heads are routed to it, each packet at its own size: {@link #qbytes});
     * an input-output queued one as it joins its output's buffers, by their bytes, its own
     * included. With one packet size both are what counting packets at that size gave. Set before the first packet
     * arrives.
     */
    public void ecn(EcnMarking marking, long seed) {
        ecn = marking;
        ecnRandom = marking == null ? null : new SplittableRandom(seed);
        obytes = marking == null ? null : new long[ports + 1];
        qbytes = marking == null || odepth > 0 ? null : new long[ports * vls];
        largestBytes = 0;
    }

    /**
     * How the outputs choose among the input buffers whose heads wait for them ({@link
     * CrossbarArbitration}; round-robin unless set). Set before the first packet arrives.
     */
    public void arbitration(CrossbarArbitration a) {
        arbitration = Objects.requireNonNull(a, "arbitration");
    }

    /** Marks packet {@code h}, going out of {@code port}, congestion-experienced with the probability its output's queue gives. */
    private void mark(int port, int h) {
        int bits = pool.cc(h);
        if ((bits & PacketPool.ECT) == 0) {
            return;
        }
        long queued;
        if (odepth > 0) {
            queued = obytes[port];
        } else {
            int own = pool.bytes(h);
            if ((long) wanting[port] * mostQueued * largestBytes + own <= ecn.kminBytes()) {
                return; // even full input buffers of the largest packets behind every head waiting for the port stay below kmin: no scan
            }
            int queues = ports * vls;
            queued = own; // itself: the queue it leaves, as an output buffer's holds the packet that joins it
            for (int q = nextRequest(port, 0, queues); q >= 0; q = nextRequest(port, q + 1, queues)) {
                queued += qbytes[q];
            }
        }
        double p = ecn.probability(queued);
        if (p > 0 && (p >= 1 || ecnRandom.nextDouble() < p)) {
            if ((bits & PacketPool.CE) == 0) { // counted once per packet: a switch further on may mark it again
                counters.addNode(PortCounterArray.ECN_MARKED);
            }
            pool.cc(h, bits | PacketPool.CE);
        }
    }

    /** A packet arrived on {@code inPort}; its header is in {@code pool} slot {@code h}, its lane in {@code pool.vl(h)}. */
    public void packetArrived(int inPort, int h, long now) {
        int vl = pool.vl(h);
        int q = (inPort - 1) * vls + vl;
        counters.add(inPort, PortCounterArray.RCV_PKTS, 1);
        counters.add(inPort, PortCounterArray.RCV_DATA, pool.bytes(h));
        int cost = blocks.cost(pool, h);
        if (vl >= vls || used[q] + cost > capBlocks || !active[inPort]) {
            // a sender that ignored credits, or a lane we do not have: drop, never block the link
            counters.discard(inPort, vl >= vls ? DiscardReason.NO_LANE : active[inPort] ? DiscardReason.OVERFLOW : DiscardReason.PORT_DOWN);
            out.discarded(h, inPort, now);
            return;
        }
        if (count[q] == depth) {
            growInput(); // small packets filled the ring before its blocks: at most a few times a core
        }
        used[q] += cost;
        if (qbytes != null) {
            int b = pool.bytes(h);
            qbytes[q] += b;
            largestBytes = Math.max(largestBytes, b);
        }
        int tail = head[q] + count[q];
        int slot = q * depth + (tail < depth ? tail : tail - depth);
        ring[slot] = h;
        arrivedAt[slot] = now;
        count[q]++;
        if (count[q] == 1) {
            routeHead(q, now);
            serveScheduled(now);
        }
    }

    /**
     * {@code n} credits (blocks) for lane {@code vl} of output {@code port} came back from the peer.
     * A driver that reads counts from a wire checks them first ({@link #refusedCredit}).
     */
    public void creditReturned(int port, int vl, int n, long now) {
        credits[port * vls + vl] += n;
        arbitrate(port, now);
        serveScheduled(now);
    }

    /**
     * Why {@code n} credits for lane {@code vl} of output {@code port} cannot be taken (a lane or
     * port this core has not, a count below one, or more than the peer's buffer holds with the credits
     * already held), or null if they can. A count refused leaves the credits as they were.
     */
    public String refusedCredit(int port, int vl, int n) {
        if (port < 1 || port > ports || vl < 0 || vl >= vls) {
            return "credits for port " + port + " lane " + vl + ", which this switch has not (ports 1.." + ports + ", lanes 0.." + (vls - 1) + ")";
        }
        long after = (long) credits[port * vls + vl] + n;
        if (n < 1 || after > creditCapBlocks[port]) {
            return n + " credits for port " + port + " lane " + vl + " would make " + after + " blocks, more than the peer's buffer of "
                    + creditCapBlocks[port] + " (" + creditCap[port] + " packets of " + blocks.slotBlocks() + " blocks), or a count below 1";
        }
        return null;
    }

    /**
     * The tables changed: every head still waiting for an output is routed again by the new ones.
     * A head routed by old tables could otherwise wait forever: between a neighbour already on new
     * tables and this switch still on old ones, packets can bounce to and fro until both buffers
     * are full (a transient routing loop, then a credit loop that outlives it).
     */
    public void tablesChanged(long now) {
        DragonflySwitch df = tables.current().dragonfly();
        if (df != dragonfly) {
            adopt(df);
        }
        for (int q = 0; q < ports * vls; q++) {
            if (count[q] > 0 && target[q] != NO_TARGET) {
                setTarget(q, NO_TARGET);
                routeHead(q, now);
            }
        }
        serveScheduled(now);
    }

    /** The link of output {@code port} finished sending and may take the next packet. */
    public void linkFree(int port, long now) {
        busy[port] = false;
        arbitrate(port, now);
        serveScheduled(now);
    }

    /** Routes the head of queue {@code q}, discarding heads that cannot be routed, and asks its output for a grant. */
    private void routeHead(int q, long now) {
        SwitchTables t = tables.current();
        DragonflySwitch df = t.dragonfly();
        if (df != dragonfly) {
            adopt(df);
        }
        int inPort = inPortOf(q);
        while (count[q] > 0) {
            int h = ring[q * depth + head[q]];
            int dlid = pool.dlid(h);
            int port;
            long route = pool.route(h);
            if (df != null) {
                // a Dragonfly: the algorithm's choice, by the rules every router and the proof follow
                port = dragonflyPort(t, df, h);
            } else if (route != 0 && t.sourceRouting() && pool.hops(h) < SourceRoute.length(route)) {
                // a source-routed packet (Angara): the direction of this hop, from its header
                port = t.directionPort(SourceRoute.direction(route, pool.hops(h)));
            } else {
                port = t.port(dlid);
            }
            if (route == 0 && df == null && t.arEnabled() && !t.arStaticInput(inPort)) {
                int group = t.arGroup(dlid);
                if (group != 0) {
                    port = adaptivePort(t, group, port, inPort, pool.sl(h), blocks.cost(pool, h));
                }
            }
            DiscardReason why;
            if (port < 1 || port > ports) {
                why = DiscardReason.NO_ROUTE;
            } else if (!active[port]) {
                why = DiscardReason.PORT_DOWN;
            } else {
                int vl = df != null ? dragonflyVc : t.vl(inPort, port, pool.sl(h));
                if (vl < vls) {
                    setTarget(q, port);
                    targetVl[q] = vl;
                    arbitrate(port, now);
                    return;
                }
                why = DiscardReason.NO_LANE;
            }
            int cost = dequeue(q);
            counters.discard(inPort, why);
            out.returnCredit(inPort, q - (inPort - 1) * vls, cost, now);
            out.discarded(h, inPort, now);
        }
        setTarget(q, NO_TARGET);
    }

    /**
     * Adaptive routing (the Adaptive Routing Manager's AR groups): among the group's active ports,
     * the one with the least load (heads already waiting for it, plus one if it is sending, plus a
     * penalty if it has no credit on the lane the packet would take); among equally loaded ports,
     * round-robin from the one after the group's last choice, which spreads packets over the
     * group even when nothing is congested, as the hardware does. A group's detour ports (on
     * non-minimal paths) are taken only when the least loaded minimal port carries more than
     * twice the least loaded detour's load plus {@link #DETOUR_THRESHOLD}, as UGAL weighs a longer
     * path (so a lightly loaded fabric routes minimally). With no active port in the group, the
     * static port stands.
     */
    private int adaptivePort(SwitchTables t, int group, int staticPort, int inPort, int sl, int cost) {
        int[] members = t.arPorts(group);
        if (members == null) {
            return staticPort;
        }
        if (group >= arNext.length) {
            arNext = Arrays.copyOf(arNext, Math.max(group + 1, arNext.length * 2));
        }
        boolean[] detour = t.arDetourFlags(group);
        int n = members.length;
        int start = arNext[group] < n ? arNext[group] : arNext[group] % n;
        int best = -1;
        int bestIndex = -1;
        int bestLoad = Integer.MAX_VALUE;
        int bestDetour = -1;
        int bestDetourIndex = -1;
        int bestDetourLoad = Integer.MAX_VALUE;
        for (int k = 0; k < n; k++) {
            int i = start + k < n ? start + k : start + k - n;
            int p = members[i];
            if (p < 1 || p > ports || !active[p]) {
                continue;
            }
            int vl = t.vl(inPort, p, sl);
            int load = blocks.slots(oblocks[p]) + wanting[p] + (busy[p] ? 1 : 0) + (vl < vls && credits[p * vls + vl] < cost ? BLOCKED : 0);
            if (detour != null && detour[i]) {
                if (load < bestDetourLoad) {
                    bestDetour = p;
                    bestDetourIndex = i;
                    bestDetourLoad = load;
                }
            } else if (load < bestLoad) {
                best = p;
                bestIndex = i;
                bestLoad = load;
            }
        }
        boolean detoured = bestDetour >= 0 && (best < 0 || bestLoad > 2 * bestDetourLoad + DETOUR_THRESHOLD);
        if (detoured) {
            best = bestDetour;
            bestIndex = bestDetourIndex;
        }
        if (best < 0) {
            return staticPort;
        }
        arNext[group] = bestIndex + 1;
        counters.addNode(detoured ? PortCounterArray.ADAPTIVE_NONMINIMAL : PortCounterArray.ADAPTIVE_MINIMAL);
        return best;
    }

    /**
     * Takes up the tables' Dragonfly routing: its random generator from its seed, and for
     * Q-adaptive the Q-table from its seed. Called on this core's thread when the tables carry
     * another routing than the one in use: the same routing kept by a write that changes something
     * else keeps what was learnt; a routing written anew (a new seed) starts again from it.
     */
    private void adopt(DragonflySwitch df) {
        dragonfly = df;
        random = df == null ? null : new SplittableRandom(df.seed());
        qTable = df == null || df.qSeed() == null ? null : df.qSeed().clone();
    }

    /**
     * The output port of Dragonfly packet {@code h} at this router, its VC left in {@link
     * #dragonflyVc} and its routing state written back into its header: {@link DragonflyRules} says
     * where a decision may be taken; the policy here takes it (UGAL and PAR by congestion, VALg and
     * VALn at random, Q-adaptive by the Q-table, its threshold and epsilon), as the packet's routing
     * mode asks ({@link RoutingMode}: a bias in UGAL's comparison, or a path fixed by a hash of its
     * addresses), only ever among the outcomes the rules allow.
     */
    private int dragonflyPort(SwitchTables t, DragonflySwitch r, int h) {
        DragonflyLids lids = r.lids();
        int dlid = pool.dlid(h);
        int de = lids.entry(dlid);
        if (de < 0) {
            return SwitchTables.NO_ROUTE;
        }
        int se = lids.entry(pool.slid(h));
        int dstGroup = DragonflyLids.group(de);
        int dstRouter = DragonflyLids.router(de);
        int srcGroup = se < 0 ? r.group() : DragonflyLids.group(se);
        int hops = pool.hops(h);
        DragonflyAlgorithm alg = r.algorithm();
        long st = DragonflyRules.arrive(r, pool.route(h));
        int port = -1;
        RoutingMode mode = RoutingMode.ofCode(pool.mode(h));
        switch (DragonflyRules.decision(alg, r, srcGroup, dstGroup, hops, st)) {
            case DragonflyRules.VALIANT -> {
                st = mode.deterministic() ? hashedIntermediate(r, alg, st, srcGroup, dstGroup, h)
                        : intermediate(r, alg, st, srcGroup, dstGroup);
                counters.addNode(PortCounterArray.ADAPTIVE_NONMINIMAL);
            }
            case DragonflyRules.UGAL -> st = ugal(r, alg, DragonflyHeader.minimal(st), srcGroup, dstGroup, dstRouter, mode, hops, h);
            case DragonflyRules.PAR_RECHECK -> st = ugal(r, alg, st | DragonflyHeader.DECIDED, srcGroup, dstGroup, dstRouter, mode, hops, h);
            case DragonflyRules.Q_SOURCE -> port = qDecision(r, dstGroup, dstRouter, se, mode, mode == RoutingMode.NMIN_HASH, false, h);
            case DragonflyRules.Q_INTERMEDIATE -> {
                st |= DragonflyHeader.DECIDED;
                port = qDecision(r, dstGroup, dstRouter, se, mode, false, true, h);
            }
            default -> { }
        }
        if (port < 0) {
            port = link(r, DragonflyRules.port(r, dstGroup, dstRouter, st), spreadsByLoad(alg, mode), h);
        }
        dragonflyVc = DragonflyRules.vc(alg, r, srcGroup, dstGroup, hops, st);
        if (port == 0) {
            port = t.port(dlid); // the destination's router: the LFT names its host's port
            // a host is a sink, so its lane closes no cycle: Q-adaptive's VC (the hop count) after its
            // longest path, five hops, is one past its last and takes the last
            dragonflyVc = Math.min(dragonflyVc, alg.vcs() - 1);
        }
        pool.route(h, st);
        return port;
    }

    /** True where packets spread over parallel links by congestion (an adaptive algorithm), false where by their addresses. */
    private static boolean spreadsByLoad(DragonflyAlgorithm alg, RoutingMode mode) {
        return alg.adaptive() && !mode.deterministic();
    }

    /**
     * The link packet {@code h} takes of those parallel to {@code port} (several to one router of
     * the group or to one other group; {@code port} itself where it has none): with {@code byLoad}
     * the least congested (as {@link #congestion} measures it; among equals the first from the
     * one the packet's address hash names, so equal links share the load), else the one the hash
     * names ({@link DragonflyRules#parallelLink}: a pair's packets keep one path, in order). A
     * link that is down is passed over for the next.
     */
    private int link(DragonflySwitch r, int port, boolean byLoad, int h) {
        int n = port < 1 ? 1 : r.parallels(port);
        if (n < 2) {
            return port;
        }
        int first = DragonflyRules.parallelIndex(RoutingMode.hash(pool.slid(h), pool.dlid(h)), n);
        int best = port;
        int least = Integer.MAX_VALUE;
        for (int k = 0; k < n; k++) {
            int p = r.parallel(port, first + k < n ? first + k : first + k - n);
            if (!active[p]) {
                continue;
            }
            if (!byLoad) {
                return p;
            }
            int c = congestion(p);
            if (c < least) {
                best = p;
                least = c;
            }
        }
        return best;
    }

    /** {@code st} sent through a random intermediate group (and router, for VALn, UGALn and PAR). */
    private long intermediate(DragonflySwitch r, DragonflyAlgorithm alg, long st, int srcGroup, int dstGroup) {
        int ig = DragonflyRules.intermediateGroup(random.nextInt(DragonflyRules.intermediateGroups(r)), srcGroup, dstGroup);
        int ir = DragonflyRules.throughRouter(alg) ? random.nextInt(r.routers()) : -1;
        return DragonflyHeader.nonminimal(st, ig, ir);
    }

    /**
     * {@code st} sent through the intermediate group (and router, for VALn, UGALn and PAR) that a
     * hash of packet {@code h}'s addresses names: one pair, one path (the deterministic routing modes).
     */
    private long hashedIntermediate(DragonflySwitch r, DragonflyAlgorithm alg, long st, int srcGroup, int dstGroup, int h) {
        int hash = RoutingMode.hash(pool.slid(h), pool.dlid(h));
        int ig = DragonflyRules.intermediateGroup(RoutingMode.pick(hash, 0, DragonflyRules.intermediateGroups(r)), srcGroup, dstGroup);
        int ir = DragonflyRules.throughRouter(alg) ? RoutingMode.pick(hash, 16, r.routers()) : -1;
        return DragonflyHeader.nonminimal(st, ig, ir);
    }

    /**
     * UGAL's choice (and PAR's): a random intermediate is the non-minimal candidate; it is taken
     * when the minimal port's congestion exceeds {@code ugal_threshold} times the candidate port's
     * plus {@code ugal_bias} plus the packet's routing mode's bias ({@link RoutingMode#bias}, after
     * {@code hops} hops, scaled by the minimal port's VC buffer). A deterministic mode takes no
     * measure: minimal (MIN_HASH, IN_ORDER), or the hash's intermediate (NMIN_HASH, even where its
     * first hop is the minimal port's: the path is non-minimal all the same).
     */
    private long ugal(DragonflySwitch r, DragonflyAlgorithm alg, long st, int srcGroup, int dstGroup, int dstRouter, RoutingMode mode,
                      int hops, int h) {
        if (mode.deterministic()) {
            boolean nonminimal = mode == RoutingMode.NMIN_HASH;
            counters.addNode(nonminimal ? PortCounterArray.ADAPTIVE_NONMINIMAL : PortCounterArray.ADAPTIVE_MINIMAL);
            return nonminimal ? hashedIntermediate(r, alg, st, srcGroup, dstGroup, h) : st;
        }
        int minPort = link(r, DragonflyRules.minimal(r, dstGroup, dstRouter), true, h);
        long nonmin = intermediate(r, alg, st, srcGroup, dstGroup);
        int nonminPort = link(r, DragonflyRules.port(r, dstGroup, dstRouter, nonmin), true, h);
        DragonflyParams p = r.params();
        if (nonminPort != minPort
                && congestion(minPort) > p.ugalThreshold() * congestion(nonminPort) + p.ugalBias() + mode.bias(hops, creditCap[minPort])) {
            counters.addNode(PortCounterArray.ADAPTIVE_NONMINIMAL);
            return nonmin;
        }
        counters.addNode(PortCounterArray.ADAPTIVE_MINIMAL);
        return st;
    }

    /**
     * Output {@code port}'s congestion as the paper's baselines estimate it: its output queue (the
     * packets in its output buffers, the heads routed to it, and the one it is sending) plus its
     * credits in use, over every lane; buffers and credits in slots of the largest packet, rounded
     * up (so, when every packet is the largest, in packets as before blocks).
     */
    private int congestion(int port) {
        int inUse = 0;
        int cap = creditCapBlocks[port];
        for (int v = 0; v < vls; v++) {
            inUse += cap - credits[port * vls + v];
        }
        return blocks.slots(oblocks[port]) + wanting[port] + (busy[port] ? 1 : 0) + blocks.slots(inUse);
    }

    /**
     * Q-adaptive's choice (Equation 2, then epsilon-greedy): at the source router the best column of
     * {@code row} against the minimal port's, with {@code q_thld1}; at the first router of an
     * intermediate group a random local port against the minimal one, with {@code q_thld2}; with
     * probability {@code epsilon}, any non-host port instead.
     */
    private int qChoice(DragonflySwitch r, int row, int minPort, boolean intermediate) {
        int cols = r.columns();
        int base = row * cols;
        int minCol = r.column(minPort);
        int bestCol = minCol;
        if (intermediate) {
            if (r.localColumns() > 0) {
                bestCol = random.nextInt(r.localColumns());
            }
        } else {
            // the least of the whole row, the first of equals, as the paper's simulator takes it: a
            // local port too (the next router routes minimally; the learnt values make that a hop more)
            float best = Float.MAX_VALUE;
            for (int c = 0; c < cols; c++) {
                if (qTable[base + c] < best) {
                    best = qTable[base + c];
                    bestCol = c;
                }
            }
        }
        float qMin = qTable[base + minCol];
        float av = qMin > 0 ? (qMin - qTable[base + bestCol]) / qMin : 0;
        DragonflyParams p = r.params();
        int col = av < (intermediate ? p.qThld2() : p.qThld1()) ? minCol : bestCol;
        if (p.epsilon() > 0 && random.nextDouble() < p.epsilon()) {
            col = random.nextInt(cols);
            counters.addNode(PortCounterArray.Q_EXPLORATIONS);
        }
        int port = r.portOfColumn(col);
        counters.addNode(r.sameWay(port, minPort) ? PortCounterArray.ADAPTIVE_MINIMAL : PortCounterArray.ADAPTIVE_NONMINIMAL);
        return port;
    }

    /**
     * Q-adaptive's decision at a source ({@code intermediate} false) or intermediate router: by
     * the Q-table row of the destination group and the source's host slot ({@link #qChoice}), or
     * under a deterministic routing mode by the packet's addresses ({@link #qDeterministic}).
     */
    private int qDecision(DragonflySwitch r, int dstGroup, int dstRouter, int se, RoutingMode mode, boolean hashedDetour,
                          boolean intermediate, int h) {
        int minPort = link(r, DragonflyRules.minimal(r, dstGroup, dstRouter), !mode.deterministic(), h);
        return mode.deterministic() ? qDeterministic(r, minPort, hashedDetour, h)
                : qChoice(r, r.row(dstGroup, se < 0 ? 0 : DragonflyLids.slot(se)), minPort, intermediate);
    }

    /**
     * Q-adaptive under a deterministic routing mode: the minimal port, or with {@code nonminimal}
     * the non-host port not leading the minimal way (neither the minimal port nor a link parallel
     * to it) that a hash of packet {@code h}'s addresses names (a detour Q-adaptive's own choice
     * could take); no Q-value read, no exploration.
     */
    private int qDeterministic(DragonflySwitch r, int minPort, boolean nonminimal, int h) {
        int cols = r.columns();
        int detours = cols - (minPort < 1 ? 0 : r.parallels(minPort));
        if (!nonminimal || detours < 1 || r.column(minPort) < 0) {
            counters.addNode(PortCounterArray.ADAPTIVE_MINIMAL);
            return minPort;
        }
        int k = RoutingMode.pick(RoutingMode.hash(pool.slid(h), pool.dlid(h)), 0, detours);
        counters.addNode(PortCounterArray.ADAPTIVE_NONMINIMAL);
        for (int c = 0; ; c++) {
            int p = r.portOfColumn(c);
            if (!r.sameWay(p, minPort) && k-- == 0) {
                return p;
            }
        }
    }

    /**
     * Q-adaptive feedback from the router downstream of output {@code port} (Equation 3, hysteretic):
     * delta = {@code value} - Q; Q moves by {@code alpha} x delta when delta is negative (the route
     * got quicker), by {@code beta} x delta otherwise; the move counted, and its size. Feedback for a
     * row or port this router does not have (tables changed since) is dropped.
     */
    public void qFeedback(int port, int row, float value, long now) {
        SwitchTables t = tables.current();
        if (t.dragonfly() != dragonfly) {
            adopt(t.dragonfly());
        }
        if (qTable == null) {
            return;
        }
        int col = dragonfly.column(port);
        if (col < 0 || row < 0 || row >= dragonfly.rows()) {
            return;
        }
        int i = row * dragonfly.columns() + col;
        float delta = value - qTable[i];
        DragonflyParams p = dragonfly.params();
        float step = (float) ((delta < 0 ? p.alpha() : p.beta()) * delta);
        qTable[i] += step;
        counters.addNode(PortCounterArray.Q_UPDATES);
        counters.addNode(PortCounterArray.Q_CHANGE_PS, (long) (Math.abs(step) * 1000)); // the convergence the manager exports
    }

    /**
     * At the grant of Dragonfly packet {@code h}, which arrived on {@code inPort} at {@code
     * arrived}: Q-adaptive's feedback to the router it came from (the time from its arrival there
     * to its arrival here, plus this router's least Q-value of the row, 0 in the destination group;
     * none on a host's link or between two routers of the destination group, whose rows are never
     * read), and the header's stamp set to this router's arrival, for the next router's reward.
     */
    private void dragonflyGrant(int h, int inPort, long arrived, long now) {
        DragonflySwitch r = dragonfly;
        long st = pool.route(h);
        if (qTable != null && r.kind(inPort) != DragonflySwitch.HOST) {
            DragonflyLids lids = r.lids();
            int de = lids.entry(pool.dlid(h));
            int dstGroup = de < 0 ? -1 : DragonflyLids.group(de);
            if (de >= 0 && !(dstGroup == r.group() && r.kind(inPort) == DragonflySwitch.LOCAL)) {
                int se = lids.entry(pool.slid(h));
                int row = r.row(dstGroup, se < 0 ? 0 : DragonflyLids.slot(se));
                float estimate = 0;
                if (dstGroup != r.group()) {
                    int cols = r.columns();
                    estimate = Float.MAX_VALUE;
                    for (int c = row * cols, end = c + cols; c < end; c++) {
                        estimate = Math.min(estimate, qTable[c]);
                    }
                }
                int reward = (int) arrived - DragonflyHeader.stamp(st);
                out.qFeedback(inPort, row, reward + estimate, now);
            }
        }
        pool.route(h, DragonflyHeader.withStamp(st, arrived));
    }

    /**
     * A copy of the Q-table this router is learning (rows x columns, ns), or null if it learns
     * none. Read from another thread it may mix values of a few consecutive updates (each value is
     * whole), and lag a write of a new routing: {@link #learning} is the consistent read.
     */
    public float[] qTable() {
        float[] q = qTable;
        return q == null ? null : q.clone();
    }

    /** A Dragonfly routing (null: none) and a copy of the Q-table learnt under it (null: it learns none). */
    public record Learning(DragonflySwitch routing, float[] qTable) {
    }

    /**
     * The Dragonfly routing of the tables in force, taken up now if a write changed it since this
     * core's last event, with a copy of the Q-table learnt under it: the two belong together. On
     * the core's thread only.
     */
    public Learning learning() {
        DragonflySwitch df = tables.current().dragonfly();
        if (df != dragonfly) {
            adopt(df);
        }
        return new Learning(dragonfly, qTable());
    }

    /** Load a minimal port carries beyond twice a detour's before the detour is taken (in waiting heads). */
    static final int DETOUR_THRESHOLD = 2;

    /** Adaptive choices that took a detour port, since the counters were last reset (for tests and troubleshooting). */
    public long detourDecisions() {
        return counters.getNode(PortCounterArray.ADAPTIVE_NONMINIMAL);
    }

    /** Adaptive choices made, minimal or not, since the counters were last reset (for tests and troubleshooting). */
    public long adaptiveDecisions() {
        return counters.getNode(PortCounterArray.ADAPTIVE_MINIMAL) + counters.getNode(PortCounterArray.ADAPTIVE_NONMINIMAL);
    }

    /** Points queue {@code q}'s head at output {@code port} (or none), keeping each output's requests (count and bits). */
    private void setTarget(int q, int port) {
        int old = target[q];
        if (old != NO_TARGET) {
            wanting[old]--;
            requests[old * requestWords + (q >>> 6)] &= ~(1L << q);
        }
        target[q] = port;
        if (port != NO_TARGET) {
            fillDue[port] = true;
            wanting[port]++;
            requests[port * requestWords + (q >>> 6)] |= 1L << q;
        }
    }

    /** Grants output {@code port} to the next (input, VL) in round-robin order that wants it and has a credit. */
    private void arbitrate(int port, long now) {
        if (odepth > 0) {
            schedule(port);
            return;
        }
        if (busy[port] || !active[port]) {
            return;
        }
        if (wanting[port] == 0) {
            endWait(port, now); // no head wants this output: nothing to scan
            return;
        }
        SwitchTables t = tables.current();
        int q = next(port, t, t.sourceRouting() ? t.directionOfPort(port) : -1);
        if (q >= 0) {
            grant(port, q, targetVl[q], now);
            return;
        }
        if (waitingSince[port] < 0) {
            waitingSince[port] = now; // a packet is ready, the link is free, but no credit: XmitWait runs
        }
    }

    /**
     * The input buffer whose head output {@code port} takes next, of those routed to it that can go
     * now ({@link #canGo}), or -1: by {@link #arbitration}, round-robin from the one after the last
     * this output took, or the one any output took least recently. {@code t} and {@code direction}
     * as {@link #canGo} takes them.
     */
    private int next(int port, SwitchTables t, int direction) {
        int queues = ports * vls;
        if (arbitration == CrossbarArbitration.LRU) {
            int best = -1;
            long bestServed = Long.MAX_VALUE;
            for (int q = nextRequest(port, 0, queues); q >= 0; q = nextRequest(port, q + 1, queues)) {
                if (lastServed[q] < bestServed && canGo(port, q, t, direction)) {
                    best = q;
                    bestServed = lastServed[q];
                }
            }
            return best;
        }
        // round robin: the first requesting queue from start to the end, then from 0 to start
        int start = nextGrant[port];
        for (int pass = 0; pass < 2; pass++) {
            int hi = pass == 0 ? queues : start;
            for (int q = nextRequest(port, pass == 0 ? start : 0, hi); q >= 0; q = nextRequest(port, q + 1, hi)) {
                if (canGo(port, q, t, direction)) {
                    return q;
                }
            }
        }
        return -1;
    }

    /**
     * The head of queue {@code q}, routed to {@code port}, can go now: input-output queued, its lane
     * of the output buffer has room; input-queued, the lane has a credit downstream (two for a
     * packet entering a torus ring, {@link #bubble}, where {@code direction} is the port's direction
     * in source-routed tables {@code t}, else -1).
     */
    private boolean canGo(int port, int q, SwitchTables t, int direction) {
        int o = port * vls + targetVl[q];
        int cost = blocks.cost(pool, ring[q * depth + head[q]]);
        if (odepth > 0) {
            return oused[o] + cost <= ocapBlocks;
        }
        return credits[o] >= (direction >= 0 && bubble(t, inPortOf(q), direction) == 2 ? cost + blocks.slotBlocks() : cost);
    }

    /**
     * Bubble flow control on a torus's rings (as Angara keeps one virtual channel per ring free of
     * deadlock): a packet continuing straight along its ring needs one free buffer downstream; a
     * packet entering the ring of direction {@code out} (injected, or turning from another
     * direction) needs two, so that a ring never fills up (in blocks: its own and a largest packet's more).
     */
    private static int bubble(SwitchTables t, int inPort, int out) {
        int in = t.directionOfPort(inPort);
        if (in < 0) {
            return 2;
        }
        // the packet came in over the link in direction `in` from this switch, so it travels in the opposite direction
        return opposite(t, in) == out ? 1 : 2;
    }

    /** The direction opposite to d on this switch's torus (n = half the directions the tables define). */
    private static int opposite(SwitchTables t, int d) {
        int n = t.directionCount() / 2;
        return d < n ? d + n : d - n;
    }

    /** The lowest queue in [from, to) whose head wants output {@code port}, or -1: a scan of its request bits. */
    private int nextRequest(int port, int from, int to) {
        if (from >= to) {
            return -1;
        }
        int base = port * requestWords;
        int w = from >>> 6;
        long bits = requests[base + w] & (-1L << from);
        int lastWord = (to - 1) >>> 6;
        while (bits == 0) {
            if (++w > lastWord) {
                return -1;
            }
            bits = requests[base + w];
        }
        int q = (w << 6) + Long.numberOfTrailingZeros(bits);
        return q < to ? q : -1;
    }

    /** Input-output queued: serve {@code port} before the current event ends. */
    private void schedule(int port) {
        if (!scheduled[port]) {
            scheduled[port] = true;
            scheduledList[scheduledCount++] = port;
        }
    }

    /**
     * Input-output queued: serves the scheduled outputs until none is left: each moves the input
     * heads routed to it into its free output buffer slots (chosen as the input-queued arbiter
     * grants its link, {@link #next}), sends on its link if free, and moves again into what
     * that freed. A move routes the input's next head, which may schedule another output: a loop,
     * not a recursion, however far it leads.
     */
    private void serveScheduled(long now) {
        if (odepth == 0 || serving) {
            return;
        }
        serving = true;
        while (scheduledCount > 0) {
            int port = scheduledList[--scheduledCount];
            scheduled[port] = false;
            if (!active[port]) {
                continue;
            }
            assert fillDue[port] || next(port, null, -1) < 0 : "a head may move into output " + port + " but no fill is due";
            if (fillDue[port]) {
                fill(port, now);
            }
            if (send(port, now)) {
                fill(port, now);
            }
        }
        serving = false;
    }

    /**
     * Moves input heads routed to {@code port} into its output buffers while a lane they want has
     * room; then none has, and the port's {@link #fillDue} is cleared until that may change.
     */
    private void fill(int port, long now) {
        while (wanting[port] > 0) {
            int q = next(port, null, -1);
            if (q < 0) {
                break;
            }
            move(port, q, now);
        }
        fillDue[port] = false;
    }

    /** Output {@code port} takes the head of input queue {@code q}: both arbitrations' state moves past it ({@link #next}). */
    private void taken(int port, int q) {
        nextGrant[port] = q + 1 == ports * vls ? 0 : q + 1;
        lastServed[q] = ++served;
    }

    /** Moves the head of input queue {@code q} into output {@code port}'s buffer of its lane: its input slot is free, its credit returned. */
    private void move(int port, int q, long now) {
        taken(port, q);
        int vl = targetVl[q];
        long arrived = arrivedAt[q * depth + head[q]];
        int h = ring[q * depth + head[q]];
        int cost = dequeue(q);
        int inPort = inPortOf(q);
        counters.addInput(port, inPort, pool.bytes(h));
        out.returnCredit(inPort, q - (inPort - 1) * vls, cost, now);
        if (dragonfly != null) {
            dragonflyGrant(h, inPort, arrived, now);
        }
        pool.vl(h, (byte) vl);
        if (ecn != null) {
            obytes[port] += pool.bytes(h);
            mark(port, h);
        }
        int o = port * vls + vl;
        if (ocount[o] == odepth) {
            growOutput(); // small packets filled the ring before its blocks
        }
        int tail = ohead[o] + ocount[o];
        oring[o * odepth + (tail < odepth ? tail : tail - odepth)] = h;
        ocount[o]++;
        ototal[port]++;
        oused[o] += cost;
        oblocks[port] += cost;
        if (count[q] > 0) {
            routeHead(q, now);
        } else {
            setTarget(q, NO_TARGET);
        }
    }

    /**
     * Sends the next packet of output {@code port}'s buffers if its link is free: lanes taken
     * round-robin among those with a packet and a credit. Returns true if it sent one.
     */
    private boolean send(int port, long now) {
        if (busy[port]) {
            return false;
        }
        if (ototal[port] == 0) {
            endWait(port, now);
            return false;
        }
        for (int k = 0; k < vls; k++) {
            int vl = nextVl[port] + k < vls ? nextVl[port] + k : nextVl[port] + k - vls;
            int o = port * vls + vl;
            if (ocount[o] > 0 && credits[o] >= blocks.cost(pool, oring[o * odepth + ohead[o]])) {
                endWait(port, now);
                nextVl[port] = vl + 1 == vls ? 0 : vl + 1;
                int h = odequeue(o, port);
                credits[o] -= blocks.cost(pool, h);
                busy[port] = true;
                fillDue[port] = true;
                pool.hops(h, pool.hops(h) + 1);
                counters.add(port, PortCounterArray.XMIT_PKTS, 1);
                counters.add(port, PortCounterArray.XMIT_DATA, pool.bytes(h));
                out.transmit(port, vl, h, now);
                return true;
            }
        }
        if (waitingSince[port] < 0) {
            waitingSince[port] = now; // packets wait, the link is free, but no lane has a credit: XmitWait runs
        }
        return false;
    }

    /** Sends the head of queue {@code q} on output {@code port}, lane {@code vl}. */
    private void grant(int port, int q, int vl, long now) {
        endWait(port, now);
        taken(port, q);
        long arrived = arrivedAt[q * depth + head[q]];
        int h = ring[q * depth + head[q]];
        int cost = dequeue(q);
        credits[port * vls + vl] -= cost;
        busy[port] = true;
        if (ecn != null) {
            mark(port, h);
        }
        pool.vl(h, (byte) vl);
        pool.hops(h, pool.hops(h) + 1);
        counters.add(port, PortCounterArray.XMIT_PKTS, 1);
        counters.add(port, PortCounterArray.XMIT_DATA, pool.bytes(h));
        int inPort = inPortOf(q);
        counters.addInput(port, inPort, pool.bytes(h));
        out.returnCredit(inPort, q - (inPort - 1) * vls, cost, now);
        if (dragonfly != null) {
            dragonflyGrant(h, inPort, arrived, now);
        }
        out.transmit(port, vl, h, now);
        if (count[q] > 0) {
            routeHead(q, now);
        } else {
            setTarget(q, NO_TARGET);
        }
    }

    /** Ends a credit wait on {@code port}, if one runs, adding its length to XmitWait. */
    private void endWait(int port, long now) {
        if (waitingSince[port] >= 0) {
            counters.add(port, PortCounterArray.XMIT_WAIT_NS, now - waitingSince[port]);
            waitingSince[port] = -1;
        }
    }

    /**
     * The input port of queue {@code q} ({@code q / vls + 1}) by a multiplication with the
     * reciprocal of {@code vls} rounded up, exact for every queue number below 2^28: a
     * division would cost tens of cycles at every hop.
     */
    private int inPortOf(int q) {
        return (int) ((q * vlsReciprocal) >>> 32) + 1;
    }

    /** Takes the head of input queue {@code q}; returns the blocks it took (its credits, to return upstream). */
    private int dequeue(int q) {
        assert count[q] > 0;
        int h = ring[q * depth + head[q]];
        head[q] = head[q] + 1 == depth ? 0 : head[q] + 1;
        count[q]--;
        int cost = blocks.cost(pool, h);
        used[q] -= cost;
        assert used[q] >= 0 && (count[q] > 0 || used[q] == 0);
        if (qbytes != null) {
            qbytes[q] -= pool.bytes(h);
            assert qbytes[q] >= 0 && (count[q] > 0 || qbytes[q] == 0);
        }
        return cost;
    }

    /**
     * Takes the head of output buffer {@code o} (of {@code port}) and returns it, sent or discarded
     * (a link gone down): with ECN marking, its bytes leave {@link #obytes} either way.
     */
    private int odequeue(int o, int port) {
        int h = oring[o * odepth + ohead[o]];
        ohead[o] = ohead[o] + 1 == odepth ? 0 : ohead[o] + 1;
        ocount[o]--;
        ototal[port]--;
        int cost = blocks.cost(pool, h);
        oused[o] -= cost;
        oblocks[port] -= cost;
        if (obytes != null) {
            obytes[port] -= pool.bytes(h);
            assert obytes[port] >= 0 && (ototal[port] > 0 || obytes[port] == 0);
        }
        return h;
    }

    /**
     * Doubles the input rings' slots (up to {@link #mostQueued}): every ring laid out again from its
     * head. Only where packets smaller than a slot fill a ring before its blocks: never in a run
     * whose packets are all the largest.
     */
    private void growInput() {
        int to = Math.min(mostQueued, depth * 2);
        assert to > depth : "an input ring is full but its blocks are not";
        int queues = ports * vls;
        int[] r = new int[queues * to];
        long[] a = new long[queues * to];
        for (int q = 0; q < queues; q++) {
            for (int k = 0; k < count[q]; k++) {
                int i = head[q] + k;
                int from = q * depth + (i < depth ? i : i - depth);
                r[q * to + k] = ring[from];
                a[q * to + k] = arrivedAt[from];
            }
            head[q] = 0;
        }
        ring = r;
        arrivedAt = a;
        depth = to;
    }

    /** Doubles the output rings' slots (up to {@link #mostOutput}), as {@link #growInput}. */
    private void growOutput() {
        int to = Math.min(mostOutput, odepth * 2);
        assert to > odepth : "an output ring is full but its blocks are not";
        int outputs = ohead.length;
        int[] r = new int[outputs * to];
        for (int o = 0; o < outputs; o++) {
            for (int k = 0; k < ocount[o]; k++) {
                int i = ohead[o] + k;
                r[o * to + k] = oring[o * odepth + (i < odepth ? i : i - odepth)];
            }
            ohead[o] = 0;
        }
        oring = r;
        odepth = to;
    }
}
