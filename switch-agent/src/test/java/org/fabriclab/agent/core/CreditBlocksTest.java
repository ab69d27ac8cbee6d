package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabriclab.agent.core.PortCounterArray.DiscardReason;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Credits counted in 64-byte blocks ({@link CreditBlocks}): a buffer of N packets is N of the run's
 * largest packet, a header-only ACK takes one block of it, so a lane full of ACKs still admits a
 * data packet; credits go back in blocks; a count over the peer's buffer is refused and changes
 * nothing; a run whose packets are all one size counts as packet-counted credits did.
 */
class CreditBlocksTest {
    private static final int PORTS = 4;
    /** A 4096-byte payload's frame: 65 blocks. */
    private static final int DATA = FrameSizes.DATA_HEADER + FrameSizes.MAX_PAYLOAD;
    private static final int ACK = FrameSizes.DATA_HEADER;
    private final List<String> credits = new ArrayList<>();
    private final List<Integer> sentFlows = new ArrayList<>();
    private final List<Integer> markedFlows = new ArrayList<>();
    private PortCounterArray counters;
    private PacketPool pool;
    private TableStore tables;
    private SwitchCore.Output output;
    private SwitchCore core;

    @BeforeEach
    void setUp() throws Exception {
        tables = new TableStore(PORTS);
        counters = new PortCounterArray(PORTS);
        pool = new PacketPool(8, 1024);
        // a two-packet input buffer per lane: 130 blocks of 4133-byte packets
        output = new SwitchCore.Output() {
            @Override
            public void transmit(int port, int vl, int h, long now) {
                sentFlows.add(pool.flow(h));
                if ((pool.cc(h) & PacketPool.CE) != 0) {
                    markedFlows.add(pool.flow(h));
                }
                pool.release(h);
            }

            @Override
            public void returnCredit(int port, int vl, int blocks, long now) {
                credits.add(port + "/" + vl + " x" + blocks);
            }

            @Override
            public void qFeedback(int port, int row, float value, long now) {
            }

            @Override
            public void discarded(int h, int inPort, long now) {
                pool.release(h);
            }
        };
        core = new SwitchCore(PORTS, 2, 2, 0, CreditBlocks.of(DATA, ACK), tables, counters, pool, output);
        byte[] block = new byte[64];
        Arrays.fill(block, (byte) 0xFF);
        block[10] = 3; // LID 10 -> port 3
        tables.apply(new TableBatch(0, 1, List.of(new TableBatch.Block(0, block)), 12, List.of()));
        for (int p = 1; p <= PORTS; p++) {
            core.portActive(p, 4, 0);
        }
    }

    private int packet(int flow, int bytes) {
        int h = pool.allocate();
        pool.dlid(h, 10);
        pool.flow(h, flow);
        pool.vl(h, (byte) 0);
        pool.bytes(h, bytes);
        return h;
    }

    @Test
    void blocksOfAPacket() {
        CreditBlocks b = CreditBlocks.of(DATA, ACK);
        assertEquals(65, b.slotBlocks());
        assertEquals(1, b.leastBlocks());
        assertEquals(1, b.cost(37));
        assertEquals(1, b.cost(64));
        assertEquals(2, b.cost(65));
        assertEquals(65, b.cost(DATA));
        assertEquals(65, b.cost(1 << 20), "a packet larger than the declared largest takes one slot");
        assertEquals(8 * 65, b.mostPackets(8));
        assertEquals(1, CreditBlocks.PACKETS.cost(DATA), "packet-counted: every packet one credit");
        assertEquals(CreditBlocks.PACKETS, CreditBlocks.of(128, 128), "one size: a credit is a slot, as before");
        assertEquals(20, CreditBlocks.of(128, 128).mostPackets(20));
        CreditBlocks small = CreditBlocks.of(128, 37);
        assertEquals(2, small.slotBlocks());
        assertEquals(40, small.mostPackets(20));
        assertEquals(1, small.slots(1));
        assertEquals(3, small.slots(5));
        assertThrows(IllegalArgumentException.class, () -> new CreditBlocks(2, 3));
    }

