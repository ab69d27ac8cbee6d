package org.fabriclab.agent.core;

import java.util.Arrays;
import java.util.Objects;


/**
 * The decisions of a channel adapter (a host's NIC) with one port, for both clocks: a bounded send
 * queue per VL fed by the host's traffic source, credits towards the switch, one packet on the wire
 * at a time, round-robin over lanes; received packets are delivered to the host and their buffer
 * credit returned at once (the host consumes at line rate). It counts what an Aries NIC counts
 * ({@link NicCounters}: flits sent, the credit waits as stalls, and its own packets' round trips). Not thread-safe; confined like
 * {@link SwitchCore}.
 *
 * <p>Round trips: an Aries NIC acknowledges every request packet with a response, and its latency
 * counter is the request's round trip, counted at the sender when the response comes back. Here a
 * received data packet is answered by a modelled response ({@link Output#respond}): the driver
 * brings it back to the sender's core ({@link #responseReturns}) after the time a header-only frame
 * takes through the empty fabric, without sending a frame (the fabric's traffic stays what it is,
 * so a run whose routing does not read the counter is unchanged). The sender holds it until then,
 * in a heap by return time, and counts it at the first of its events at or after it ({@link
 * #settle}; a driver whose counters are read from outside asks to be woken then, {@link
 * Output#responseDueAt}): a sample is never counted before its response would have come back.
 * A driver may instead hold the responses itself and count each at its sender when its time has
 * come ({@link NicCounters#countRoundTrip}): the simulator does, in FIFOs of its own, so that the
 * receiver's event does not touch the sender's core (the live hosts, on several event loops, use
 * the heap).
 *
 * <p>With a {@link CongestionControl} (off by default, and then nothing below happens): data
 * packets go ECN-capable, a lane sends its first packet whose flow may send ({@link
 * CongestionControl#sendAt}; when none may, the driver wakes the core at the earliest time, {@link Output#wakeAt}), a
 * received data packet may be answered by a small control packet (ACK or CNP, {@link PacketPool}'s
 * kind bits; its timestamp the data packet's NIC send time, echoed), which goes first from a
 * control queue of its own, and a received control packet is fed to the congestion control and
 * consumed here, not delivered. A lane's send queue holds packets of several flows: the NIC sends
 * the first one whose flow may go, so a paced or window-bound flow holds back only its own packets
 * (as a NIC scheduling its queue pairs does), not the flows queued behind it; each flow's packets
 * keep their order.
 *
 * <p>ACK coalescing ({@link CongestionControl.Acks}, {@code ack_every} above 1): the receiver counts
 * each source's data packets not yet acknowledged and sends one ACK for every {@code ack_every} of
 * them, its {@code seq} the number it acknowledges and its timestamp the newest one's NIC send
 * time. The first packet a source leaves pending starts that source's timer ({@code ack_delay_us}):
 * when it expires the packets still pending get their ACK, echoing the newest one's send time
 * plus the time it was held (so the sender's RTT leaves the wait out). The timers are a FIFO of
 * source LIDs (each in it at most once; their expiries come in the order they started, the delay
 * being one) run on the core's wake-ups ({@link Output#wakeAt}): the simulator's events or the live
 * host's scheduled task, as a paced flow's. A source whose count fills while its timer runs keeps
 * the timer, which may then acknowledge the next packets early, never late. An ACK the control
 * queue has no room for is not lost: its packets stay pending for the next one.
 */
public final class HostCore {
    /** Actions carried out by the driver. */
    public interface Output {
        /** Send packet {@code h} on lane {@code vl}; the driver owns the handle from now on. */
        void transmit(int vl, int h, long now);

        /** {@code blocks} blocks of lane {@code vl}'s buffer freed (a packet consumed): return their credits to the switch. */
        void returnCredit(int vl, int blocks, long now);

        /** Packet {@code h} arrived for this host; the driver records it and releases the handle. */
        void delivered(int h, long now);

        /**
         * Congestion control made control packet {@code h} to {@code pool.dlid(h)}: the driver sets
         * its SL, VL and source route as for a data packet to that LID and attaches what it sends.
         */
        void controlMade(int h, long now);

        /** A control packet {@code h} was consumed by congestion control; the driver releases the handle. */
        void controlConsumed(int h, long now);

        /** Call {@link HostCore#wake} at {@code at}: a paced flow may send then. */
        void wakeAt(long at);

