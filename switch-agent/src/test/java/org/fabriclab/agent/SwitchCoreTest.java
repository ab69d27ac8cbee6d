package org.fabriclab.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.PortCounterArray.DiscardReason;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.agent.core.SwitchTables;
import org.fabriclab.agent.core.TableBatch;
import org.fabriclab.agent.core.TableStore;
import org.fabriclab.agent.core.TableWriteException;
import org.fabriclab.routing.torus.SourceRoute;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The switch core driven by hand: routing, credits, round-robin arbitration, discards, table swaps, link loss. */
class SwitchCoreTest {
    private static final int PORTS = 4;
    private final List<String> log = new ArrayList<>();
    private final List<int[]> sent = new ArrayList<>();
    private TableStore tables;
    private PortCounterArray counters;
    private PacketPool pool;
    private SwitchCore core;

    @BeforeEach
    void setUp() throws Exception {
        tables = new TableStore(PORTS);
        counters = new PortCounterArray(PORTS);
        pool = new PacketPool(64);
        core = new SwitchCore(PORTS, 2, 4, tables, counters, pool, new SwitchCore.Output() {
            @Override
            public void transmit(int port, int vl, int h, long now) {
                sent.add(new int[] {port, vl, pool.flow(h)});
                pool.release(h);
            }

            @Override
            public void returnCredit(int port, int vl, int blocks, long now) {
                log.add("credit " + port + "/" + vl);
            }

            @Override
            public void qFeedback(int port, int row, float value, long now) {
            }

            @Override
            public void discarded(int h, int inPort, long now) {
                log.add("discard flow " + pool.flow(h) + " from " + inPort);
                pool.release(h);
            }
        });
        // LID 10 -> port 3, LID 11 -> port 4, LID 12 -> no route
        byte[] block = new byte[64];
        Arrays.fill(block, (byte) 0xFF);
        block[10] = 3;
        block[11] = 4;
        tables.apply(new TableBatch(0, 1, List.of(new TableBatch.Block(0, block)), 12, List.of()));
        for (int p = 1; p <= PORTS; p++) {
            core.portActive(p, 4, 0);
        }
    }

    private int packet(int dlid, int flow, int vl) {
        int h = pool.allocate();
        pool.dlid(h, dlid);
        pool.flow(h, flow);
        pool.vl(h, (byte) vl);
        pool.bytes(h, 100);
        return h;
    }

    /** XmitWait counts only time with a packet ready and no credit: never the time a link was down. */
    @Test
    void transmitWaitEndsWhenTheLinkGoesDown() {
        for (int i = 0; i < 5; i++) {
            core.packetArrived(1, packet(10, i, 0), 0); // four credits on port 3: the fifth packet waits from t=0
            core.linkFree(3, 0);
        }
        assertEquals(0, core.credits(3, 0));
        core.portDown(3, 3_000); // 3000 ns of waiting; the waiting packet is discarded with the link
        core.portActive(3, 4, 1_000_000_000); // a second later the link is back
        core.packetArrived(1, packet(10, 9, 0), 1_000_000_100);
        assertEquals(3_000, counters.get(3, PortCounterArray.XMIT_WAIT_NS));
    }

    /**
     * The packets in a port's input buffers when its link goes down are discarded, each by its own
     * handle (the core handed on the credit blocks its buffer gave back instead: with packet-counted
     * credits, handle 1 for every one of them, released again and again).
     */
    @Test
    void packetsInADeadLinksInputBuffersAreDiscardedByTheirOwnHandles() {
        core.packetArrived(2, packet(10, 0, 0), 0); // sent at once: port 3 is busy from now on
        for (int i = 1; i <= 3; i++) {
            core.packetArrived(1, packet(10, 10 + i, 0), 0); // they wait in port 1's lane 0
        }
        int inUse = pool.inUse();
        core.portDown(1, 100);
        assertEquals(List.of("discard flow 11 from 1", "discard flow 12 from 1", "discard flow 13 from 1"),
                log.stream().filter(l -> l.startsWith("discard")).toList());
        assertEquals(inUse - 3, pool.inUse(), "their three handles back, no other");
        assertEquals(3, counters.discards(1, DiscardReason.LINK_LOST));
        core.linkFree(3, 200);
        assertEquals(1, sent.size(), "nothing else was waiting for port 3");
    }

