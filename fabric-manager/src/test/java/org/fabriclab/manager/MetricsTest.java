package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.monitoring.Promtool;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The /metrics endpoint of a manager running an emulated fabric with traffic: the manager's meters
 * and per-link meters are there, and Debian's {@code promtool check metrics} accepts the exposition.
 * CI installs promtool and sets FABRICLAB_REQUIRE_PROMTOOL so that a missing promtool fails there.
 * The throughput and fairness figures, measured against the clock, are {@link MetricsIT}'s.
 */
class MetricsTest {
    @Test
    void exportsManagerAndLinkMetricsThatPromtoolAccepts(@TempDir Path dir) throws Exception {
        PrometheusMeterRegistry registry = MetricsServer.newRegistry(); // with the JVM and process binders the daemon has
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("rlft:leaves=2,spines=1,hosts=2"), EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = new FabricManager(fabric.endpoint("L0_H0"), "minhop", null, registry);
             PerfManager perf = new PerfManager(manager, registry, 1000);
             MetricsServer server = new MetricsServer(registry, 0)) {
            long upSince = manager.sweep().get(60, TimeUnit.SECONDS).upSinceEpochMillis();
            assertTrue(upSince > 0);
            FabricManager.Snapshot again = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, again.state());
            assertEquals(upSince, again.upSinceEpochMillis(), "up since the first sweep: a sweep that succeeds does not reset it");
            fabric.startTraffic(TrafficPattern.ALL_TO_ALL, 0, 1024, 200);
            Waits.until("every packet arrived", () -> fabric.hosts().stream().mapToLong(h -> h.stats().join().received()).sum() == 800);
            perf.poll();
            String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + server.port() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(body.contains("fabric_switches 3.0"), body);
            assertTrue(body.contains("fabric_hosts 4.0"));
            assertTrue(body.contains("fabric_sweep_duration_seconds_count 2"));
            assertTrue(body.contains("fabric_up_since_seconds "), body);
            assertTrue(body.contains("fabric_port_transmit_bytes_total{node=\"L0\",port=\"3\"}"));
            assertTrue(body.contains("fabric_port_utilisation_ratio{node=\"L0_H0\",port=\"1\"}"));
            assertTrue(body.contains("fabric_port_transmit_bytes_total{node=\"L0_H0\",port=\"1\"}"), body);
            assertEquals(200, perf.samples().stream().filter(l -> l.node().equals("L0_H0")).findFirst().orElseThrow().xmitPkts(),
                    "L0_H0 sent its 200 packets");
            assertTrue(body.contains("fabric_link_info{kind=\"host\",node=\"L0_H0\",port=\"1\",rate_gbps=\"100\",remote_node=\"L0\""), body);
            assertTrue(body.contains("fabric_state{state=\"UP\"} 1.0"), body);
            assertTrue(body.contains("fabric_manager_info{engine=\"minhop\""), body);
            assertTrue(body.contains("process_cpu_seconds_total "), body);
            assertTrue(body.contains("jvm_gc_memory_allocated_bytes_total "), body);

            promtoolAccepts(dir, body);
        }
    }

    /** Debian's {@code promtool check metrics} accepts the exposition {@code body}. */
    static void promtoolAccepts(Path dir, String body) throws Exception {
        Path file = dir.resolve("metrics.txt");
        Files.writeString(file, body);
        Promtool.run(dir, file, "check", "metrics");
    }
}