        /**
         * Data packet {@code h} arrived: answer it with the modelled response (an Aries NIC
         * acknowledges every request), brought back to its sender's core, {@link
         * HostCore#responseReturns}, after the time a header-only frame takes from here to there at
         * no load. The handle is still the core's: read it, do not keep or release it. None by default.
         */
        default void respond(int h, long now) {
        }

        /**
         * The earliest response held ({@link HostCore#responseReturns}) comes back at {@code at}:
         * a driver whose NIC counters are read from outside the core's events (a live host's, by
         * its management endpoint) calls {@link HostCore#wake} then; the simulator, whose one
         * reader of them ({@link AppAwareRouting}, after {@link HostCore#settle}) reads at its own
         * events, need not. Nothing by default.
         */
        default void responseDueAt(long at) {
        }

        /**
         * The pool had no handle for a control packet of {@code kind} ({@link PacketPool#ACK} or
         * {@link PacketPool#CNP}): it is dropped and counted ({@code NIC_CONTROL_DROPPED}), as one
         * the control queue had no room for. Nothing more by default (a live host's pool holds what
         * its buffers can); the simulator, whose pool its heap may cap below that, stops the run
         * here, at the moment of the failed allocation, as it does for a data packet.
         */
        default void controlRefused(int kind, long now) {
        }
    }

    /** Control packets a NIC holds for sending at most (more are dropped, counted). */
    public static final int CONTROL_QUEUE = 64;

    private static final int PORT = 1;
    private final int vls;
    private final int depth;
    private final PortCounterArray counters;
    private final PacketPool pool;
    private final Output out;
    private final int[] ring;
    private final int[] head;
    private final int[] count;
    /** Credits (blocks, {@link CreditBlocks}) per lane towards the switch. */
    private final int[] credits;
    private final CreditBlocks blocks;
    /** The switch's buffer per lane, in blocks: the credits when none is in use. */
    private int creditCap;
    private boolean busy;
    private boolean active;
    private int nextLane;
    private long waitingSince = -1;
    private final CongestionControl cc;
    private final int[] control;
    private int controlHead;
    private int controlCount;
    /** {@link #firstReady}'s second answer: the soonest a waiting lane's packet may go. */
    private long earliest;
    /** The earliest wake-up asked of the driver and not yet come ({@link Long#MAX_VALUE}: none). */
    private long wakeAt = Long.MAX_VALUE;
    // ACK coalescing, per source LID side by side (grown when a higher LID shows up):
    /** Data packets received and not yet acknowledged. */
    private static final int PENDING = 0;
    /** The newest pending packet's NIC send time. */
    private static final int NEWEST_SENT = 1;
    /** When the newest pending packet arrived. */
    private static final int NEWEST_ARRIVED = 2;
    /** The newest pending packet's destination LID (this host's) in the low 32 bits, its flow field in the high. */
    private static final int NEWEST_IDS = 3;
    /** 1 while the source is in the timer FIFO. */
    private static final int TIMED = 4;
    private static final int ACK_STRIDE = 5;
    private long[] pending = new long[0];
    /** The timers: source LIDs and their expiries, a ring. */
    private int[] timerLid = new int[0];
    private long[] timerAt = new long[0];
    private int timerHead;
    private int timerCount;
    /**
     * Responses to this NIC's packets on their way back: a binary heap by return time, two longs
     * an entry side by side (the return time; the round trip, return less NIC send, with the
     * packet's hops, links between switches, above bit {@link #HOPS_SHIFT}); grown, never per packet
     * in steady state.
     */
    private long[] responseHeap = new long[32];
    private static final int HOPS_SHIFT = 48;
    private int responses;
    /**
     * The heap's earliest return time ({@link Long#MAX_VALUE}: none held), kept beside the core's
     * other fields: {@link #settle} runs at every entry point and with it reads only this line, not
     * the heap's (a cache miss per event at a thousand hosts, docs/benchmarks.md).
     */
    private long nextResponse = Long.MAX_VALUE;
    /** The earliest return asked of the driver ({@link Output#responseDueAt}) and not yet come ({@link Long#MAX_VALUE}: none). */
    private long responseWake = Long.MAX_VALUE;

    /** Without congestion control. */
    public HostCore(int vls, int sendQueuePackets, PortCounterArray counters, PacketPool pool, Output out) {
        this(vls, sendQueuePackets, counters, pool, out, null);
    }

