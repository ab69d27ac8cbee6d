package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.AdminService;
import org.fabriclab.manager.FabricManager;
import org.fabriclab.manager.PerfManager;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/** fabricctl's daemon verbs against a real manager over a real socket, managing an emulated fabric; JSON answers parsed. */
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
                JsonNode st = status.json();
                assertEquals("UP", st.path("state").asText());
                assertEquals(2, st.path("switches").asInt());
                assertEquals(6, st.path("hosts").asInt());
                assertEquals(8, st.path("links").asInt());
                assertEquals("minhop", st.path("engine").asText());
                assertEquals(1, st.path("tableVersion").asInt());
                assertTrue(st.path("lastHeavySweepMillis").isNumber() && st.path("upSinceEpochMillis").isNumber(), status.out());

                FabricCtlTest.Run trace = FabricCtlTest.run("route", "A", "D", "--server", server, "--json");
                assertEquals(0, trace.code(), trace.err());
                JsonNode tr = trace.json();
                assertTrue(tr.path("delivered").asBoolean(), trace.out());
                assertEquals("A", tr.path("src").asText());
                assertEquals("D", tr.path("dst").asText());
                assertEquals(FabricCtlTest.parse("{\"node\":\"A\",\"port\":1}"), tr.path("hops").path(0));
                assertEquals("SW1", tr.path("hops").path(1).path("node").asText());

                // readable: an aligned table of hops, the in port of each the out port of the one before's peer
                FabricCtlTest.Run table = FabricCtlTest.run("route", "A", "D", "--server", server);
                assertEquals(0, table.code(), table.err());
                List<String> rows = table.out().lines().toList();
                assertTrue(rows.get(0).startsWith("A -> D (DLID 0x") && rows.get(0).endsWith("delivered"), table.out());
                assertTrue(rows.get(1).matches("hop +node +lid +in +out +next"), table.out());
                assertTrue(rows.get(2).matches("0 +A +0x[0-9a-f]{4} +- +1 +SW1"), table.out());
                assertTrue(rows.get(3).matches("1 +SW1 +0x[0-9a-f]{4} +\\d+ +4 +SW2"), table.out());
                assertTrue(rows.get(4).matches("2 +SW2 +0x[0-9a-f]{4} +\\d+ +1 +D"), table.out());
                assertEquals(rows.get(1).indexOf("node"), rows.get(3).indexOf("SW1"), "columns aligned:\n" + table.out());
                assertFalse(table.out().contains("{"), "no raw JSON: " + table.out());

                FabricCtlTest.Run tables = FabricCtlTest.run("tables", "SW2", "--server", server, "--json");
                assertEquals(0, tables.code(), tables.err());
                JsonNode entries = tables.json().path("entries");
                assertTrue(entries.isArray() && entries.findValuesAsText("destination").contains("D"), tables.out());

                FabricCtlTest.Run engine = FabricCtlTest.run("engine", "set", "updn", "--server", server, "--json");
                assertEquals(0, engine.code(), engine.err());
                assertEquals("updn", engine.json().path("engine").asText(), engine.out());
                JsonNode g = engine.json().path("guarantees");
                assertTrue(g.path("deadlockFree").asBoolean() && g.path("lanes").asInt() == 1 && !g.path("sourceRoutes").asBoolean(), engine.out());
                FabricCtlTest.Run bad = FabricCtlTest.run("engine", "set", "bogus", "--server", server);
                assertEquals(2, bad.code());
                assertTrue(bad.err().contains("INVALID_ARGUMENT: unknown routing engine 'bogus'"), bad.err());
                FabricCtlTest.Run torus = FabricCtlTest.run("engine", "set", "torus-sssp", "--server", server);
                assertEquals(2, torus.code());
                assertTrue(torus.err().startsWith("fabricctl: FAILED_PRECONDITION: engine chain 'torus-sssp' cannot route this fabric: "
                        + "torus-sssp: "), torus.err());
                assertEquals("updn", FabricCtlTest.run("engine", "--server", server, "--json").json().path("engine").asText(), "unchanged");

                FabricCtlTest.Run unknown = FabricCtlTest.run("route", "A", "nobody", "--server", server);
                assertEquals(2, unknown.code());
                assertTrue(unknown.err().contains("no host named \"nobody\""), unknown.err());

                perf.poll();
                FabricCtlTest.Run counters = FabricCtlTest.run("counters", "SW1", "--server", server, "--json");
                assertEquals(0, counters.code(), counters.err());
                JsonNode link = counters.json().path("links").path(0);
                assertEquals("SW1", link.path("node").asText(), counters.out());
                assertTrue(link.path("port").isInt() && link.path("xmitBytes").isNumber() && link.path("utilisation").isNumber()
                        && link.path("rcvErrors").isNumber(), counters.out());
                FabricCtlTest.Run host = FabricCtlTest.run("counters", "A", "--server", server, "--json");
                assertEquals(0, host.code(), host.err());
                JsonNode nic = host.json().path("hosts").path(0);
                assertEquals("A", nic.path("node").asText(), host.out());
                assertTrue(nic.path("requestFlits").isNumber() && nic.path("requestFlitsStalledCycles").isNumber()
                        && nic.path("latencySampledPackets").isNumber(), host.out());
                assertEquals(1, host.json().path("hosts").size(), "the named host's only");
                FabricCtlTest.Run text = FabricCtlTest.run("counters", "--server", server);
                assertTrue(text.out().contains("host NIC") && text.out().contains("request flits") && text.out().contains("rcv errors"), text.out());
                FabricCtlTest.Run noSuch = FabricCtlTest.run("counters", "nobody", "--server", server);
                assertEquals(2, noSuch.code());

                FabricCtlTest.Run sweep = FabricCtlTest.run("sweep", "--server", server, "--json");
                assertEquals(0, sweep.code(), sweep.err());
                assertEquals(3, sweep.json().path("heavySweeps").asInt(), sweep.out());

                FabricCtlTest.Run job = FabricCtlTest.run("job", "route", "A,D", "--server", server, "--json");
                assertEquals(0, job.code(), job.err());
                assertEquals("A,D", job.json().path("jobNodes").asText(), job.out());
                FabricCtlTest.Run badJob = FabricCtlTest.run("job", "route", "A,nobody", "--server", server);
                assertEquals(2, badJob.code());
                assertTrue(badJob.err().contains("INVALID_ARGUMENT") && badJob.err().contains("nobody"), badJob.err());
                FabricCtlTest.Run clear = FabricCtlTest.run("job", "clear", "--server", server, "--json");
                assertEquals(0, clear.code(), clear.err());
                assertEquals("", clear.json().path("jobNodes").asText(), clear.out());
            } finally {
                admin.shutdownNow();
            }
        }
        FabricCtlTest.Run down = FabricCtlTest.run("status", "--server", "localhost:1");
        assertEquals(3, down.code());
        assertTrue(down.err().contains("is not reachable"), down.err());
    }
}