    /**
     * The output's link is busy, so what arrives waits in input 1's lane 0: 64 ACKs take 64 of its
     * 130 blocks, and a data packet (65 blocks) still fits, then one more ACK; the ACK after that
     * overflows. Packet-counted, the lane's two slots would have taken two ACKs and nothing more.
     */
    @Test
    void aLaneHoldsManyAcksAndStillAdmitsADataPacket() {
        core.packetArrived(1, packet(0, DATA), 0); // sent at once: the link is busy from now on
        assertEquals(List.of(0), sentFlows);
        for (int i = 1; i <= 64; i++) {
            core.packetArrived(1, packet(i, ACK), 0);
        }
        core.packetArrived(1, packet(65, DATA), 0);
        core.packetArrived(1, packet(66, ACK), 0);
        assertEquals(66, core.queued(1, 0));
        assertEquals(130, core.queuedBlocks(1, 0));
        assertEquals(0, counters.discards(1, DiscardReason.OVERFLOW));
        core.packetArrived(1, packet(67, ACK), 0);
        assertEquals(1, counters.discards(1, DiscardReason.OVERFLOW), "the 131st block has no room");
        assertEquals(66, core.queued(1, 0));

        // the peer's buffer on port 3 is 4 slots of 65 blocks; the first data packet took 65
        assertEquals(4 * 65 - 65, core.credits(3, 0));
        for (int t = 1; t <= 66; t++) {
            core.linkFree(3, t);
        }
        List<Integer> expected = new ArrayList<>();
        for (int i = 0; i <= 66; i++) {
            expected.add(i);
        }
        assertEquals(expected, sentFlows, "in order, through rings grown past their two slots");
        assertEquals(0, core.queuedBlocks(1, 0));
        assertEquals("1/0 x65", credits.get(0), "a data packet's credits: its blocks");
        assertEquals("1/0 x1", credits.get(1), "an ACK's: one block");
        assertEquals(67, credits.size());
        assertEquals(130 + 65, credits.stream().mapToInt(c -> Integer.parseInt(c.substring(c.indexOf('x') + 1))).sum());
        // what was sent on port 3: two data packets and 65 ACKs, none of it credited back yet
        assertEquals(4 * 65 - 2 * 65 - 65, core.credits(3, 0));
    }

    /**
     * An input-queued core's ECN marking reads its output's queue in bytes, each packet at its own
     * size: a small ECN-capable packet leaving ahead of a data packet sees the data packet's bytes
     * (counted at its own size, the two made a queue of 200 bytes and it went unmarked).
     */
    @Test
    void aSmallPacketLeavingAheadOfDataSeesTheDataPacketsBytes() {
        core.ecn(new EcnMarking(1_000, 2_000, 1), 1); // over 2,000 bytes: marked; 1,000 or under: never
        core.packetArrived(2, packet(0, DATA), 0); // sent at once, not ECN-capable: the link is busy from now on
        core.packetArrived(1, ect(packet(1, 100)), 0);
        core.packetArrived(1, packet(2, DATA), 0);
        core.linkFree(3, 1);
        assertEquals(List.of(0, 1), sentFlows);
        assertEquals(List.of(1), markedFlows, "100 bytes of its own and 4,133 behind it: over 2,000");
        core.linkFree(3, 2);
        assertEquals(List.of(0, 1, 2), sentFlows);
        assertEquals(1, counters.getNode(PortCounterArray.ECN_MARKED));
    }

    /**
     * And a data packet leaving ahead of ACKs sees their headers, not ten more data packets
     * (counted at its size, the ten ACKs made a queue of 45 KB and it was marked).
     */
    @Test
    void aDataPacketLeavingAheadOfAcksSeesTheirHeadersOnly() {
        core.ecn(new EcnMarking(5_000, 6_000, 1), 1);
        core.packetArrived(2, packet(0, DATA), 0); // the link is busy from now on
        core.packetArrived(1, ect(packet(1, DATA)), 0);
        for (int i = 0; i < 10; i++) {
            int ack = packet(2 + i, ACK);
            pool.cc(ack, PacketPool.ACK);
            core.packetArrived(1, ack, 0);
        }
        core.linkFree(3, 1);
        assertEquals(List.of(0, 1), sentFlows);
        assertEquals(List.of(), markedFlows, "4,133 bytes and ten 37-byte ACKs: 4,503, under 5,000");
        for (int t = 2; t <= 11; t++) {
            core.linkFree(3, t);
        }
        assertEquals(12, sentFlows.size(), "every packet went");
        assertEquals(0, counters.getNode(PortCounterArray.ECN_MARKED));
    }