    /** With congestion control {@code cc} (null: none), packet-counted credits ({@link CreditBlocks#PACKETS}). */
    public HostCore(int vls, int sendQueuePackets, PortCounterArray counters, PacketPool pool, Output out, CongestionControl cc) {
        this(vls, sendQueuePackets, CreditBlocks.PACKETS, counters, pool, out, cc);
    }

    /** With congestion control {@code cc} (null: none), credits counted in {@code blocks}. */
    public HostCore(int vls, int sendQueuePackets, CreditBlocks blocks, PortCounterArray counters, PacketPool pool, Output out,
                    CongestionControl cc) {
        this.blocks = Objects.requireNonNull(blocks, "blocks");
        this.cc = cc;
        this.control = new int[cc == null ? 0 : CONTROL_QUEUE];
        this.vls = vls;
        this.depth = sendQueuePackets;
        this.counters = counters;
        this.pool = pool;
        this.out = out;
        ring = new int[vls * sendQueuePackets];
        head = new int[vls];
        count = new int[vls];
        credits = new int[vls];
    }

    /** True if lane {@code vl}'s send queue has room for another packet. */
    public boolean canOffer(int vl) {
        return count[vl] < depth;
    }

    /**
     * Queues packet {@code h} (lane in {@code pool.vl(h)}) for sending.
     *
     * @return false, leaving the handle with the caller, if the lane's queue is full
     */
    public boolean offer(int h, long now) {
        settle(now);
        int vl = pool.vl(h);
        if (count[vl] == depth) {
            return false;
        }
        int tail = head[vl] + count[vl];
        ring[vl * depth + (tail < depth ? tail : tail - depth)] = h;
        count[vl]++;
        send(now);
        return true;
    }

    /** The link is up; the switch's input buffers give {@code peerBufferPackets} slots per lane, their blocks in credits. */
    public void portActive(int peerBufferPackets, long now) {
        settle(now);
        active = true;
        busy = false;
        creditCap = blocks.capacity(peerBufferPackets);
        Arrays.fill(credits, creditCap);
        send(now);
    }

    /** The link went down: queued packets wait (the source is told by {@link #canOffer}). */
    public void portDown(long now) {
        endWait(now);
        active = false;
        Arrays.fill(credits, 0);
    }

    public void packetArrived(int h, long now) {
        settle(now);
        counters.add(PORT, PortCounterArray.RCV_PKTS, 1);
        counters.add(PORT, PortCounterArray.RCV_DATA, pool.bytes(h));
        int kind = pool.kind(h);
        if (kind == PacketPool.DATA) {
            out.respond(h, now); // its sender's latency sample, when the response is back (a control packet has none)
        }
        int vl = pool.vl(h);
        out.returnCredit(vl, blocks.cost(pool, h), now);
        if (cc == null) {
            out.delivered(h, now);
            return;
        }
        if (kind == PacketPool.DATA) {
            int reply = cc.reply(pool.slid(h), (pool.cc(h) & PacketPool.CE) != 0, now);
            if (reply == PacketPool.ACK && cc.ackEvery() > 1) {
                coalesce(h, now);
            } else if (reply != CongestionControl.NO_REPLY) {
                reply(pool.slid(h), pool.dlid(h), pool.flow(h), 1, pool.sent(h), reply, now);
            }
            out.delivered(h, now);
        } else {
            if (kind == PacketPool.ACK) {
                counters.addNode(PortCounterArray.NIC_ACKS_RECEIVED);
                cc.acked(pool.slid(h), now - pool.timestamp(h), pool.hops(h), pool.seq(h), now);
            } else {
                counters.addNode(PortCounterArray.NIC_CNPS_RECEIVED);
                cc.notified(pool.slid(h), now);
            }
            out.controlConsumed(h, now);
        }
        send(now);
    }

