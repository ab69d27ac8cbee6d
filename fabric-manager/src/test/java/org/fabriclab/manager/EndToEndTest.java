package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.cli.TimeDilation;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.AdminGrpc;
import org.fabriclab.proto.v1.TraceRouteRequest;
import org.fabriclab.proto.v1.TraceRouteResponse;
import org.fabriclab.routing.analysis.PathTracer;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Manager, agents and hosts in one JVM, nothing stood in for: the manager discovers the emulated
 * fabric over gRPC from one host's endpoint, routes it, pushes the tables and activates the ports;
 * every host then sends to every other host and every packet arrives, in order, without a drop;
 * the manager's route trace, read from the switches, is the route its own tables give.
 */
class EndToEndTest {
    private static final int PACKETS = 300;

    @ParameterizedTest(name = "{0} with {1}")
    @CsvSource(delimiter = '|', value = {"rlft:leaves=3,spines=2,hosts=2|minhop", "torus:3x3|updn", "dragonfly:p=1,a=3,h=1|minhop"})
    void fabricComesUpAndCarriesAllToAllTraffic(String spec, String engine, @TempDir Path dir) throws Exception {
        Fabric topology = Topologies.generate(spec.trim());
        try (EmulatedFabric fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), engine.trim(),
                     dir.resolve("guid2lid"), new SimpleMeterRegistry())) {
            FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, s.state(), s.lastError());
            assertEquals(topology.switchCount(), s.discovered().fabric().switchCount());
            assertEquals(topology.caCount(), s.discovered().fabric().caCount());
            assertEquals(topology.linkCount(), s.discovered().fabric().linkCount());
            assertEquals(engine.trim(), s.outcome().tables().engine());
            assertEquals(1, s.tableVersion());

            fabric.startTraffic(TrafficPattern.ALL_TO_ALL, 0, 512, PACKETS);
            List<LiveHost> hosts = fabric.hosts();
            Waits.until("every packet arrived", () -> hosts.stream().mapToLong(h -> h.stats().join().received()).sum() == (long) PACKETS * hosts.size());
            for (LiveHost h : hosts) {
                LiveHost.Stats st = h.stats().join();
                assertEquals(PACKETS, st.sent(), h.name());
                assertEquals(0, st.outOfOrder(), h.name());
            }
            for (LiveSwitch sw : fabric.switches()) {
                for (int p = 1; p <= sw.management().identity().ports(); p++) {
                    assertEquals(0, sw.counters().get(p, PortCounterArray.XMIT_DISCARDS), sw.name() + " port " + p);
                }
            }

            // the admin trace reads the switches' own tables; it must be the route of the computed tables
            String name = InProcessServerBuilder.generateName();
            Server admin = InProcessServerBuilder.forName(name).directExecutor().addService(new AdminService(manager)).build().start();
            ManagedChannel ch = InProcessChannelBuilder.forName(name).directExecutor().build();
            try {
                Fabric f = s.outcome().fabric();
                int src = f.endpointCount() - 1;
                int dst = 0;
                TraceRouteResponse trace = AdminGrpc.newBlockingStub(ch).withDeadlineAfter(10, TimeUnit.SECONDS).traceRoute(
                        TraceRouteRequest.newBuilder().setSource(f.endpointName(src)).setDestination(f.endpointName(dst)).build());
                assertTrue(trace.getDelivered(), trace.getFailure());
                PathTracer.Path expected = PathTracer.trace(s.outcome().tables(), src, dst);
                assertEquals(expected.hops().stream().map(h -> f.name(h.node()) + ":" + h.port()).toList(),
                        trace.getHopsList().stream().map(h -> h.getNode() + ":" + h.getPort()).toList());
            } finally {
                ch.shutdownNow();
                admin.shutdownNow();
            }

            // a sweep of the unchanged fabric changes nothing and keeps the LIDs
            FabricManager.Snapshot again = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, again.state());
            assertEquals(0, again.outcome().changedBlocks());
            assertEquals(1, again.tableVersion());
            assertEquals(s.outcome().lids().byPortGuid(s.outcome().fabric()), again.outcome().lids().byPortGuid(again.outcome().fabric()));
        }
    }

    /**
     * An ar-* engine's AR tables go to the switches in the same versioned write as the LFT, the
     * switches choose among their groups' ports with every packet delivered, a second sweep
     * changes nothing, and a deterministic engine after it turns AR off again.
     */
    @Test
    void adaptiveRoutingTablesArePushedUsedAndWithdrawn(@TempDir Path dir) throws Exception {
        Fabric topology = Topologies.generate("rlft:leaves=2,spines=2,hosts=2,parallel=2");
        try (EmulatedFabric fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), "ar-tree",
                     dir.resolve("guid2lid"), new SimpleMeterRegistry())) {
            FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, s.state(), s.lastError());
            var leaf = fabric.node("L0").management().tables().current();
            assertTrue(leaf.arEnabled());
            int remote = s.outcome().lids().endpointLid(s.outcome().fabric().endpointCount() - 1);
            int group = leaf.arGroup(remote);
            assertTrue(group > 0, "the leaf has a group towards the other leaf's hosts");
            assertEquals(4, leaf.arPorts(group).length, "two spines, two links each");

            fabric.startTraffic(TrafficPattern.ALL_TO_ALL, 0, 512, PACKETS);
            List<LiveHost> hosts = fabric.hosts();
            Waits.until("every packet arrived", () -> hosts.stream().mapToLong(h -> h.stats().join().received()).sum() == (long) PACKETS * hosts.size());
            long adaptive = fabric.switches().stream().mapToLong(LiveSwitch::adaptiveDecisions).sum();
            assertTrue(adaptive > 0, "the switches chose among their groups' ports");

            FabricManager.Snapshot again = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(0, again.outcome().changedBlocks());
            assertEquals(1, again.tableVersion());

            // a restarted manager did not write these switches: it reads them back and changes nothing
            try (FabricManager restarted = new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), "ar-tree",
                    dir.resolve("guid2lid"), new SimpleMeterRegistry())) {
                FabricManager.Snapshot r = restarted.sweep().get(60, TimeUnit.SECONDS);
                assertEquals(FabricManager.State.UP, r.state(), r.lastError());
                assertEquals(0, r.outcome().changedBlocks(), "the same LFT and AR tables");
                var held = fabric.node("L0").management().tables().current();
                assertTrue(held.arEnabled());
                assertEquals(group, held.arGroup(remote));
            }

            FabricManager.Snapshot minhop = manager.setEngine("minhop").get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, minhop.state(), minhop.lastError());
            var after = fabric.node("L0").management().tables().current();
            assertFalse(after.arEnabled(), "a deterministic engine turns AR off");
            assertEquals(0, after.arGroup(remote));
        }
    }

    /**
     * ar-dfp on a live Dragonfly+: the spines get their detour ports, static input ports and
     * lane turns in the write, traffic between every pair of hosts arrives whole, and minhop
     * after it takes all of them back (every SL on lane 0 again).
     */
    @Test
    void dragonflyPlusDetoursArePushedWithTheirLaneTurnsAndWithdrawn(@TempDir Path dir) throws Exception {
        Fabric topology = Topologies.generate("dragonfly-plus:p=1,leaves=2,spines=2,h=2");
        try (EmulatedFabric fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), "ar-dfp",
                     dir.resolve("guid2lid"), new SimpleMeterRegistry())) {
            FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, s.state(), s.lastError());
            // G0_S0: ports 1-2 down to the leaves, 3 to G1, 4 to G2 (which is linked to G1 too)
            var spine = fabric.node("G0_S0").management().tables().current();
            int toG1 = s.outcome().lids().endpointLid(s.outcome().fabric().endpointOfPort(
                    s.outcome().fabric().globalPort(s.outcome().fabric().nodeByName("G1_L0_H0").orElseThrow(), 1)));
            int group = spine.arGroup(toG1);
            assertTrue(group > 0);
            assertArrayEquals(new int[] {4}, spine.arDetours(group), "the detour through G2");
            assertArrayEquals(new int[] {3, 4}, spine.arStaticInputs(), "global links keep to the static LFT");
            assertEquals(1, spine.vl(3, 4, 0), "global in to global out moves to lane 1");
            assertEquals(0, spine.vl(1, 3, 0));

            fabric.startTraffic(TrafficPattern.ALL_TO_ALL, 0, 512, PACKETS);
            List<LiveHost> hosts = fabric.hosts();
            Waits.until("every packet arrived", () -> hosts.stream().mapToLong(h -> h.stats().join().received()).sum() == (long) PACKETS * hosts.size());

            FabricManager.Snapshot minhop = manager.setEngine("minhop").get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, minhop.state(), minhop.lastError());
            var after = fabric.node("G0_S0").management().tables().current();
            assertFalse(after.arEnabled());
            assertEquals(0, after.arStaticInputs().length);
            assertEquals(0, after.vl(3, 4, 0), "the lane turn is taken back");
        }
    }

    @Test
    void detoursOnSwitchesWithOneLaneAreRefusedBeforeAnythingIsWritten(@TempDir Path dir) throws Exception {
        Fabric topology = Topologies.generate("dragonfly-plus:p=1,leaves=2,spines=2,h=2");
        EmulatedFabric.Options oneLane = new EmulatedFabric.Options(2, 1, 8, 100, 0, 0, false, TimeDilation.REAL_TIME);
        try (EmulatedFabric fabric = EmulatedFabric.start(topology, oneLane);
             FabricManager manager = new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), "ar-dfp",
                     dir.resolve("guid2lid"), new SimpleMeterRegistry())) {
            FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
            assertTrue(s.state() != FabricManager.State.UP);
            assertTrue(s.lastError().contains("needs 2 data VLs") && s.lastError().contains("has 1")
                    && s.lastError().contains("no switch was changed"), s.lastError());
            assertEquals(0, fabric.node("G0_S0").management().tables().current().version(), "nothing was written");
        }
    }
}
