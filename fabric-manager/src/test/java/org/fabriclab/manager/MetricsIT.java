package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.LiveRates;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The metrics a manager exports about live traffic measured against the clock (flow throughput,
 * fairness of congested ports): an integration test ({@code mvn verify}), as its figures depend on
 * the machine keeping up with 1 Gbps links in real time; where it did not (the flows carried less
 * than 85% of the 2 Gbps the links allow them, the least the assertions below accept), the test is
 * aborted with the figures rather than failed.
 */
class MetricsIT {
    /** Packets each flow delivers before the measurement starts. */
    private static final long WARM_PACKETS = 20_000;

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
                ((LiveHost) fabric.node(flows[i][0])).start(
                        new Traffic(new int[] {dlid}, TrafficPattern.ALL_TO_ALL, 1, 2048, 0, i + 1));
            }
            Waits.until("every flow under way (the JIT has compiled the forwarding path)", () -> {
                for (String[] flow : flows) {
                    if (((LiveHost) fabric.node(flow[1])).stats().join().received() < WARM_PACKETS) {
                        return false;
                    }
                }
                return true;
            });
            perf.poll();
            Thread.sleep(1500); // the measurement window: the rates below are over it (not a wait for anything)
            perf.poll();
            String body = registry.scrape();
            double[] gbps = new double[3];
            for (int i = 0; i < 3; i++) {
                gbps[i] = value(body, "fabric_flow_throughput_bytes_per_second{dst=\"" + flows[i][1] + "\",src=\"" + flows[i][0] + "\"}") * 8 / 1e9;
            }
            LiveRates.assumeKeptUp("the three flows' Gbps over the window", Arrays.stream(gbps).sum(), 2.0, 0.85);
            double[] sorted = gbps.clone();
            Arrays.sort(sorted);
            assertEquals(0.5, sorted[0], 0.075, Arrays.toString(gbps));
            assertEquals(0.5, sorted[1], 0.075, Arrays.toString(gbps));
            assertEquals(1.0, sorted[2], 0.15, Arrays.toString(gbps));
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
            assertTrue(body.contains("fabric_link_info{kind=\"switch\",node=\"SW1\",port=\"" + shared + "\""), body);
            MetricsTest.promtoolAccepts(dir, body);
        }
    }

    /** The value of the sample named exactly {@code series} (name and labels) in an exposition. */
    private static double value(String body, String series) {
        return body.lines().filter(l -> l.startsWith(series + " ")).mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1)))
                .findFirst().orElseThrow(() -> new AssertionError("no sample " + series + " in\n" + body));
    }
}