    /**
     * Queues a control packet of {@code kind} to {@code dlid} from {@code slid} (this host's LID)
     * for {@code packets} data packets of {@code flow}, its timestamp {@code echo} (the newest one's
     * NIC send time, plus any time the ACK was held).
     *
     * @return false if the control queue or the pool had no room (counted as dropped)
     */
    private boolean reply(int dlid, int slid, int flow, int packets, long echo, int kind, long now) {
        if (controlCount == control.length) {
            counters.addNode(PortCounterArray.NIC_CONTROL_DROPPED);
            return false;
        }
        int h = pool.allocate();
        if (h == PacketPool.NONE) {
            counters.addNode(PortCounterArray.NIC_CONTROL_DROPPED);
            out.controlRefused(kind, now);
            return false;
        }
        pool.dlid(h, dlid);
        pool.slid(h, slid);
        pool.flow(h, flow);
        pool.seq(h, packets);
        pool.bytes(h, FrameSizes.DATA_HEADER);
        pool.timestamp(h, echo);
        pool.cc(h, kind);
        out.controlMade(h, now);
        int tail = controlHead + controlCount;
        control[tail < control.length ? tail : tail - control.length] = h;
        controlCount++;
        return true;
    }

    /** Counts data packet {@code h} towards its source's next ACK, sending it when {@code ack_every} are pending. */
    private void coalesce(int h, long now) {
        int src = pool.slid(h);
        int b = src * ACK_STRIDE;
        if (b >= pending.length) {
            pending = Arrays.copyOf(pending, Math.max(b + ACK_STRIDE, pending.length * 2));
        }
        pending[b + PENDING]++;
        pending[b + NEWEST_SENT] = pool.sent(h);
        pending[b + NEWEST_ARRIVED] = now;
        pending[b + NEWEST_IDS] = (long) pool.flow(h) << 32 | pool.dlid(h) & 0xFFFFFFFFL;
        if (pending[b + PENDING] >= cc.ackEvery()) {
            acknowledge(src, now);
        } else if (pending[b + TIMED] == 0) {
            startTimer(src, now + cc.ackDelayNs());
        }
    }

    /** Sends source {@code src}'s ACK for its pending packets; if the control queue is full they stay pending. */
    private void acknowledge(int src, long now) {
        int b = src * ACK_STRIDE;
        long ids = pending[b + NEWEST_IDS];
        long held = now - pending[b + NEWEST_ARRIVED];
        if (reply(src, (int) ids, (int) (ids >>> 32), (int) pending[b + PENDING], pending[b + NEWEST_SENT] + held, PacketPool.ACK, now)) {
            pending[b + PENDING] = 0;
        } else if (pending[b + TIMED] == 0) {
            startTimer(src, now + cc.ackDelayNs()); // try again then, or with the next packet
        }
    }

    /** Puts source {@code src} in the timer FIFO, expiring {@code at} (never earlier than those in it: the delay is one). */
    private void startTimer(int src, long at) {
        if (timerCount == timerLid.length) {
            int n = Math.max(16, 2 * timerLid.length);
            int[] lids = new int[n];
            long[] ats = new long[n];
            for (int k = 0; k < timerCount; k++) {
                int i = timerHead + k < timerLid.length ? timerHead + k : timerHead + k - timerLid.length;
                lids[k] = timerLid[i];
                ats[k] = timerAt[i];
            }
            timerLid = lids;
            timerAt = ats;
            timerHead = 0;
        }
        int tail = timerHead + timerCount;
        tail = tail < timerLid.length ? tail : tail - timerLid.length;
        timerLid[tail] = src;
        timerAt[tail] = at;
        timerCount++;
        pending[src * ACK_STRIDE + TIMED] = 1;
        if (timerCount == 1) {
            wakeAt(at);
        }
    }

    /** Acknowledges the pending packets of every source whose timer expired by {@code now}; asks to wake for the next one. */
    private void expireTimers(long now) {
        while (timerCount > 0 && timerAt[timerHead] <= now) {
            int src = timerLid[timerHead];
            timerHead = timerHead + 1 == timerLid.length ? 0 : timerHead + 1;
            timerCount--;
            pending[src * ACK_STRIDE + TIMED] = 0;
            if (pending[src * ACK_STRIDE + PENDING] > 0) {
                acknowledge(src, now);
            }
        }
        if (timerCount > 0) {
            wakeAt(timerAt[timerHead]);
        }
    }

    /** The time asked by {@link Output#wakeAt} came: paced flows may send, expired ACK timers fire. */
    public void wake(long now) {
        settle(now);
        if (now >= wakeAt) {
            wakeAt = Long.MAX_VALUE;
        }
        if (timerCount > 0) {
            expireTimers(now);
        }
        send(now);
    }

    /** Asks the driver to wake the core at {@code at}, unless it already will by then. */
    private void wakeAt(long at) {
        if (at < wakeAt) {
            wakeAt = at;
            out.wakeAt(at);
        }
    }

