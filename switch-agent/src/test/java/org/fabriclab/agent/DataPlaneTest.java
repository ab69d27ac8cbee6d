package org.fabriclab.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.agent.core.EcnMarking;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.Swift;
import org.fabriclab.agent.core.TableBatch;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.LiveNode;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.link.DataLinks;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;

/**
 * Two switches and four hosts over real Netty LocalChannels, tables written by hand: every packet
 * arrives, in order, without a drop; the hello tells each port who is on the other end; every
 * packet handle goes back to its pool.
 */
class DataPlaneTest {
    private static final int PACKETS = 3000;

    @Test
    void everyPacketArrivesInOrderWithoutDrops() throws Exception {
        exchange(PACKETS, 0);
    }

    /**
     * Links with a propagation delay (set on one end only: the hello makes both ends agree) still
     * lose nothing and keep order, and no packet arrives sooner than its links' delays allow.
     */
    @Test
    void linksWithADelayHoldEveryFrameForIt() throws Exception {
        long delay = 500_000;
        LiveHost.Stats[] stats = exchange(60, delay);
        for (int i = 0; i < stats.length; i++) {
            // every route crosses at least two links (host to switch, switch to host)
            assertTrue(stats[i].latencyNsSum() >= stats[i].received() * 2 * delay,
                    "H" + (i + 1) + ": mean latency " + stats[i].latencyNsSum() / Math.max(1, stats[i].received()) + " ns");
        }
    }

    /** Two switches, four hosts, all-to-all; {@code delayNs} on the switches' links. */
    private static LiveHost.Stats[] exchange(int packets, long delayNs) throws Exception {
        try (DataLinks links = DataLinks.local(2)) {
            LiveSwitch s1 = sw(links, "S1", 0x200000L);
            LiveSwitch s2 = sw(links, "S2", 0x200001L);
            s1.linkLatencyNs(delayNs);
            s2.linkLatencyNs(delayNs);
            LiveHost[] h = new LiveHost[4];
            for (int i = 0; i < 4; i++) {
                h[i] = new LiveHost(links.nextLoop(), new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_CA,
                        0x100000L + 2 * i, "H" + (i + 1), 1)), 2, 8, 10, "H" + (i + 1));
            }
            for (LiveNode n : new LiveNode[] {s1, s2, h[0], h[1], h[2], h[3]}) {
                links.listen(n).sync();
            }
            links.connect(s1, 3, "S2", 3).sync();
            links.connect(h[0], 1, "S1", 1).sync();
            links.connect(h[1], 1, "S1", 2).sync();
            links.connect(h[2], 1, "S2", 1).sync();
            links.connect(h[3], 1, "S2", 2).sync();
            Waits.until("the inter-switch port and every host port initialised (hellos exchanged)",
                () -> s1.management().port(3).state() == PortState.PORT_STATE_INIT && Arrays.stream(h).allMatch(x -> x.management().port(1).state() == PortState.PORT_STATE_INIT));
            assertEquals(0x200001L, s1.management().port(3).neighbourGuid());
            assertEquals(3, s1.management().port(3).neighbourPort());
            assertEquals("S2", s1.management().port(3).neighbourEndpoint());