    /**
     * A packet waiting for an output (no credit) when new tables send its LID elsewhere goes by
     * the new tables: a head routed by the old ones must not wait forever (between two switches
     * whose tables changed at different times, packets could bounce to and fro and fill both
     * buffers for good).
     */
    @Test
    void newTablesRouteTheWaitingHeadsAgain() throws Exception {
        for (int i = 0; i < 5; i++) {
            core.packetArrived(1, packet(10, i, 0), 0); // four credits on port 3: the fifth waits
            core.linkFree(3, 0);
        }
        assertEquals(4, ports().length);
        assertEquals(1, core.waitingHeads(3));
        byte[] block = tables.current().block(0);
        block[10] = 4;
        tables.apply(new TableBatch(1, 2, List.of(new TableBatch.Block(0, block)), 0, List.of()));
        core.tablesChanged(10);
        assertEquals(0, core.waitingHeads(3));
        assertArrayEquals(new int[] {3, 3, 3, 3, 4}, ports(), "the fifth packet left by port 4, where the new tables send LID 10");
    }

    /** A table write tells whoever listens (the live switch re-routes its waiting packets on its loop). */
    @Test
    void aTableWriteIsAnnounced() throws Exception {
        int[] calls = {0};
        tables.onChange(() -> calls[0]++);
        tables.apply(new TableBatch(1, 2, List.of(), 0, List.of()));
        assertEquals(1, calls[0]);
        assertThrows(TableWriteException.class, () -> tables.apply(new TableBatch(1, 3, List.of(), 0, List.of())));
        assertEquals(1, calls[0], "a refused write changes nothing and announces nothing");
    }

    /** AR group 1 = ports 3 and 4 for LID 10 (static port 3); LID 13 statically on port 3, no group. */
    private void adaptiveTables(boolean enabled) throws Exception {
        byte[] block = tables.current().block(0);
        block[13] = 3;
        short[] ar = new short[64];
        ar[10] = 1;
        tables.apply(new TableBatch(1, 2, List.of(new TableBatch.Block(0, block)), 0, List.of(),
                List.of(new TableBatch.ArGroup(1, new int[] {3, 4})), List.of(new TableBatch.ArBlock(0, ar)), enabled));
    }

    private int[] ports() {
        return sent.stream().mapToInt(x -> x[0]).toArray();
    }

    /**
     * Nothing is allocated per packet on the hot path, AR choice included: 100,000 packets through
     * the core (arrival, AR choice, grant, credit, link free) allocate less than one byte each on
     * this thread (the JMH benchmark in the bench module measures the same per op).
     */
    @Test
    void forwardingAllocatesNothingPerPacket() throws Exception {
        adaptiveTables(true);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long id = Thread.currentThread().getId();
        int[] last = new int[2];
        SwitchCore quiet = new SwitchCore(PORTS, 2, 4, tables, counters, pool, new SwitchCore.Output() {
            @Override
            public void transmit(int port, int vl, int h, long now) {
                last[0] = port;
                last[1] = vl;
                pool.release(h);
            }

            @Override
            public void returnCredit(int port, int vl, int blocks, long now) {
            }

            @Override
            public void qFeedback(int port, int row, float value, long now) {
            }

            @Override
            public void discarded(int h, int inPort, long now) {
                pool.release(h);
            }
        });
        for (int p = 1; p <= PORTS; p++) {
            quiet.portActive(p, 4, 0);
        }
        int n = 100_000;
        for (int round = 0; round < 2; round++) { // the first round loads and links the classes
            long before = mx.getThreadAllocatedBytes(id);
            for (int i = 0; i < n; i++) {
                quiet.packetArrived(1 + (i & 1), packet(10, i, 0), i);
                quiet.linkFree(last[0], i);
                quiet.creditReturned(last[0], last[1], 1, i);
            }
            long allocated = mx.getThreadAllocatedBytes(id) - before;
            if (round == 1) {
                assertTrue(allocated < n, allocated + " bytes allocated for " + n + " packets");
            }
        }
        assertEquals(2 * n, quiet.adaptiveDecisions());
    }