    /** Data packets from source {@code slid} received and not yet acknowledged (ACK coalescing; 0 without). */
    public int ackPending(int slid) {
        int b = slid * ACK_STRIDE;
        return b < pending.length ? (int) pending[b + PENDING] : 0;
    }

    /** The core's congestion control, or null. */
    public CongestionControl congestionControl() {
        return cc;
    }

    /** {@code n} credits (blocks) for lane {@code vl} came back from the switch; a driver reading them from a wire checks them first ({@link #refusedCredit}). */
    public void creditReturned(int vl, int n, long now) {
        settle(now);
        credits[vl] += n;
        send(now);
    }

    /** Why {@code n} credits for lane {@code vl} cannot be taken (a lane this NIC has not, a count below 1, more than the switch's buffer), or null. */
    public String refusedCredit(int vl, int n) {
        if (vl < 0 || vl >= vls) {
            return "credits for lane " + vl + ", which this NIC has not (lanes 0.." + (vls - 1) + ")";
        }
        long after = (long) credits[vl] + n;
        if (n < 1 || after > creditCap) {
            return n + " credits for lane " + vl + " would make " + after + " blocks, more than the switch's buffer of " + creditCap
                    + " (" + blocks.slotBlocks() + " blocks a packet), or a count below 1";
        }
        return null;
    }

    /** Credits (blocks) held for lane {@code vl}. */
    public int credits(int vl) {
        return credits[vl];
    }

    public void linkFree(long now) {
        settle(now);
        busy = false;
        send(now);
    }

    /**
     * The response to one of this NIC's data packets, sent (put on the wire) at {@code sentAt} and
     * delivered after {@code hops} links between switches, comes back at {@code at} ({@link
     * Output#respond}: its receiver's driver calls this at the packet's delivery): its round trip,
     * {@code at - sentAt}, is counted at {@code at} ({@link PortCounterArray#NIC_LATENCY_PACKETS}
     * and the two after it), at once if that has come.
     */
    public void responseReturns(long sentAt, int hops, long at, long now) {
        long rtt = at - sentAt;
        if (at <= now) {
            NicCounters.countRoundTrip(counters, rtt, hops);
            return;
        }
        long[] heap = responseHeap;
        if (2 * responses == heap.length) {
            heap = responseHeap = Arrays.copyOf(heap, 2 * heap.length);
        }
        int i = responses++;
        while (i > 0 && heap[2 * ((i - 1) / 2)] > at) { // sift up
            int parent = (i - 1) / 2;
            heap[2 * i] = heap[2 * parent];
            heap[2 * i + 1] = heap[2 * parent + 1];
            i = parent;
        }
        heap[2 * i] = at;
        heap[2 * i + 1] = rtt | (long) hops << HOPS_SHIFT;
        nextResponse = Math.min(nextResponse, at);
        if (at < responseWake) {
            responseWake = at;
            out.responseDueAt(at);
        }
    }

    /**
     * Counts the responses come back by {@code now}. Every entry point of the core settles first;
     * a reader of the counters between the core's events (the simulator's {@link AppAwareRouting},
     * asked as a packet leaves the source queue) settles before it reads.
     */
    public void settle(long now) {
        if (nextResponse > now) {
            return;
        }
        long[] heap = responseHeap;
        while (responses > 0 && heap[0] <= now) {
            NicCounters.countRoundTrip(counters, heap[1] & (1L << HOPS_SHIFT) - 1, (int) (heap[1] >>> HOPS_SHIFT));
            int last = --responses;
            long at = heap[2 * last];
            long rest = heap[2 * last + 1];
            int i = 0;
            while (2 * i + 1 < responses) { // sift the last one down from the root
                int child = 2 * i + 1;
                if (child + 1 < responses && heap[2 * child + 2] < heap[2 * child]) {
                    child++;
                }
                if (heap[2 * child] >= at) {
                    break;
                }
                heap[2 * i] = heap[2 * child];
                heap[2 * i + 1] = heap[2 * child + 1];
                i = child;
            }
            heap[2 * i] = at;
            heap[2 * i + 1] = rest;
        }
        nextResponse = responses > 0 ? heap[0] : Long.MAX_VALUE;
        if (responseWake <= now) {
            responseWake = Long.MAX_VALUE;
        }
        if (responses > 0 && heap[0] < responseWake) {
            responseWake = heap[0];
            out.responseDueAt(responseWake);
        }
    }

