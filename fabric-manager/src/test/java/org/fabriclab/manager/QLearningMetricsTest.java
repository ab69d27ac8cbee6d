package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.NicCounters;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.DragonflyState;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Q-adaptive's learning on {@code /metrics} (docs/metrics.md, "Switches"), from a manager polling
 * live agents: per switch, and only per switch (one series each, never per row), the Q-table
 * updates and explorations as counters equal to what the switches report over the management
 * contract, how far the values moved (a counter, and its mean per table entry over the last poll),
 * and the share of non-minimal decisions over the last poll; none of the interval figures before a
 * second poll; and every host's NIC counters. Debian's {@code promtool check metrics} accepts the exposition.
 */
class QLearningMetricsTest {
    private static final int PACKETS = 200;

    @Test
    void qAdaptiveSwitchesExportTheirLearningPerSwitch(@TempDir Path dir) throws Exception {
        PrometheusMeterRegistry registry = MetricsServer.newRegistry();
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(DragonflyLiveTest.SPEC),
                EmulatedFabric.Options.DEFAULTS.withLanes(5, 8, 0));
             FabricManager manager = new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), "q-adaptive", null, registry);
             PerfManager perf = new PerfManager(manager, registry, 1000);
             MetricsServer server = new MetricsServer(registry, 0)) {
            FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, s.state(), s.lastError());
            perf.poll();
            Map<String, Double> first = samples(scrape(server));
            for (LiveSwitch sw : fabric.switches()) {
                assertEquals(0.0, first.get("fabric_switch_q_updates_total{node=\"" + sw.name() + "\"}"), sw.name());
                assertEquals(0.0, first.get("fabric_switch_q_change_seconds_total{node=\"" + sw.name() + "\"}"), sw.name());
                assertFalse(first.containsKey("fabric_switch_q_change_mean_seconds{node=\"" + sw.name() + "\"}"), "no interval yet");
                assertFalse(first.containsKey("fabric_switch_nonminimal_decision_ratio{node=\"" + sw.name() + "\"}"), "no interval yet");
            }

            DragonflyLiveTest.carryAdversarialTraffic(fabric, s, PACKETS);
            Waits.settled("Q-table updates", () -> DragonflyLiveTest.states(manager, fabric).stream()
                    .mapToLong(DragonflyState::getQUpdates).sum(), Duration.ofMillis(200));
            perf.poll();
            String body = scrape(server);
            Map<String, Double> after = samples(body);
            List<DragonflyState> states = DragonflyLiveTest.states(manager, fabric);
            for (int i = 0; i < states.size(); i++) {
                DragonflyState st = states.get(i);
                String node = "{node=\"" + fabric.switches().get(i).name() + "\"}";
                assertEquals((double) st.getQUpdates(), after.get("fabric_switch_q_updates_total" + node), node);
                assertTrue(st.getQUpdates() > 0, node);
                assertEquals((double) st.getQExplorations(), after.get("fabric_switch_q_explorations_total" + node), node);
                Double moved = after.get("fabric_switch_q_change_seconds_total" + node);
                assertTrue(moved != null && moved > 0, node + ": " + moved);
                // the first poll saw nothing moved: the interval's change is all of it, over rows x columns
                Double mean = after.get("fabric_switch_q_change_mean_seconds" + node);
                assertNotNull(mean, node);
                assertEquals(moved / (st.getRows() * st.getColumns()), mean, moved * 1e-9, node);
                long decisions = st.getMinimalDecisions() + st.getNonminimalDecisions();
                if (decisions > 0) {
                    assertEquals(Math.round(st.getNonminimalDecisions() / (double) decisions * 1e6) / 1e6,
                            after.get("fabric_switch_nonminimal_decision_ratio" + node), 1e-9, node);
                }
            }
            // bounded: one series per switch and name, whatever the table's size
            for (String name : List.of("fabric_switch_q_updates_total", "fabric_switch_q_explorations_total",
                    "fabric_switch_q_change_seconds_total", "fabric_switch_q_change_mean_seconds")) {
                assertEquals(20, after.keySet().stream().filter(k -> k.startsWith(name + "{")).count(), name);
            }
            nicCountersOfEveryHost(fabric, perf, after);
            MetricsTest.promtoolAccepts(dir, body);
        }
    }

    /**
     * The hosts' NIC counters (issue 19, Aries' request flits, stalled cycles and sampled latency)
     * after every host sent {@link #PACKETS}: one series per host and name, request flits exactly
     * the packets sent times their flits, every packet sampled once by its sender (its round trip,
     * when its response is back), a mean round trip longer than the global cable every ADV+1 packet
     * crosses, mean hops between that one global link and the algorithm's bound; the perf manager's
     * samples (the admin contract's) the same.
     */
    private static void nicCountersOfEveryHost(EmulatedFabric fabric, PerfManager perf, Map<String, Double> m) {
        List<LiveHost> hosts = fabric.hosts();
        long flitsPerPacket = NicCounters.flits(FrameSizes.DATA_HEADER + DragonflyLiveTest.PAYLOAD);
        double sampled = 0;
        for (LiveHost h : hosts) {
            String node = "{node=\"" + h.name() + "\"}";
            assertEquals((double) PACKETS * flitsPerPacket, m.get("fabric_host_nic_request_flits_total" + node), node);
            Double stalled = m.get("fabric_host_nic_request_stalled_cycles_total" + node);
            assertTrue(stalled != null && stalled >= 0, node + ": " + stalled);
            double packets = m.get("fabric_host_nic_latency_sampled_packets_total" + node);
            sampled += packets;
            if (packets > 0) {
                double meanNs = m.get("fabric_host_nic_latency_seconds_total" + node) / packets * 1e9;
                assertTrue(meanNs > 10_000, node + ": mean latency " + meanNs + " ns, under the global cable's 10 us");
                double meanHops = m.get("fabric_host_nic_received_hops_total" + node) / packets;
                assertTrue(meanHops >= 1 && meanHops <= 5, node + ": mean hops " + meanHops + ", outside an ADV+1 packet's 1 global "
                        + "link to Q-adaptive's bound of 5");
            }
        }
        assertEquals((double) PACKETS * hosts.size(), sampled, "every packet sent sampled once");
        for (String name : List.of("fabric_host_nic_request_flits_total", "fabric_host_nic_request_stalled_cycles_total",
                "fabric_host_nic_latency_sampled_packets_total", "fabric_host_nic_latency_seconds_total",
                "fabric_host_nic_received_hops_total")) {
            assertEquals(hosts.size(), m.keySet().stream().filter(k -> k.startsWith(name + "{")).count(), name + ": one per host");
        }
        List<PerfManager.NicSample> nics = perf.nicSamples();
        assertEquals(hosts.size(), nics.size());
        assertEquals(PACKETS * flitsPerPacket, nics.get(0).requestFlits());
    }

    private static String scrape(MetricsServer server) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + server.port() + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /** Each sample line of a text exposition, {@code name{labels}} to its value. */
    static Map<String, Double> samples(String body) {
        Map<String, Double> out = new HashMap<>();
        for (String line : body.split("\n")) {
            int space = line.lastIndexOf(' ');
            if (line.isEmpty() || line.startsWith("#") || space < 0) {
                continue;
            }
            out.put(line.substring(0, space), Double.parseDouble(line.substring(space + 1)));
        }
        return out;
    }
}