    @Test
    void adaptiveRoutingSpreadsRoundRobinOverAnIdleGroup() throws Exception {
        adaptiveTables(true);
        for (int i = 0; i < 6; i++) {
            core.packetArrived(1, packet(10, i, 0), i * 10);
            // each packet leaves at once; its link frees and its credit comes back before the next: the ports are equal
            int port = sent.get(i)[0];
            core.linkFree(port, i * 10 + 5);
            core.creditReturned(port, 0, 1, i * 10 + 5);
        }
        assertTrue(Arrays.equals(new int[] {3, 4, 3, 4, 3, 4}, ports()), Arrays.toString(ports()));
        assertEquals(6, core.adaptiveDecisions());
    }

    @Test
    void adaptiveRoutingAvoidsAPortWithoutCredit() throws Exception {
        adaptiveTables(true);
        for (int i = 0; i < 4; i++) {
            core.packetArrived(2, packet(13, 100 + i, 0), i); // LID 13 only by port 3: its four credits go
            core.linkFree(3, i);
        }
        assertEquals(0, core.credits(3, 0));
        sent.clear();
        for (int i = 0; i < 3; i++) {
            core.packetArrived(1, packet(10, i, 0), 10 + i);
            core.linkFree(4, 10 + i);
        }
        assertTrue(Arrays.equals(new int[] {4, 4, 4}, ports()), "port 3 has no credit: " + Arrays.toString(ports()));
    }

    @Test
    void withAdaptiveRoutingDisabledTheStaticPortIsUsed() throws Exception {
        adaptiveTables(false);
        for (int i = 0; i < 4; i++) {
            core.packetArrived(1, packet(10, i, 0), i * 10);
            core.linkFree(3, i * 10 + 5);
            core.creditReturned(3, 0, 1, i * 10 + 5);
        }
        assertTrue(Arrays.equals(new int[] {3, 3, 3, 3}, ports()), Arrays.toString(ports()));
        assertEquals(0, core.adaptiveDecisions());
    }

    /** AR group 1 = port 3 (minimal) and port 4 (a detour) for LID 10; arrivals on port 2 keep to the static port. */
    private void detourTables() throws Exception {
        byte[] block = tables.current().block(0);
        block[13] = 3;
        short[] ar = new short[64];
        ar[10] = 1;
        tables.apply(new TableBatch(1, 2, List.of(new TableBatch.Block(0, block)), 0, List.of(),
                List.of(new TableBatch.ArGroup(1, new int[] {3, 4}, new int[] {4})), List.of(new TableBatch.ArBlock(0, ar)), true, null,
                new int[] {2}));
    }

    @Test
    void aDetourIsTakenOnlyWhileTheMinimalPortIsLoaded() throws Exception {
        detourTables();
        for (int i = 0; i < 4; i++) {
            core.packetArrived(1, packet(10, i, 0), i * 10);
            core.linkFree(3, i * 10 + 5);
            core.creditReturned(3, 0, 1, i * 10 + 5);
        }
        assertArrayEquals(new int[] {3, 3, 3, 3}, ports(), "an idle group: the minimal port, never round-robin onto the detour");
        assertEquals(0, core.detourDecisions());
        // port 3 loses its credits to LID 13's packets: the detour carries LID 10 now
        for (int i = 0; i < 4; i++) {
            core.packetArrived(2, packet(13, 100 + i, 0), 100 + i);
            core.linkFree(3, 100 + i);
        }
        sent.clear();
        core.packetArrived(1, packet(10, 50, 0), 200);
        assertArrayEquals(new int[] {4}, ports());
        assertEquals(1, core.detourDecisions());
        assertEquals(1, counters.getNode(PortCounterArray.ADAPTIVE_NONMINIMAL), "the detour counted as the node's non-minimal decision");
        assertEquals(4, counters.getNode(PortCounterArray.ADAPTIVE_MINIMAL));
    }

    @Test
    void packetsArrivingOnAStaticInputPortFollowTheStaticLft() throws Exception {
        detourTables();
        for (int i = 0; i < 4; i++) {
            core.packetArrived(2, packet(13, 100 + i, 0), i); // port 3's credits go
            core.linkFree(3, i);
        }
        sent.clear();
        core.packetArrived(2, packet(10, 1, 0), 10); // from the static input: waits for port 3, no detour
        core.packetArrived(1, packet(10, 2, 0), 11); // from another input: the detour
        assertArrayEquals(new int[] {4}, ports());
        core.creditReturned(3, 0, 1, 20);
        assertArrayEquals(new int[] {4, 3}, ports());
        assertArrayEquals(new int[] {2}, tables.current().arStaticInputs());
        assertArrayEquals(new int[] {4}, tables.current().arDetours(1));
    }