    /** Responses on their way back, not yet counted. */
    public int responsesPending() {
        return responses;
    }

    private void send(long now) {
        if (busy || !active) {
            return;
        }
        if (controlCount > 0) {
            int h = control[controlHead];
            int vl = pool.vl(h);
            if (credits[vl] >= blocks.cost(pool, h)) {
                endWait(now);
                controlHead = controlHead + 1 == control.length ? 0 : controlHead + 1;
                controlCount--;
                counters.addNode(PortCounterArray.NIC_CONTROL_SENT);
                transmit(vl, h, now);
                return;
            }
        }
        boolean waiting = false;
        long paced = Long.MAX_VALUE;
        for (int k = 0; k < vls; k++) {
            int vl = nextLane + k < vls ? nextLane + k : nextLane + k - vls;
            if (count[vl] == 0) {
                continue;
            }
            if (credits[vl] < blocks.cost(pool, ring[vl * depth + head[vl]])) {
                waiting = true;
                continue;
            }
            int h;
            if (cc == null) {
                h = ring[vl * depth + head[vl]];
            } else {
                int i = firstReady(vl, now);
                if (i < 0) {
                    paced = Math.min(paced, earliest);
                    continue;
                }
                h = toHead(vl, i);
                if (credits[vl] < blocks.cost(pool, h)) { // larger than the head: it waits for its blocks
                    waiting = true;
                    continue;
                }
                cc.sent(pool.dlid(h), pool.bytes(h), now);
                pool.cc(h, pool.cc(h) | PacketPool.ECT);
            }
            endWait(now);
            head[vl] = head[vl] + 1 == depth ? 0 : head[vl] + 1;
            count[vl]--;
            nextLane = vl + 1 == vls ? 0 : vl + 1;
            counters.addNode(PortCounterArray.NIC_REQUEST_FLITS, NicCounters.flits(pool.bytes(h)));
            transmit(vl, h, now);
            return;
        }
        if (!waiting) {
            endWait(now);
        } else if (waitingSince < 0) {
            waitingSince = now;
        }
        if (paced != CongestionControl.WAIT) {
            wakeAt(paced);
        }
    }

    /**
     * The position in lane {@code vl}'s queue (0: its head) of the first packet whose flow may send
     * at {@code now}, or -1 with {@link #earliest} the soonest any of them may ({@link
     * CongestionControl#WAIT}: none before an acknowledgement). The packets of a flow share its
     * answer, so taking the first ready one keeps each flow's order.
     */
    private int firstReady(int vl, long now) {
        earliest = CongestionControl.WAIT;
        for (int k = 0; k < count[vl]; k++) {
            long at = cc.sendAt(pool.dlid(ring[slotOf(vl, k)]), now);
            if (at <= now) {
                return k;
            }
            earliest = Math.min(earliest, at);
        }
        return -1;
    }

    /** Moves the packet at position {@code i} of lane {@code vl}'s queue to its head, the ones before it one back; returns it. */
    private int toHead(int vl, int i) {
        int h = ring[slotOf(vl, i)];
        for (int k = i; k > 0; k--) {
            ring[slotOf(vl, k)] = ring[slotOf(vl, k - 1)];
        }
        ring[slotOf(vl, 0)] = h;
        return h;
    }

    /** The ring index of position {@code k} (0: the head) of lane {@code vl}'s queue. */
    private int slotOf(int vl, int k) {
        int i = head[vl] + k;
        return vl * depth + (i < depth ? i : i - depth);
    }

    /** Puts packet {@code h} on the wire on lane {@code vl}, stamping its NIC send time. */
    private void transmit(int vl, int h, long now) {
        credits[vl] -= blocks.cost(pool, h);
        busy = true;
        pool.sent(h, now);
        counters.add(PORT, PortCounterArray.XMIT_PKTS, 1);
        counters.add(PORT, PortCounterArray.XMIT_DATA, pool.bytes(h));
        out.transmit(vl, h, now);
    }

    /** Ends a credit wait, if one runs, adding its length to XmitWait. */
    private void endWait(long now) {
        if (waitingSince >= 0) {
            counters.add(PORT, PortCounterArray.XMIT_WAIT_NS, now - waitingSince);
            waitingSince = -1;
        }
    }
}
