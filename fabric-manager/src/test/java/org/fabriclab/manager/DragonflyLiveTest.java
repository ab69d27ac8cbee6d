package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.DragonflyAlgorithm;
import org.fabriclab.proto.v1.DragonflyState;
import org.fabriclab.proto.v1.GetDragonflyRoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dragonfly routing on live agents, routed and pushed by a real manager's sweep: every host of a
 * 20-router dragonfly sends a fixed number of packets under ADV+1 over real Netty links (five
 * lanes, the cables' delays from the topology). Every packet arrives exactly once. Q-adaptive's
 * routers learn: read over the management contract, every router's Q-values have left their seed
 * and it counted the feedback messages that moved them, which crossed the links inside CREDIT
 * frames; a second sweep, and a sweep by the manager restarted, keep what was learnt, while a new
 * routing (another alpha) starts each router again from its seed. UGALn leaves the minimal path
 * under the same traffic.
 */
class DragonflyLiveTest {
    /** 5 groups of 4 routers with a host each; under ADV+1 each group's 4 hosts share one global link minimally. */
    static final String SPEC = "dragonfly:p=1,a=4,h=1,local-latency=2us,global-latency=10us";
    private static final int PACKETS = 300;
    static final int PAYLOAD = 256;

    @Test
    void qAdaptiveLearnsFromFeedbackInCreditFramesAndKeepsItAcrossSweeps(@TempDir Path dir) throws Exception {
        Fabric topology = Topologies.generate(SPEC);
        try (EmulatedFabric fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS.withLanes(5, 8, 0))) {
            List<DragonflyState> learnt;
            try (FabricManager manager = manager(fabric, "q-adaptive", dir)) {
                FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
                assertEquals(FabricManager.State.UP, s.state(), s.lastError());
                assertEquals("q-adaptive", s.outcome().tables().engine());
                for (DragonflyState st : states(manager, fabric)) {
                    assertEquals(DragonflyAlgorithm.DRAGONFLY_Q_ADAPTIVE, st.getRouting().getAlgorithm());
                    assertEquals(st.getQSeedList(), st.getQValuesList(), "nothing learnt before any traffic");
                    assertEquals(0, st.getQUpdates());
                }

                carryAdversarialTraffic(fabric, s, PACKETS);
                learnt = settledStates(manager, fabric);
                for (int i = 0; i < learnt.size(); i++) {
                    DragonflyState st = learnt.get(i);
                    String sw = fabric.switches().get(i).name();
                    assertTrue(st.getQUpdates() > 0, sw + " took feedback from its neighbours: " + st.getQUpdates());
                    assertNotEquals(st.getQSeedList(), st.getQValuesList(), sw + "'s Q-values moved away from their seed");
                    assertEquals(st.getQValuesCount(), st.getRows() * st.getColumns());
                }

                // the same tables again: nothing to write, what was learnt stays
                FabricManager.Snapshot again = manager.sweep().get(60, TimeUnit.SECONDS);
                assertEquals(FabricManager.State.UP, again.state(), again.lastError());
                assertEquals(s.tableVersion(), again.tableVersion(), "the second sweep wrote nothing");
                assertSameQValues(learnt, states(manager, fabric), "after a second sweep");
            }

            // a restarted manager does not know what it wrote: it reads the routing back, finds it the
            // same, and leaves it (its write carries the SL-to-VL maps it cannot read back, not the routing)
            try (FabricManager restarted = manager(fabric, "q-adaptive", dir)) {
                FabricManager.Snapshot s = restarted.sweep().get(60, TimeUnit.SECONDS);
                assertEquals(FabricManager.State.UP, s.state(), s.lastError());
                assertSameQValues(learnt, states(restarted, fabric), "after a restarted manager's sweep");

                // a new routing (alpha 0.3): every router starts again from its seed
                restarted.engineParams(Map.of("alpha", "0.3"));
                FabricManager.Snapshot reseeded = restarted.sweep().get(60, TimeUnit.SECONDS);
                assertEquals(FabricManager.State.UP, reseeded.state(), reseeded.lastError());
                for (DragonflyState st : states(restarted, fabric)) {
                    assertEquals(0.3, st.getRouting().getAlpha(), 1e-6);
                    assertEquals(st.getQSeedList(), st.getQValuesList(), "a new routing starts from its seed");
                }
            }
        }
    }

    @Test
    void ugalnLeavesTheMinimalPathUnderAdversarialTraffic(@TempDir Path dir) throws Exception {
        Fabric topology = Topologies.generate(SPEC);
        try (EmulatedFabric fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS.withLanes(5, 8, 0));
             FabricManager manager = manager(fabric, "df-ugaln", dir)) {
            sweepAndCarryAdversarialTraffic(fabric, manager);
            long nonminimal = 0;
            long minimal = 0;
            for (DragonflyState st : settledStates(manager, fabric)) {
                assertEquals(DragonflyAlgorithm.DRAGONFLY_UGALN, st.getRouting().getAlgorithm());
                assertEquals(0, st.getQValuesCount(), "UGALn learns no Q-table");
                nonminimal += st.getNonminimalDecisions();
                minimal += st.getMinimalDecisions();
            }
            assertTrue(nonminimal > 0, "non-minimal decisions " + nonminimal + " of " + (minimal + nonminimal));
            assertTrue(minimal > 0, "minimal decisions " + minimal + " of " + (minimal + nonminimal));
        }
    }

    /**
     * A dragonfly of 3 groups of 2 routers whose every router has two global links to each other
     * group (trunk=4): under ADV+1 as fast as credits allow, UGALg sends over both of each router's
     * links to the next group, every packet arriving once.
     */
    @Test
    void aRouterWithTwoLinksToAGroupSendsOverBoth(@TempDir Path dir) throws Exception {
        Fabric topology = Topologies.generate("dragonfly:p=1,a=2,h=4,g=3,trunk=4,local-latency=2us,global-latency=10us");
        try (EmulatedFabric fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS.withLanes(5, 8, 0));
             FabricManager manager = manager(fabric, "df-ugalg", dir)) {
            sweepAndCarryAdversarialTraffic(fabric, manager);
            for (LiveSwitch sw : fabric.switches()) {
                int node = topology.nodeByName(sw.name()).orElseThrow();
                int group = topology.group(node);
                List<Long> toNext = new ArrayList<>();
                for (int p = 1; p <= topology.portCount(node); p++) {
                    int peer = topology.peerNode(topology.globalPort(node, p));
                    if (peer != Fabric.NONE && topology.isSwitch(peer) && topology.group(peer) == (group + 1) % 3) {
                        toNext.add(sw.counters().get(p, PortCounterArray.XMIT_DATA));
                    }
                }
                assertEquals(2, toNext.size(), sw.name() + "'s links to the next group");
                assertTrue(toNext.get(0) > 0 && toNext.get(1) > 0, sw.name() + " sent over both: " + toNext + " bytes");
            }
        }
    }

    /** A manager of {@code fabric} routing by {@code engine}, connected through its first host. */
    private static FabricManager manager(EmulatedFabric fabric, String engine, Path dir) {
        return new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), engine, dir.resolve("guid2lid"), new SimpleMeterRegistry());
    }

    /** A sweep that brings the fabric up, then {@link #carryAdversarialTraffic} of {@link #PACKETS} a host. */
    private static void sweepAndCarryAdversarialTraffic(EmulatedFabric fabric, FabricManager manager) throws Exception {
        FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
        assertEquals(FabricManager.State.UP, s.state(), s.lastError());
        carryAdversarialTraffic(fabric, s, PACKETS);
    }

    /**
     * Every host sends {@code packets} to random hosts of the next group (ADV+1) as fast as
     * credits allow; every packet arrives exactly once (each source's packets counted at every
     * receiver, on top of what earlier rounds sent), nothing is discarded.
     */
    static void carryAdversarialTraffic(EmulatedFabric fabric, FabricManager.Snapshot s, int packets) {
        List<LiveHost> hosts = fabric.hosts();
        List<Integer> lids = new ArrayList<>();
        for (LiveHost h : hosts) {
            lids.add(h.management().port(1).lid());
        }
        long[] fromBefore = lids.stream().mapToLong(lid -> fromSource(hosts, lid)).toArray();
        long expected = received(hosts) + (long) packets * hosts.size();
        fabric.startTraffic(TrafficPattern.adversarial(1), 0, PAYLOAD, packets, s.outcome().tables());
        Waits.until("every packet arrived", () -> received(hosts) >= expected);
        assertEquals(expected, Waits.settled("packets received", () -> received(hosts), Duration.ofMillis(200)),
                "every packet arrived, once");
        for (LiveHost h : hosts) {
            assertEquals(packets, h.stats().join().sent(), h.name() + " (its sender counts this round)");
        }
        for (int i = 0; i < lids.size(); i++) {
            assertEquals(fromBefore[i] + packets, fromSource(hosts, lids.get(i)), "packets from LID " + lids.get(i) + " over every receiver");
        }
        for (LiveSwitch sw : fabric.switches()) {
            for (int p = 1; p <= sw.management().identity().ports(); p++) {
                assertEquals(0, sw.counters().get(p, PortCounterArray.XMIT_DISCARDS), sw.name() + " port " + p);
            }
        }
    }

    /** Every switch's Dragonfly state (all rows), read over its management endpoint, in fabric order. */
    static List<DragonflyState> states(FabricManager manager, EmulatedFabric fabric) {
        List<DragonflyState> out = new ArrayList<>();
        for (LiveSwitch sw : fabric.switches()) {
            out.add(manager.channels().blocking(fabric.endpoint(sw.name())).getDragonflyRouting(GetDragonflyRoutingRequest.getDefaultInstance()));
        }
        return out;
    }

    /** {@link #states} once the feedback still crossing the links after the last packet has arrived has been taken. */
    private static List<DragonflyState> settledStates(FabricManager manager, EmulatedFabric fabric) {
        Waits.settled("Q-table updates", () -> states(manager, fabric).stream().mapToLong(DragonflyState::getQUpdates).sum(),
                Duration.ofMillis(200));
        return states(manager, fabric);
    }

    private static void assertSameQValues(List<DragonflyState> expected, List<DragonflyState> actual, String when) {
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i).getQValuesList(), actual.get(i).getQValuesList(), "switch " + i + "'s Q-values " + when);
        }
    }

    /** Packets from LID {@code lid} received by all of {@code hosts}. */
    private static long fromSource(List<LiveHost> hosts, int lid) {
        return hosts.stream().mapToLong(h -> h.receivedFrom(lid).join()[0]).sum();
    }

    private static long received(List<LiveHost> hosts) {
        return hosts.stream().mapToLong(h -> h.stats().join().received()).sum();
    }
}