    @Test
    void badDetoursAndStaticInputsAreRefusedAndChangeNothing() throws Exception {
        var before = tables.current();
        var e = assertThrows(TableWriteException.class, () -> tables.apply(new TableBatch(1, 2, List.of(), 0, List.of(),
                List.of(new TableBatch.ArGroup(1, new int[] {3, 4}, new int[] {2})), List.of(), true)));
        assertTrue(e.getMessage().contains("detour port 2 is not one of the group's ports [3, 4]"), e.getMessage());
        e = assertThrows(TableWriteException.class, () -> tables.apply(new TableBatch(1, 2, List.of(), 0, List.of(),
                List.of(new TableBatch.ArGroup(1, new int[] {3, 4}, new int[] {3, 4})), List.of(), true)));
        assertTrue(e.getMessage().contains("needs at least one minimal port"), e.getMessage());
        e = assertThrows(TableWriteException.class, () -> tables.apply(new TableBatch(1, 2, List.of(), 0, List.of(), List.of(), List.of(),
                true, null, new int[] {5})));
        assertTrue(e.getMessage().contains("ar_static_input_ports[0]: port 5 is not one of the switch's ports 1..4"), e.getMessage());
        assertTrue(before == tables.current(), "the tables were left as they were");
    }

    @Test
    void badAdaptiveTablesAreRefusedAndChangeNothing() throws Exception {
        var before = tables.current();
        short[] ar = new short[64];
        ar[10] = 7;
        var e = org.junit.jupiter.api.Assertions.assertThrows(TableWriteException.class,
                () -> tables.apply(new TableBatch(1, 2, List.of(), 0, List.of(), List.of(), List.of(new TableBatch.ArBlock(0, ar)), true)));
        assertTrue(e.getMessage().contains("AR group 7, which is not defined"), e.getMessage());
        e = org.junit.jupiter.api.Assertions.assertThrows(TableWriteException.class,
                () -> tables.apply(new TableBatch(1, 2, List.of(), 0, List.of(), List.of(new TableBatch.ArGroup(1, new int[] {3, 9})),
                        List.of(), true)));
        assertTrue(e.getMessage().contains("port 9 is not one of the switch's ports 1..4"), e.getMessage());
        assertTrue(before == tables.current(), "the tables were left as they were");
    }

    @Test
    void arbiterAlternatesBetweenInputPortsLikeAFairRoundRobin() {
        // three packets from port 1 and three from port 2, all to LID 10 (port 3); the link is busy after each
        for (int i = 0; i < 3; i++) {
            core.packetArrived(1, packet(10, 100 + i, 0), 0);
            core.packetArrived(2, packet(10, 200 + i, 0), 0);
        }
        for (int i = 0; i < 6; i++) {
            core.creditReturned(3, 0, 1, i + 1); // the downstream switch forwarded the packet on
            core.linkFree(3, i + 1);
        }
        int[] flows = sent.stream().mapToInt(s -> s[2]).toArray();
        assertEquals(6, flows.length);
        assertTrue(Arrays.equals(new int[] {100, 200, 101, 201, 102, 202}, flows), Arrays.toString(flows));
        assertEquals(6, counters.get(3, PortCounterArray.XMIT_PKTS));
        assertEquals(600, counters.get(3, PortCounterArray.XMIT_DATA));
        assertEquals(3, counters.get(1, PortCounterArray.RCV_PKTS));
        // each input got half of output 3: the share the metrics export per congested port
        assertEquals(300, counters.inputBytes(3, 1));
        assertEquals(300, counters.inputBytes(3, 2));
        assertEquals(0, counters.inputBytes(3, 3));
    }

