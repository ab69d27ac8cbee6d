package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.AdminGrpc;
import org.fabriclab.proto.v1.DumpTablesRequest;
import org.fabriclab.proto.v1.GetCountersRequest;
import org.fabriclab.proto.v1.GetStatusRequest;
import org.fabriclab.proto.v1.ManagerStatus;
import org.fabriclab.proto.v1.RouteJobRequest;
import org.fabriclab.proto.v1.SetEngineRequest;
import org.fabriclab.proto.v1.TraceRouteRequest;
import org.fabriclab.routing.text.Excerpt;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin service's limits, through a gRPC client and the service as the daemon serves it: a
 * node set of 10^9 names refused by its count, an engine that cannot route the fabric refused with
 * its reason (not set, no silent fallback), 64 KB inputs answered with a line; each refusal
 * changes nothing. And what {@code status} says while FAILED.
 */
class AdminLimitsTest {
    private static final String SPEC = "fat-tree:k=2,levels=3";

    private record Admin(Server server, ManagedChannel channel) implements AutoCloseable {
        static Admin of(FabricManager m) throws Exception {
            String name = InProcessServerBuilder.generateName();
            Server s = InProcessServerBuilder.forName(name).directExecutor().addService(AdminService.served(m, null, null)).build().start();
            return new Admin(s, InProcessChannelBuilder.forName(name).directExecutor().build());
        }

        <T> T call(Function<AdminGrpc.AdminBlockingStub, T> c) {
            return c.apply(AdminGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS));
        }

        Status refused(Function<AdminGrpc.AdminBlockingStub, ?> c) {
            return assertThrows(StatusRuntimeException.class, () -> call(c)).getStatus();
        }

        @Override
        public void close() {
            channel.shutdownNow();
            server.shutdownNow();
        }
    }

    /** What a refusal must not change. */
    private static String state(FabricManager m, Admin a) {
        ManagerStatus s = a.call(x -> x.getStatus(GetStatusRequest.getDefaultInstance()));
        return s.getState() + " " + s.getEngine() + " v" + s.getTableVersion() + " sweeps " + s.getHeavySweeps() + " job '"
                + s.getJobNodes() + "' chain " + m.snapshot().engineChain();
    }

    @Test
    void boundsAndRefusalsChangeNothing(@TempDir Path dir) throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
             FabricManager m = new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), "minhop", dir.resolve("guid2lid"),
                     new SimpleMeterRegistry());
             Admin a = Admin.of(m)) {
            assertEquals(FabricManager.State.UP, m.sweep().get(60, TimeUnit.SECONDS).state());
            String before = state(m, a);

            Status set = a.refused(x -> x.routeJob(RouteJobRequest.newBuilder().setNodes("H[0-999]_[0-999]_[0-999]").build()));
            assertEquals(Status.Code.INVALID_ARGUMENT, set.getCode());
            assertTrue(set.getDescription().contains("names 1000000000 hosts"), set.getDescription());

            Status torus = a.refused(x -> x.setEngine(SetEngineRequest.newBuilder().setChain("torus-sssp").build()));
            assertEquals(Status.Code.FAILED_PRECONDITION, torus.getCode(), torus.toString());
            assertTrue(torus.getDescription().startsWith("engine chain 'torus-sssp' cannot route this fabric: torus-sssp:"), torus.getDescription());
            assertTrue(torus.getDescription().contains("the chain stays 'minhop' and nothing was changed"), torus.getDescription());
            Status chained = a.refused(x -> x.setEngine(SetEngineRequest.newBuilder().setChain("torus-bfs,torus-sssp").build()));
            assertTrue(chained.getDescription().contains("torus-bfs:") && chained.getDescription().contains("; torus-sssp:"),
                    "every named engine's reason: " + chained.getDescription());

            String big = "x".repeat(65_536);
            for (Function<AdminGrpc.AdminBlockingStub, ?> c : java.util.List.<Function<AdminGrpc.AdminBlockingStub, ?>>of(
                    x -> x.routeJob(RouteJobRequest.newBuilder().setNodes(big).build()),
                    x -> x.setEngine(SetEngineRequest.newBuilder().setChain(big).build()),
                    x -> x.dumpTables(DumpTablesRequest.newBuilder().setSwitchName(big).build()),
                    x -> x.traceRoute(TraceRouteRequest.newBuilder().setSource(big).setDestination("H0_0_0").build()))) {
                Status s = a.refused(c);
                assertEquals(Status.Code.INVALID_ARGUMENT, s.getCode(), s.toString());
                assertTrue(s.getDescription().length() < 3 * Excerpt.QUOTED + 100 && s.getDescription().contains("(65536 characters)"), s.getDescription());
            }
            assertEquals(before, state(m, a), "no refusal changed anything");

            // a chain that names its fallback asks for it, and is set
            assertEquals("minhop", a.call(x -> x.setEngine(SetEngineRequest.newBuilder().setChain("torus-sssp,minhop").build())).getActive());
            assertEquals("torus-sssp,minhop", m.snapshot().engineChain());
        }
    }

    /** A description of any length leaves the service cut to {@link Excerpt#MESSAGE} characters, saying so. */
    @Test
    void descriptionsAreCut() {
        Status s = BoundedDescriptions.bounded(Status.INVALID_ARGUMENT.withDescription("y".repeat(100_000)));
        assertTrue(s.getDescription().length() <= Excerpt.MESSAGE, s.getDescription().substring(900));
        assertTrue(s.getDescription().endsWith("... (100000 characters in all)"));
        assertEquals("short", BoundedDescriptions.bounded(Status.INTERNAL.withDescription("short")).getDescription());
    }

    /**
     * While FAILED, status counts what the failing sweep discovered: nothing when discovery itself
     * failed (not the last sweep's 12 switches), the fabric when routing failed after it.
     */
    @Test
    void statusWhileFailedDoesNotKeepTheLastCounts(@TempDir Path dir) throws Exception {
        EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
        try (FabricManager m = new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), "minhop", dir.resolve("guid2lid"),
                new SimpleMeterRegistry());
             Admin a = Admin.of(m)) {
            ManagerStatus up = AdminService.status(m.sweep().get(60, TimeUnit.SECONDS));
            assertEquals(12, up.getSwitches());
            fabric.close();
            FabricManager.Snapshot failed = m.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.FAILED, failed.state());
            ManagerStatus s = a.call(x -> x.getStatus(GetStatusRequest.getDefaultInstance()));
            assertEquals("FAILED", s.getState());
            assertEquals(0, s.getSwitches(), "the fabric is not known now");
            assertEquals(0, s.getHosts());
            assertEquals(0, s.getLinks());
            assertEquals("minhop", s.getEngine(), "the engine whose tables the switches were last given");
            assertEquals(up.getTableVersion(), s.getTableVersion());
            assertTrue(!s.getLastError().isEmpty());
            Status counters = a.refused(x -> x.getCounters(GetCountersRequest.getDefaultInstance()));
            assertEquals(Status.Code.FAILED_PRECONDITION, counters.getCode(), "no perf manager here");
        } finally {
            fabric.close();
        }
        try (EmulatedFabric f2 = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
             FabricManager m = new FabricManager(f2.endpoint(f2.hosts().get(0).name()), "torus-sssp,no_fallback", null, new SimpleMeterRegistry())) {
            FabricManager.Snapshot s = m.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.FAILED, s.state());
            ManagerStatus st = AdminService.status(s);
            assertEquals(12, st.getSwitches(), "discovered by the failing sweep");
        }
    }
}
