package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
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
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The /metrics endpoint of a manager running an emulated fabric with traffic: the manager's meters
 * and per-link meters are there, and Debian's {@code promtool check metrics} accepts the exposition.
 * CI installs promtool and sets FABRICLAB_REQUIRE_PROMTOOL so that a missing promtool fails there.
 */
class MetricsTest {
    @Test
    void exportsManagerAndLinkMetricsThatPromtoolAccepts(@TempDir Path dir) throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("rlft:leaves=2,spines=1,hosts=2"), EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = new FabricManager(fabric.endpoint("L0_H0"), "minhop", null, registry);
             PerfManager perf = new PerfManager(manager, registry, 1000);
             MetricsServer server = new MetricsServer(registry, 0)) {
            assertEquals(FabricManager.State.UP, manager.sweep().get(60, TimeUnit.SECONDS).state());
            fabric.startTraffic(TrafficPattern.ALL_TO_ALL, 0, 1024, 200);
            EndToEndTest.await(() -> fabric.hosts().stream().mapToLong(h -> h.stats().join().received()).sum() == 800);
            perf.poll();
            String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + server.port() + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(body.contains("fabric_switches 3.0"), body);
            assertTrue(body.contains("fabric_hosts 4.0"));
            assertTrue(body.contains("fabric_sweep_duration_seconds_count 1"));
            assertTrue(body.contains("fabric_port_transmit_bytes_total{node=\"L0\",port=\"3\"}"));
            assertTrue(body.contains("fabric_port_utilisation_ratio{node=\"L0_H0\",port=\"1\"}"));
            // L0_H0 sent 200 packets of 1024 + 29 bytes
            assertTrue(body.contains("fabric_port_transmit_packets_total{node=\"L0_H0\",port=\"1\"} 200.0"), body);

            promtoolAccepts(dir, body);
        }
    }

    static void promtoolAccepts(Path dir, String body) throws Exception {
        {
            Path file = dir.resolve("metrics.txt");
            Files.writeString(file, body);
            boolean havePromtool = Files.isExecutable(Path.of("/usr/bin/promtool"));
            if (System.getenv("FABRICLAB_REQUIRE_PROMTOOL") == null) {
                Assumptions.assumeTrue(havePromtool, "promtool not installed (Debian package prometheus); .ci/run installs it");
            }
            Process p = new ProcessBuilder("promtool", "check", "metrics").redirectInput(file.toFile()).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), "promtool check metrics refused the exposition:\n" + out);
        }
    }

    /**
     * Fairness on the dashboard: C1 S2 of the adaptive-routing paper, routed by minhop (three flows
     * over two parallel links, so two of them share one link). After one polling interval the
     * shared link's output is congested, its two inputs get half each (Jain 1), the flows'
     * throughputs are 1/2, 1/2 and 1 of a link, and promtool accepts it all.
     */
    @Test
    void exportsFlowThroughputAndTheFairnessOfCongestedPorts(@TempDir Path dir) throws Exception {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("paper:ib-ar-c1"), EmulatedFabric.Options.DEFAULTS.withLinkGbps(1));
             FabricManager manager = new FabricManager(fabric.endpoint("A"), "minhop", null, registry);
             PerfManager perf = new PerfManager(manager, registry, 60_000)) {
            assertEquals(FabricManager.State.UP, manager.sweep().get(60, TimeUnit.SECONDS).state());
            String[][] flows = {{"A", "D"}, {"B", "E"}, {"C", "F"}};
            for (int i = 0; i < flows.length; i++) {
                int dlid = fabric.node(flows[i][1]).management().port(1).lid();
                ((org.fabriclab.agent.link.LiveHost) fabric.node(flows[i][0])).start(
                        new Traffic(new int[] {dlid}, TrafficPattern.ALL_TO_ALL, 1, 2048, 0, i + 1));
            }
            Thread.sleep(1500); // the JIT compiles the forwarding path
            perf.poll();
            Thread.sleep(1500);
            perf.poll();
            String body = registry.scrape();
            double[] gbps = new double[3];
            for (int i = 0; i < 3; i++) {
                gbps[i] = value(body, "fabric_flow_throughput_gbps{dst=\"" + flows[i][1] + "\",src=\"" + flows[i][0] + "\"}");
            }
            double[] sorted = gbps.clone();
            java.util.Arrays.sort(sorted);
            assertEquals(0.5, sorted[0], 0.075, java.util.Arrays.toString(gbps));
            assertEquals(0.5, sorted[1], 0.075, java.util.Arrays.toString(gbps));
            assertEquals(1.0, sorted[2], 0.15, java.util.Arrays.toString(gbps));
            // SW1's output carrying two flows: congested, its two inputs at half each
            int shared = -1;
            for (int p = 4; p <= 5; p++) {
                String port = "node=\"SW1\",port=\"" + p + "\"";
                boolean shares = body.lines().anyMatch(l -> l.startsWith("fabric_port_input_share_ratio{") && l.contains(port));
                if (value(body, "fabric_port_congested{" + port + "}") == 1 && shares) {
                    shared = p;
                }
            }
            assertTrue(shared > 0, "one of SW1's inter-switch ports is congested:\n" + body);
            assertEquals(1.0, value(body, "fabric_port_input_fairness{node=\"SW1\",port=\"" + shared + "\"}"), 0.02);
            String sharedPort = "node=\"SW1\",port=\"" + shared + "\"";
            long shares = body.lines().filter(l -> l.startsWith("fabric_port_input_share_ratio{") && l.contains(sharedPort))
                    .peek(l -> assertEquals(0.5, Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)), 0.05, l)).count();
            assertEquals(2, shares, body);
            assertTrue(body.contains("fabric_destination_flow_fairness{node=\"D\"} 1.0"), body);
            assertTrue(body.contains("fabric_port_queue_depth_packets{node=\"SW2\""), body);
            promtoolAccepts(dir, body);
        }
    }

    /** The value of the sample named exactly {@code series} (name and labels) in an exposition. */
    private static double value(String body, String series) {
        return body.lines().filter(l -> l.startsWith(series + " ")).mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1)))
                .findFirst().orElseThrow(() -> new AssertionError("no sample " + series + " in\n" + body));
    }
}