    /**
     * An input-output queued core's ECN marking reads its output's bytes: the packets a link that
     * went down discarded from its output buffers leave them (they stayed counted, and every
     * ECN-capable packet through the port marked by a queue no longer there, once it came back).
     */
    @Test
    void packetsDiscardedFromADeadLinksOutputBuffersLeaveItsQueue() {
        SwitchCore oq = new SwitchCore(PORTS, 2, 2, 4, CreditBlocks.of(DATA, ACK), tables, counters, pool, output);
        for (int p = 1; p <= PORTS; p++) {
            oq.portActive(p, 4, 0);
        }
        oq.ecn(new EcnMarking(1_000, 2_000, 1), 1); // over 2,000 bytes: marked; 1,000 or under: never
        oq.packetArrived(2, packet(0, DATA), 0); // sent at once: the link is busy from now on
        oq.packetArrived(1, packet(1, DATA), 0);
        oq.packetArrived(1, packet(2, DATA), 0); // both wait in port 3's output buffer: 8,266 bytes
        int inUse = pool.inUse();
        oq.portDown(3, 10);
        assertEquals(inUse - 2, pool.inUse(), "the two waiting packets discarded");
        oq.portActive(3, 4, 20);
        oq.packetArrived(1, ect(packet(3, 100)), 30);
        assertEquals(List.of(0, 3), sentFlows);
        assertEquals(List.of(), markedFlows, "an empty output, 100 bytes of its own: under 1,000");
        assertEquals(0, counters.getNode(PortCounterArray.ECN_MARKED));
    }

    private int ect(int h) {
        pool.cc(h, PacketPool.ECT);
        return h;
    }

    /** Credits beyond the peer's buffer (a peer that counts otherwise, a corrupt count) are refused with the reason, and nothing changes. */
    @Test
    void aCountOverTheLanesCapIsRefusedAndLeavesTheCreditsAsTheyWere() {
        assertEquals(260, core.credits(3, 0));
        String why = core.refusedCredit(3, 0, 1);
        assertNotNull(why);
        assertTrue(why.contains("more than the peer's buffer of 260") && why.contains("4 packets of 65 blocks"), why);
        assertNotNull(core.refusedCredit(3, 0, 0), "a count below one");
        assertNotNull(core.refusedCredit(3, 2, 1), "a lane the switch has not");
        assertNotNull(core.refusedCredit(9, 0, 1), "a port the switch has not");
        assertEquals(260, core.credits(3, 0), "asking changed nothing");
        core.packetArrived(1, packet(0, DATA), 0);
        assertEquals(195, core.credits(3, 0));
        assertNull(core.refusedCredit(3, 0, 65));
        assertNotNull(core.refusedCredit(3, 0, 66));
        core.creditReturned(3, 0, 65, 1);
        assertEquals(260, core.credits(3, 0));
    }

    /** The NIC: an ACK needs a block of credit, a data packet its 65; credits over the switch's buffer are refused. */
    @Test
    void theNicSendsByBlocksAndRefusesCreditsOverTheSwitchsBuffer() {
        NicCountersTest.Nic driver = new NicCountersTest.Nic(pool, CreditBlocks.of(DATA, ACK));
        HostCore nic = driver.core;
        List<Integer> sent = driver.sent;
        nic.portActive(1, 0); // one slot: 65 blocks
        assertEquals(65, nic.credits(0));
        int h = packet(1, DATA);
        nic.offer(h, 0);
        assertEquals(List.of(h), sent);
        assertEquals(0, nic.credits(0));
        nic.linkFree(1);
        nic.offer(packet(2, DATA), 1);
        assertEquals(1, sent.size(), "no blocks left: the second waits");
        assertNotNull(nic.refusedCredit(0, 66));
        assertEquals(0, nic.credits(0), "refused: unchanged");
        nic.creditReturned(0, 64, 2);
        assertEquals(1, sent.size(), "64 blocks are not a 65-block packet's room");
        nic.creditReturned(0, 1, 3);
        assertEquals(2, sent.size());
    }
}
