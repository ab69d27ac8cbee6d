package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A NIC's counters as {@link HostCore} keeps them (issue 19, Aries' counters): flits by the frame's
 * size (one header flit, 16-byte payload flits), the time a ready packet waited for a credit as
 * stalled cycles, and its own packets' round trips, counted as their responses come back.
 */
class NicCountersTest {
    @Test
    void framesAreOneHeaderFlitAndSixteenBytePayloadFlits() {
        assertEquals(1, NicCounters.flits(FrameSizes.DATA_HEADER));
        assertEquals(2, NicCounters.flits(FrameSizes.DATA_HEADER + 1));
        assertEquals(2, NicCounters.flits(FrameSizes.DATA_HEADER + 16));
        assertEquals(5, NicCounters.flits(FrameSizes.DATA_HEADER + 64), "Aries' PUT: a header flit and four payload flits");
        assertEquals(7, NicCounters.flits(128), "the Q-adaptive paper's 128-byte packet: 91 bytes of payload");
        assertEquals(1500, NicCounters.cycles(1500), "1 GHz: a cycle a nanosecond");
    }

    /** A NIC driven by hand: what it transmits, and what it answers (the responses its driver would carry back). */
    static final class Nic implements HostCore.Output {
        final PortCounterArray counters = new PortCounterArray(1);
        final HostCore core;
        final List<Integer> sent = new ArrayList<>();
        final List<Integer> answered = new ArrayList<>();
        final List<Long> dueAt = new ArrayList<>();
        private final PacketPool pool;

        Nic(PacketPool pool) {
            this(pool, CreditBlocks.PACKETS);
        }

        /** With credits counted in {@code blocks}. */
        Nic(PacketPool pool, CreditBlocks blocks) {
            this.pool = pool;
            core = new HostCore(1, 4, blocks, counters, pool, this, null);
        }

        @Override
        public void transmit(int vl, int h, long now) {
            sent.add(h);
        }

        @Override
        public void returnCredit(int vl, int blocks, long now) {
        }

        @Override
        public void delivered(int h, long now) {
        }

        @Override
        public void respond(int h, long now) {
            answered.add(h);
        }

        @Override
        public void responseDueAt(long at) {
            dueAt.add(at);
        }

        @Override
        public void controlMade(int h, long now) {
            throw new AssertionError("a NIC without congestion control makes no control packet");
        }

        @Override
        public void controlConsumed(int h, long now) {
            throw new AssertionError("a NIC without congestion control consumes no control packet");
        }

        @Override
        public void wakeAt(long at) {
            throw new AssertionError("a NIC without congestion control paces nothing");
        }
    }

    @Test
    void theNicCountsFlitsSentAndStalls() {
        PacketPool pool = new PacketPool(8);
        Nic nic = new Nic(pool);
        nic.core.portActive(0, 0); // no credit yet
        int h = pool.allocate();
        pool.vl(h, 0);
        pool.bytes(h, 128);
        nic.core.offer(h, 100); // ready at 100, stalled until a credit comes at 400
        nic.core.creditReturned(0, 1, 400);
        assertEquals(List.of(h), nic.sent);
        assertEquals(400, pool.sent(h), "stamped with its NIC send");
        assertEquals(7, nic.counters.getNode(PortCounterArray.NIC_REQUEST_FLITS));
        assertEquals(300, NicCounters.cycles(nic.counters.get(1, PortCounterArray.XMIT_WAIT_NS)), "stalled from 100 to 400 ns");
    }

    /**
     * Aries' latency counter is the round trip of the NIC's own requests: a host that only receives
     * samples nothing (it answers each packet); the sender counts each of its packets' NIC send to
     * its response's return, with its hops, when the response is back and not before.
     */
    @Test
    void theLatencyCounterIsTheSendersOwnPacketsRoundTripCountedWhenTheResponseIsBack() {
        PacketPool pool = new PacketPool(8);
        Nic sender = new Nic(pool);
        Nic receiver = new Nic(pool);
        sender.core.portActive(4, 0);
        receiver.core.portActive(4, 0);
        int h = pool.allocate();
        pool.vl(h, 0);
        pool.bytes(h, 128);
        pool.timestamp(h, 500); // created at 500, on the wire at 1,000: the source queue is not the network's
        sender.core.offer(h, 1_000);
        assertEquals(List.of(h), sender.sent);
        pool.hops(h, 4); // through four switches: three links between them
        receiver.core.packetArrived(h, 3_500); // one way: 2,500 ns
        assertEquals(List.of(h), receiver.answered, "every data packet is answered");
        assertEquals(0, receiver.counters.getNode(PortCounterArray.NIC_LATENCY_PACKETS), "the receiver samples nothing of others' packets");
        assertEquals(0, receiver.counters.getNode(PortCounterArray.NIC_LATENCY_NS));
        assertEquals(0, receiver.counters.getNode(PortCounterArray.NIC_RECEIVED_HOPS));

        // the driver brings the response back after its time through the empty fabric, 700 ns
        sender.core.responseReturns(pool.sent(h), Math.max(0, pool.hops(h) - 1), 3_500 + 700, 3_500);
        assertEquals(List.of(4_200L), sender.dueAt, "the driver is told when it is due");
        assertEquals(1, sender.core.responsesPending());
        sender.core.settle(4_199);
        assertEquals(0, sender.counters.getNode(PortCounterArray.NIC_LATENCY_PACKETS), "not before the response is back");
        sender.core.creditReturned(0, 1, 4_200); // any event from then on counts it
        assertEquals(0, sender.core.responsesPending());
        assertEquals(1, sender.counters.getNode(PortCounterArray.NIC_LATENCY_PACKETS));
        assertEquals(2_500 + 700, sender.counters.getNode(PortCounterArray.NIC_LATENCY_NS), "NIC send to the response's return");
        assertEquals(3, sender.counters.getNode(PortCounterArray.NIC_RECEIVED_HOPS), "links between switches, as the simulator's meanHops");
    }

    /** Responses come back in the order of their return, whatever the order of the deliveries that sent them. */
    @Test
    void responsesAreCountedInTheOrderTheyComeBack() {
        PacketPool pool = new PacketPool(8);
        Nic sender = new Nic(pool);
        sender.core.portActive(4, 0);
        long[] at = {9_000, 5_000, 7_000, 6_000, 8_000, 5_500};
        for (int i = 0; i < at.length; i++) {
            sender.core.responseReturns(1_000, 1, at[i], 2_000 + i);
        }
        assertEquals(List.of(9_000L, 5_000L), sender.dueAt, "asked again only for an earlier one");
        long[] expected = {0, 1, 2, 3, 4, 5, 6};
        long[] times = {4_999, 5_000, 5_500, 6_000, 7_000, 8_000, 9_000};
        for (int k = 0; k < times.length; k++) {
            sender.core.settle(times[k]);
            assertEquals(expected[k], sender.counters.getNode(PortCounterArray.NIC_LATENCY_PACKETS), "at " + times[k]);
        }
        assertEquals(5_000 + 5_500 + 6_000 + 7_000 + 8_000 + 9_000 - 6 * 1_000, sender.counters.getNode(PortCounterArray.NIC_LATENCY_NS));
        sender.core.responseReturns(1_000, 1, 8_000, 9_500); // back already: counted at once
        assertEquals(7, sender.counters.getNode(PortCounterArray.NIC_LATENCY_PACKETS));
    }
}