    /** Every (input port, lane) queue returns its credits to that port and lane, whatever the number of lanes. */
    @Test
    void creditsGoBackToTheInputAndLaneThePacketCameIn() throws Exception {
        for (int vls = 1; vls <= 15; vls++) {
            List<int[]> credits = new ArrayList<>();
            SwitchCore c = new SwitchCore(PORTS, vls, 2, tables, new PortCounterArray(PORTS), pool, new SwitchCore.Output() {
                @Override
                public void transmit(int port, int vl, int h, long now) {
                    pool.release(h);
                }

                @Override
                public void returnCredit(int port, int vl, int blocks, long now) {
                    credits.add(new int[] {port, vl});
                }

                @Override
                public void qFeedback(int port, int row, float value, long now) {
                }

                @Override
                public void discarded(int h, int inPort, long now) {
                    pool.release(h);
                }
            });
            for (int p = 1; p <= PORTS; p++) {
                c.portActive(p, 1000, 0);
            }
            for (int p = 1; p <= PORTS; p++) {
                for (int v = 0; v < vls; v++) {
                    c.packetArrived(p, packet(10, p * 100 + v, v), 0);
                    c.linkFree(3, 0);
                    int[] last = credits.get(credits.size() - 1);
                    assertEquals(p + "/" + v, last[0] + "/" + last[1], vls + " lanes");
                }
            }
            assertEquals(PORTS * vls, credits.size());
        }
    }