            // LIDs: S1 1, S2 2, H1..H4 3..6; tables by hand
            write(s1, new int[] {3, 1, 4, 2, 5, 3, 6, 3});
            write(s2, new int[] {3, 3, 4, 3, 5, 1, 6, 2});
            for (int i = 0; i < 4; i++) {
                h[i].management().setPort(1, 3 + i, PortState.PORT_STATE_ARMED);
                h[i].management().setPort(1, 0, PortState.PORT_STATE_ACTIVE);
            }
            for (int i = 0; i < 4; i++) {
                int[] others = new int[3];
                for (int j = 0, k = 0; j < 4; j++) {
                    if (j != i) {
                        others[k++] = 3 + j;
                    }
                }
                h[i].start(new Traffic(others, TrafficPattern.ALL_TO_ALL, 0, 256, packets, i));
            }
            Waits.until("every host received its packets", () -> Arrays.stream(h).mapToLong(x -> x.stats().join().received()).sum() == 4L * packets);
            for (LiveHost x : h) {
                LiveHost.Stats st = x.stats().join();
                assertEquals(packets, st.sent());
                assertEquals(packets, st.received(), x.name());
                assertEquals(0, st.outOfOrder(), x.name());
                for (int i = 0; i < 4; i++) {
                    if (h[i] != x) {
                        assertEquals(packets / 3, x.receivedFrom(3 + i).join()[0], "from H" + (i + 1) + " at " + x.name());
                    }
                }
            }
            for (LiveSwitch s : List.of(s1, s2)) {
                for (int p = 1; p <= 3; p++) {
                    assertEquals(0, s.counters().get(p, PortCounterArray.XMIT_DISCARDS), s.name() + " port " + p);
                }
                Waits.until(s.name() + "'s packet handles all back in its pool", () -> s.pool().inUse() == 0);
            }
            // across the inter-switch link: H1 and H2 send 2/3 of their packets to the other side
            assertEquals(2L * packets * 2 / 3, s1.counters().get(3, PortCounterArray.XMIT_PKTS));
            return Arrays.stream(h).map(x -> x.stats().join()).toArray(LiveHost.Stats[]::new);
        }
    }

    /**
     * Regression: with every node on one event loop, a LocalChannel flush delivers to the peer
     * synchronously and the peer answers at once; a flush nested in a flush was skipped by Netty and
     * the answer (a credit) was never sent, stalling the fabric. Flushes are now deferred.
     */
    @Test
    void nodesSharingOneEventLoopDoNotLoseCredits() throws Exception {
        try (DataLinks links = DataLinks.local(1)) {
            LiveSwitch s = new LiveSwitch(links.nextLoop(), new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH,
                    0x200000L, "S", 3)), 2, 8, new double[] {0, 100, 100, 100}, "S");
            LiveHost[] h = threeHostsOn(links, s, 100, null);
            for (int i = 0; i < 3; i++) {
                h[i].start(new Traffic(new int[] {2 + (i + 1) % 3, 2 + (i + 2) % 3}, TrafficPattern.ALL_TO_ALL, 0, 512, PACKETS, i));
            }
            Waits.until("every host received its packets", () -> Arrays.stream(h).mapToLong(x -> x.stats().join().received()).sum() == 3L * PACKETS);
        }
    }

    /**
     * Congestion control over live frames: two hosts send to a third through one switch. The
     * control packets (Swift's ACK per packet; DCQCN's CNPs, the switch marking every packet that
     * leaves a queue) cross the links as frames, keep their kind and marks (the flags byte) and are
     * consumed by the senders' NICs, never delivered as data; every data packet arrives once, in
     * order; every handle goes back.
     */
    @Test
    void swiftAcksCrossLiveLinksAndAreConsumed() throws Exception {
        congestionControlOverLiveLinks("swift", Map.of("target_us", "100000")); // above any software delay: the window only grows
    }

    @Test
    void dcqcnMarksAndCnpsCrossLiveLinksAndAreConsumed() throws Exception {
        congestionControlOverLiveLinks("dcqcn", Map.of());
    }

    /**
     * ACK coalescing over live frames: Swift with an ACK every four packets (the timer at its
     * longest, a millisecond, so that the counts send nearly all): two hosts send 2,001 packets each
     * to a third. Every packet arrives once, in order; each sender gets about a quarter as many ACK
     * frames as it sent packets, and its window ends with nothing in flight: the ACK frames carried
     * their packet counts, and the last packet of each flow (the 2,001st) was acknowledged by the
     * receiver's timer.
     */
    @Test
    void coalescedSwiftAcksCrossLiveLinksAndAcknowledgeEveryPacket() throws Exception {
        int packets = 2001;
        try (DataLinks links = DataLinks.local(1)) {
            LiveSwitch s = sw(links, "S", 0x200000L);
            LiveHost[] h = threeHostsOn(links, s, 10, CongestionControl.settings("swift",
                    Map.of("target_us", "100000", "ack_every", "4", "ack_delay_us", "1000")));
            for (int i = 1; i < 3; i++) {
                h[i].start(new Traffic(new int[] {2}, TrafficPattern.ALL_TO_ALL, 0, 512, packets, i));
            }
            Waits.until("H0 received every packet", () -> h[0].stats().join().received() == 2L * packets);
            for (int i = 1; i < 3; i++) {
                LiveHost sender = h[i];
                Waits.until("H" + i + "'s window saw every packet acknowledged",
                        () -> sender.readCore(c -> ((Swift) c.congestionControl()).inflight(2)).join() == 0
                                && sender.stats().join().sent() == packets);
                long acks = sender.counters().get(1, PortCounterArray.RCV_PKTS);
                assertTrue(acks >= (packets + 3) / 4 && acks < packets / 2, "H" + i + ": " + acks + " ACK frames for " + packets + " packets");
                assertEquals(0, sender.stats().join().received(), "H" + i + " delivered no control packet as data");
            }
            LiveHost.Stats st = h[0].stats().join();
            assertEquals(0, st.outOfOrder());
            assertEquals(0, st.missing());
            assertEquals(0, (int) h[0].readCore(c -> c.ackPending(3) + c.ackPending(4)).join(), "the receiver holds no ACK back");
            for (LiveNode n : List.of(s, h[0], h[1], h[2])) {
                Waits.until(n.name() + "'s handles all back", () -> n.pool().inUse() == 0);
            }
        }
    }

    private static void congestionControlOverLiveLinks(String cc, Map<String, String> params) throws Exception {
        int packets = 2000;
        try (DataLinks links = DataLinks.local(1)) {
            LiveSwitch s = sw(links, "S", 0x200000L);
            s.ecn(new EcnMarking(0, 1, 1), 1); // every packet is in a queue of more than one byte: mark it
            LiveHost[] h = threeHostsOn(links, s, 10, CongestionControl.settings(cc, params));
            for (int i = 1; i < 3; i++) {
                h[i].start(new Traffic(new int[] {2}, TrafficPattern.ALL_TO_ALL, 0, 512, packets, i));
            }
            Waits.until("H0 received every packet", () -> h[0].stats().join().received() == 2L * packets);
            LiveHost.Stats st = h[0].stats().join();
            assertEquals(0, st.outOfOrder());
            assertEquals(0, st.missing());
            for (int i = 1; i < 3; i++) {
                assertEquals(packets, h[0].receivedFrom(2 + i).join()[0], "from H" + i);
                assertEquals(0, h[i].stats().join().received(), "H" + i + " delivered no control packet as data");
            }
            if (cc.equals("swift")) {
                Waits.until("an ACK for every packet", () -> h[1].counters().get(1, PortCounterArray.RCV_PKTS)
                        + h[2].counters().get(1, PortCounterArray.RCV_PKTS) == 2L * packets);
            } else {
                assertTrue(h[1].counters().get(1, PortCounterArray.RCV_PKTS) + h[2].counters().get(1, PortCounterArray.RCV_PKTS) > 0,
                        "CNPs came back for marked packets");
            }
            for (int p = 1; p <= 3; p++) {
                assertEquals(0, s.counters().get(p, PortCounterArray.XMIT_DISCARDS), "port " + p);
            }
            for (LiveNode n : List.of(s, h[0], h[1], h[2])) {
                Waits.until(n.name() + "'s handles all back", () -> n.pool().inUse() == 0);
            }
        }
    }

    /** Hosts H0..H2 (LIDs 2..4) on ports 1..3 of switch {@code s}, its table written, every port active. */
    private static LiveHost[] threeHostsOn(DataLinks links, LiveSwitch s, double gbps, CongestionControl.Settings cc) throws Exception {
        LiveHost[] h = new LiveHost[3];
        links.listen(s).sync();
        for (int i = 0; i < 3; i++) {
            h[i] = new LiveHost(links.nextLoop(), new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_CA,
                    0x100000L + 2 * i, "H" + i, 1)), 2, 8, gbps, "H" + i, cc);
            links.listen(h[i]).sync();
            links.connect(s, i + 1, "H" + i, 1).sync();
        }
        Waits.until("every host port initialised (hellos exchanged)",
            () -> Arrays.stream(h).allMatch(x -> x.management().port(1).state() == PortState.PORT_STATE_INIT));
        write(s, new int[] {2, 1, 3, 2, 4, 3});
        for (int i = 0; i < 3; i++) {
            h[i].management().setPort(1, 2 + i, PortState.PORT_STATE_ARMED);
            h[i].management().setPort(1, 0, PortState.PORT_STATE_ACTIVE);
        }
        return h;
    }

    private static LiveSwitch sw(DataLinks links, String name, long guid) {
        return new LiveSwitch(links.nextLoop(), new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, guid, name, 3)),
                2, 8, new double[] {0, 10, 10, 10}, name);
    }

    private static void write(LiveSwitch s, int[] lidPort) throws Exception {
        byte[] block = new byte[64];
        Arrays.fill(block, (byte) 0xFF);
        for (int i = 0; i < lidPort.length; i += 2) {
            block[lidPort[i]] = (byte) lidPort[i + 1];
        }
        s.management().tables().apply(new TableBatch(0, 1, List.of(new TableBatch.Block(0, block)), 63, List.of()));
    }
}
