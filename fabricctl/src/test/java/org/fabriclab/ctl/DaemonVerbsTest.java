package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import org.fabriclab.emulator.EmulatedFabric;
import org.fabriclab.manager.AdminService;
import org.fabriclab.manager.FabricManager;
import org.fabriclab.manager.PerfManager;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/** fabricctl's daemon verbs against a real manager over a real socket, managing an emulated fabric. */
class DaemonVerbsTest {
    @Test
    void verbsTalkToTheDaemon() throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("paper:ib-ar-c1"), EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = new FabricManager(fabric.endpoint("A"), "minhop", null, new SimpleMeterRegistry());
             PerfManager perf = new PerfManager(manager, new SimpleMeterRegistry(), 1000)) {
            Server admin = NettyServerBuilder.forAddress(new InetSocketAddress("localhost", 0))
                    .addService(new AdminService(manager, perf)).build().start();
            String server = "localhost:" + admin.getPort();
            try {
                assertEquals("UP", manager.sweep().get(60, TimeUnit.SECONDS).state().name());
                FabricCtlTest.Run status = FabricCtlTest.run("status", "--server", server, "--json");
                assertEquals(0, status.code(), status.err());
                for (String field : new String[] {"\"state\":\"UP\"", "\"switches\":2", "\"hosts\":6", "\"links\":8", "\"engine\":\"minhop\"",
                    "\"tableVersion\":1", "\"lastHeavySweepMillis\":", "\"upSinceEpochMillis\":"}) {
                    assertTrue(status.out().contains(field), field + " in " + status.out());
                }
                FabricCtlTest.Run trace = FabricCtlTest.run("route", "A", "D", "--server", server, "--json");
                assertEquals(0, trace.code(), trace.err());
                assertTrue(trace.out().contains("\"delivered\":true"), trace.out());
                assertTrue(trace.out().startsWith("{\"src\":\"A\",\"dst\":\"D\",\"hops\":[{\"node\":\"A\",\"port\":1},{\"node\":\"SW1\""));

                FabricCtlTest.Run tables = FabricCtlTest.run("tables", "SW2", "--server", server, "--json");
                assertEquals(0, tables.code(), tables.err());
                assertTrue(tables.out().contains("\"destination\":\"D\""), tables.out());

                FabricCtlTest.Run engine = FabricCtlTest.run("engine", "set", "updn", "--server", server, "--json");
                assertEquals(0, engine.code(), engine.err());
                assertTrue(engine.out().contains("\"engine\":\"updn\""), engine.out());
                assertTrue(engine.out().contains("\"guarantees\":{\"deadlockFree\":true,\"lanes\":1,\"sourceRoutes\":false}"), engine.out());
                FabricCtlTest.Run bad = FabricCtlTest.run("engine", "set", "bogus", "--server", server);
                assertEquals(2, bad.code());
                assertTrue(bad.err().contains("INVALID_ARGUMENT: unknown routing engine 'bogus'"), bad.err());

                FabricCtlTest.Run unknown = FabricCtlTest.run("route", "A", "nobody", "--server", server);
                assertEquals(2, unknown.code());
                assertTrue(unknown.err().contains("no host named \"nobody\""), unknown.err());

                perf.poll();
                FabricCtlTest.Run counters = FabricCtlTest.run("counters", "SW1", "--server", server, "--json");
                assertEquals(0, counters.code(), counters.err());
                assertTrue(counters.out().contains("{\"node\":\"SW1\",\"port\":4,\"xmitBytes\":"), counters.out());
                FabricCtlTest.Run noSuch = FabricCtlTest.run("counters", "nobody", "--server", server);
                assertEquals(2, noSuch.code());

                FabricCtlTest.Run sweep = FabricCtlTest.run("sweep", "--server", server, "--json");
                assertEquals(0, sweep.code(), sweep.err());
                assertTrue(sweep.out().contains("\"heavySweeps\":3"), sweep.out());

                FabricCtlTest.Run job = FabricCtlTest.run("job", "route", "A,D", "--server", server, "--json");
                assertEquals(0, job.code(), job.err());
                assertTrue(job.out().contains("\"jobNodes\":\"A,D\""), job.out());
                FabricCtlTest.Run badJob = FabricCtlTest.run("job", "route", "A,nobody", "--server", server);
                assertEquals(2, badJob.code());
                assertTrue(badJob.err().contains("INVALID_ARGUMENT") && badJob.err().contains("nobody"), badJob.err());
                FabricCtlTest.Run clear = FabricCtlTest.run("job", "clear", "--server", server, "--json");
                assertEquals(0, clear.code(), clear.err());
                assertTrue(clear.out().contains("\"jobNodes\":\"\""), clear.out());
            } finally {
                admin.shutdownNow();
            }
        }
        FabricCtlTest.Run down = FabricCtlTest.run("status", "--server", "localhost:1");
        assertEquals(3, down.code());
        assertTrue(down.err().contains("is not reachable"), down.err());
    }
}