    @Test
    void impossibleSizesAreRefusedWithTheReason() {
        SwitchCore.Output none = new SwitchCore.Output() {
            @Override
            public void transmit(int port, int vl, int h, long now) {
            }

            @Override
            public void returnCredit(int port, int vl, int blocks, long now) {
            }

            @Override
            public void qFeedback(int port, int row, float value, long now) {
            }

            @Override
            public void discarded(int h, int inPort, long now) {
            }
        };
        for (int[] bad : new int[][] {{PORTS, 0, 4}, {PORTS, 16, 4}, {0, 2, 4}, {255, 2, 4}, {PORTS, 2, 0}}) {
            IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                    () -> new SwitchCore(bad[0], bad[1], bad[2], tables, counters, pool, none));
            assertTrue(e.getMessage().contains("1 to 254 ports") && e.getMessage().contains("1 to 15 data lanes"), e.getMessage());
        }
    }

    @Test
    void countersMadeWithoutTheInputMatrixCountTheRestAndReportNoShares() {
        PortCounterArray lean = new PortCounterArray(PORTS, false);
        lean.add(3, PortCounterArray.XMIT_DATA, 100);
        lean.addInput(3, 1, 100);
        assertEquals(100, lean.get(3, PortCounterArray.XMIT_DATA));
        assertEquals(0, lean.inputBytes(3, 1), "no matrix: no shares, and no cost per packet");
        lean.reset(0);
        assertEquals(0, lean.get(3, PortCounterArray.XMIT_DATA));
    }

    @Test
    void queueDepthAndWaitingHeadsAreReadFromTheCore() {
        for (int i = 0; i < 3; i++) {
            core.packetArrived(1, packet(10, i, 0), 0); // the first is sent at once; port 3 stays busy
        }
        core.packetArrived(2, packet(10, 9, 0), 0);
        assertEquals(2, core.queuedPackets(1), "two behind the one sent");
        assertEquals(1, core.queuedPackets(2));
        assertEquals(2, core.waitingHeads(3), "the heads of inputs 1 and 2 wait for port 3");
        counters.reset(0);
        assertEquals(0, counters.inputBytes(3, 1), "the input matrix is a counter and is reset");
        for (int t = 1; t <= 3; t++) {
            core.creditReturned(3, 0, 1, t);
            core.linkFree(3, t);
        }
        assertEquals(0, core.queuedPackets(1));
        assertEquals(0, core.queuedPackets(2));
        assertEquals(0, core.waitingHeads(3));
    }

    @Test
    void withoutCreditsPacketsWaitAndXmitWaitCounts() {
        for (int i = 0; i < 6; i++) {
            core.packetArrived(1, packet(11, i, 1), 0);
            core.linkFree(4, 0);
        }
        // arriving on lane 1, the packets leave on the lane the SL-to-VL map gives: VL 0
        assertEquals(4, sent.size(), "four credits on port 4 lane 0");
        assertEquals(0, core.credits(4, 0));
        assertEquals(4, core.credits(4, 1));
        assertEquals(2, core.queued(1, 1));
        // the troubleshooting dump shows the stall: two packets queued for port 4, no credit there
        assertTrue(core.describe().contains(" p1: in0=0 in1=2->4"), core.describe());
        assertTrue(core.describe().contains(" p4: in0=0 in1=0 cr0=0 cr1=4"), core.describe());
        core.creditReturned(4, 0, 1, 500);
        core.linkFree(4, 500);
        assertEquals(5, sent.size());
        assertEquals(500, counters.get(4, PortCounterArray.XMIT_WAIT_NS), "waited from t=0 to the credit at t=500");
    }

    @Test
    void unroutablePacketsAreDiscardedAndTheirCreditReturned() {
        core.packetArrived(2, packet(12, 7, 0), 0);
        assertTrue(log.contains("discard flow 7 from 2"), log.toString());
        assertTrue(log.contains("credit 2/0"));
        assertEquals(1, counters.get(2, PortCounterArray.XMIT_DISCARDS));
        assertEquals(1, counters.discards(2, DiscardReason.NO_ROUTE), "counted under its reason");
        assertEquals(0, core.queued(2, 0));
    }

    @Test
    void aTableSwapAppliesFromTheNextHeadOn() throws Exception {
        core.packetArrived(1, packet(10, 1, 0), 0); // sent on port 3, link now busy
        core.packetArrived(1, packet(10, 2, 0), 0); // head, routed to 3, waits for the link
        byte[] block = tables.current().block(0);
        block[10] = 4;
        tables.apply(new TableBatch(1, 2, List.of(new TableBatch.Block(0, block)), 0, List.of()));
        core.packetArrived(1, packet(10, 3, 0), 0);
        core.linkFree(3, 1);
        core.linkFree(4, 1);
        assertEquals(List.of("3:1", "3:2", "4:3"), sent.stream().map(s -> s[0] + ":" + s[2]).toList());
    }

    @Test
    void aPortGoingDownDiscardsWhatWasRoutedToIt() {
        core.packetArrived(1, packet(11, 1, 0), 0);
        core.packetArrived(1, packet(11, 2, 0), 0);
        core.portDown(4, 1);
        assertTrue(log.contains("discard flow 2 from 1"), log.toString());
        assertEquals(1, sent.size());
        core.packetArrived(2, packet(11, 3, 0), 2);
        assertTrue(log.contains("discard flow 3 from 2"));
        assertEquals(0, pool.inUse(), "every handle went back to the pool");
        assertEquals(1, counters.discards(1, DiscardReason.PORT_DOWN), "routed to the dead port while waiting for it");
        assertEquals(1, counters.discards(2, DiscardReason.PORT_DOWN), "routed to the dead port on arrival");
        assertEquals(0, counters.discards(1, DiscardReason.NO_ROUTE) + counters.discards(2, DiscardReason.NO_ROUTE));
    }

    /** Each discard is counted under why it happened, and the reasons add up to the total the simulator reads. */
    @Test
    void discardsAreCountedByReason() {
        core.packetArrived(1, packet(10, 1, 5), 0); // lane 5 on a two-lane switch
        for (int i = 0; i < 6; i++) {
            core.packetArrived(2, packet(10, 10 + i, 0), 0); // four credits on port 3, one on the wire: the sixth overflows
        }
        core.portDown(2, 1); // what sat in port 2's buffer is lost with its link
        assertEquals(1, counters.discards(1, DiscardReason.NO_LANE));
        assertEquals(1, counters.discards(2, DiscardReason.OVERFLOW));
        long lost = counters.discards(2, DiscardReason.LINK_LOST);
        assertTrue(lost > 0, "buffered packets lost with the link: " + lost);
        long byReason = 0;
        for (int p = 1; p <= PORTS; p++) {
            for (DiscardReason r : DiscardReason.all()) {
                byReason += counters.discards(p, r);
            }
        }
        long total = 0;
        for (int p = 1; p <= PORTS; p++) {
            total += counters.get(p, PortCounterArray.XMIT_DISCARDS);
        }
        assertEquals(total, byReason);
        counters.reset(0);
        assertEquals(0, counters.discards(2, DiscardReason.OVERFLOW), "a reset clears the reasons too");
    }

    /** A 2D torus switch: +X port 1, +Y 2, -X 3, -Y 4, a host on 5; LID 20 is that host, LID 21 statically out of port 4. */
    private SwitchCore torusSwitch(List<int[]> out, int credits) throws Exception {
        TableStore t = new TableStore(5);
        byte[] block = new byte[64];
        Arrays.fill(block, (byte) 0xFF);
        block[20] = 5;
        block[21] = 4;
        t.apply(new TableBatch(0, 1, List.of(new TableBatch.Block(0, block)), 21, List.of(), List.of(), List.of(), null,
                new int[] {1, 2, 3, 4}));
        SwitchCore c = new SwitchCore(5, 2, 4, t, new PortCounterArray(5), pool, new SwitchCore.Output() {
            @Override
            public void transmit(int port, int vl, int h, long now) {
                out.add(new int[] {port, pool.flow(h), pool.hops(h)});
                pool.release(h);
            }

            @Override
            public void returnCredit(int port, int vl, int blocks, long now) {
            }

            @Override
            public void qFeedback(int port, int row, float value, long now) {
            }

            @Override
            public void discarded(int h, int inPort, long now) {
                out.add(new int[] {-1, pool.flow(h), inPort});
                pool.release(h);
            }
        });
        for (int p = 1; p <= 5; p++) {
            c.portActive(p, credits, 0);
        }
        return c;
    }

    @Test
    void aSourceRoutedPacketTakesItsHeadersDirectionThenTheLftDelivers() throws Exception {
        List<int[]> out = new ArrayList<>();
        SwitchCore c = torusSwitch(out, 4);
        // route +Y then -X (directions 1 and 2 of a 2D torus): at its first switch it leaves by +Y, not the LFT's port 4
        int h = packet(21, 1, 0);
        pool.route(h, SourceRoute.encode(new byte[] {1, 2}));
        c.packetArrived(5, h, 0);
        assertEquals(2, out.get(0)[0], "+Y is port 2");
        // the same route one hop on (the second switch of its path): -X
        h = packet(21, 2, 0);
        pool.route(h, SourceRoute.encode(new byte[] {1, 2}));
        pool.hops(h, 1);
        c.packetArrived(4, h, 1);
        assertEquals(3, out.get(1)[0], "-X is port 3");
        // its route done (two hops taken): the destination switch's LFT delivers to the host
        h = packet(20, 3, 0);
        pool.route(h, SourceRoute.encode(new byte[] {1, 2}));
        pool.hops(h, 2);
        c.packetArrived(1, h, 2);
        assertEquals(5, out.get(2)[0]);
        // a packet without a route goes by the LFT
        c.packetArrived(5, packet(21, 4, 0), 3);
        assertEquals(4, out.get(3)[0]);
    }

    @Test
    void bubbleFlowControlKeepsAFreeBufferForPacketsAlreadyOnTheRing() throws Exception {
        List<int[]> out = new ArrayList<>();
        SwitchCore c = torusSwitch(out, 1); // one credit downstream on every port
        long plusX = SourceRoute.encode(new byte[] {0, 0});
        // injected from the host onto the +X ring with one free buffer ahead: it waits (it would take the last one)
        int h = packet(21, 1, 0);
        pool.route(h, plusX);
        c.packetArrived(5, h, 0);
        assertTrue(out.isEmpty(), "entering a ring needs two free buffers");
        // a packet already travelling +X (it came in over port 3, the -X link) continues with one
        h = packet(21, 2, 1);
        pool.route(h, plusX);
        pool.hops(h, 1);
        c.packetArrived(3, h, 1);
        assertEquals(1, out.size());
        assertEquals(2, out.get(0)[1], "the packet on the ring went first");
        // a second credit comes back: now the injected packet has its bubble
        c.linkFree(1, 2);
        c.creditReturned(1, 0, 2, 2);
        assertEquals(2, out.size());
        assertEquals(1, out.get(1)[1]);
    }

    @Test
    void badDirectionPortsAreRefusedAndChangeNothing() throws Exception {
        SwitchTables before = tables.current();
        TableWriteException e = assertThrows(TableWriteException.class, () -> tables.apply(new TableBatch(1, 2, List.of(), 0, List.of(),
                List.of(), List.of(), null, new int[] {1, 2, 1, 4})));
        assertTrue(e.getMessage().contains("already leads in another direction"), e.getMessage());
        assertTrue(before == tables.current());
    }
}
