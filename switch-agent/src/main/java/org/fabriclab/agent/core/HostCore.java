package org.fabriclab.agent.core;

import java.util.Arrays;


/**
 * The decisions of a channel adapter (a host's NIC) with one port, for both clocks: a bounded send
 * queue per VL fed by the host's traffic source, credits towards the switch, one packet on the wire
 * at a time, round-robin over lanes; received packets are delivered to the host and their buffer
 * credit returned at once (the host consumes at line rate). It counts what an Aries NIC counts
 * ({@link NicCounters}: flits sent, the credit waits as stalls, every arrival's latency). Not thread-safe; confined like
 * {@link SwitchCore}.
 */
public final class HostCore {
    /** Actions carried out by the driver. */
    public interface Output {
        /** Send packet {@code h} on lane {@code vl}; the driver owns the handle from now on. */
        void transmit(int vl, int h, long now);

        /** One buffer slot of lane {@code vl} freed: return a credit to the switch. */
        void returnCredit(int vl, long now);

        /** Packet {@code h} arrived for this host; the driver records it and releases the handle. */
        void delivered(int h, long now);
    }

    private static final int PORT = 1;
    private final int vls;
    private final int depth;
    private final PortCounterArray counters;
    private final PacketPool pool;
    private final Output out;
    private final int[] ring;
    private final int[] head;
    private final int[] count;
    private final int[] credits;
    private boolean busy;
    private boolean active;
    private int nextLane;
    private long waitingSince = -1;

    public HostCore(int vls, int sendQueuePackets, PortCounterArray counters, PacketPool pool, Output out) {
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

    /** The link is up; the switch's input buffers give {@code peerBufferPackets} credits per lane. */
    public void portActive(int peerBufferPackets, long now) {
        active = true;
        busy = false;
        Arrays.fill(credits, peerBufferPackets);
        send(now);
    }

    /** The link went down: queued packets wait (the source is told by {@link #canOffer}). */
    public void portDown(long now) {
        endWait(now);
        active = false;
        Arrays.fill(credits, 0);
    }

    public void packetArrived(int h, long now) {
        counters.add(PORT, PortCounterArray.RCV_PKTS, 1);
        counters.add(PORT, PortCounterArray.RCV_DATA, pool.bytes(h));
        counters.addNode(PortCounterArray.NIC_LATENCY_PACKETS); // the NIC's sampled latency (NicCounters): every packet
        counters.addNode(PortCounterArray.NIC_LATENCY_NS, now - pool.timestamp(h));
        int vl = pool.vl(h);
        out.returnCredit(vl, now);
        out.delivered(h, now);
    }

    public void creditReturned(int vl, int n, long now) {
        credits[vl] += n;
        send(now);
    }

    public void linkFree(long now) {
        busy = false;
        send(now);
    }

    private void send(long now) {
        if (busy || !active) {
            return;
        }
        boolean waiting = false;
        for (int k = 0; k < vls; k++) {
            int vl = nextLane + k < vls ? nextLane + k : nextLane + k - vls;
            if (count[vl] == 0) {
                continue;
            }
            if (credits[vl] == 0) {
                waiting = true;
                continue;
            }
            endWait(now);
            int h = ring[vl * depth + head[vl]];
            head[vl] = head[vl] + 1 == depth ? 0 : head[vl] + 1;
            count[vl]--;
            credits[vl]--;
            busy = true;
            nextLane = vl + 1 == vls ? 0 : vl + 1;
            counters.add(PORT, PortCounterArray.XMIT_PKTS, 1);
            counters.add(PORT, PortCounterArray.XMIT_DATA, pool.bytes(h));
            counters.addNode(PortCounterArray.NIC_REQUEST_FLITS, NicCounters.flits(pool.bytes(h)));
            out.transmit(vl, h, now);
            return;
        }
        if (!waiting) {
            endWait(now);
        } else if (waitingSince < 0) {
            waitingSince = now;
        }
    }

    /** Ends a credit wait, if one runs, adding its length to XmitWait. */
    private void endWait(long now) {
        if (waitingSince >= 0) {
            counters.add(PORT, PortCounterArray.XMIT_WAIT_NS, now - waitingSince);
            waitingSince = -1;
        }
    }
}
