package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A NIC's counters as {@link HostCore} keeps them (issue 19, Aries' counters): flits by the frame's
 * size (one header flit, 16-byte payload flits), the time a ready packet waited for a credit as
 * stalled cycles, and every received packet's latency from its creation.
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

    @Test
    void theNicCountsFlitsSentStallsAndEveryArrivalsLatency() {
        PortCounterArray c = new PortCounterArray(1);
        PacketPool pool = new PacketPool(8);
        List<Integer> sent = new ArrayList<>();
        HostCore nic = new HostCore(1, 4, c, pool, new HostCore.Output() {
            @Override
            public void transmit(int vl, int h, long now) {
                sent.add(h);
            }

            @Override
            public void returnCredit(int vl, long now) {
            }

            @Override
            public void delivered(int h, long now) {
                pool.release(h);
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
        });
        nic.portActive(0, 0); // no credit yet
        int h = pool.allocate();
        pool.vl(h, 0);
        pool.bytes(h, 128);
        nic.offer(h, 100); // ready at 100, stalled until a credit comes at 400
        nic.creditReturned(0, 1, 400);
        assertEquals(List.of(h), sent);
        assertEquals(7, c.getNode(PortCounterArray.NIC_REQUEST_FLITS));
        assertEquals(300, NicCounters.cycles(c.get(1, PortCounterArray.XMIT_WAIT_NS)), "stalled from 100 to 400 ns");

        int in = pool.allocate();
        pool.vl(in, 0);
        pool.bytes(in, 128);
        pool.timestamp(in, 1_000);
        pool.hops(in, 4); // through four switches: three links between them
        nic.packetArrived(in, 3_500);
        assertEquals(1, c.getNode(PortCounterArray.NIC_LATENCY_PACKETS));
        assertEquals(2_500, c.getNode(PortCounterArray.NIC_LATENCY_NS));
        assertEquals(3, c.getNode(PortCounterArray.NIC_RECEIVED_HOPS), "links between switches, as the simulator's meanHops");
    }
}
