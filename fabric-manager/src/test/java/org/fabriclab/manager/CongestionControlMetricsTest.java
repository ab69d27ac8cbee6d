package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NIC congestion control on the live plane (issue 19): the hosts of an emulated fabric run DCQCN or
 * Swift ({@code EmulatedFabric.Options.withCongestionControl}, what {@code --cc} sets), the
 * switches mark ECN for DCQCN, and a manager polling them over the management contract exports
 * what they did: the switch's marked packets, each NIC's control packets by kind and direction
 * (only on NICs that run one), and the admin contract's samples the same. Four hosts on one switch,
 * all-to-all, a fixed number of packets each.
 */
class CongestionControlMetricsTest {
    private static final int PACKETS = 100;
    private static final String SPEC = "fat-tree:k=4,levels=1";

    /**
     * DCQCN with every ECN-capable packet marked (Kmin 0, Kmax 1 byte: any queue, the packet itself,
     * is above it): the switch marks every data packet; each receiver answers with CNPs, at most
     * one per flow per 50 us, at least one per flow; each CNP arrives, is counted, and cuts a rate.
     */
    @Test
    void dcqcnHostsAndTheirSwitchExportMarksAndCnps(@TempDir Path dir) throws Exception {
        CongestionControl.Settings dcqcn = CongestionControl.settings("dcqcn", Map.of("kmin_bytes", "0", "kmax_bytes", "1"));
        Map<String, Double> m = run(dcqcn, dir);
        List<String> hosts = hostNames();
        double cnpsSent = 0;
        double cnpsReceived = 0;
        for (String h : hosts) {
            double sent = value(m, "fabric_host_nic_cc_control_packets_total", "cc=\"dcqcn\"", "direction=\"sent\"", "node=\"" + h + "\"");
            double received = value(m, "fabric_host_nic_cc_control_packets_total", "kind=\"cnp\"", "direction=\"received\"",
                    "node=\"" + h + "\"");
            assertTrue(sent >= hosts.size() - 1, h + " heard from " + (hosts.size() - 1) + " flows, every packet marked: at least a CNP "
                    + "each, not " + sent);
            assertEquals(0.0, value(m, "fabric_host_nic_cc_control_packets_total", "kind=\"ack\"", "node=\"" + h + "\""), h + ": no ACKs");
            assertEquals(0.0, value(m, "fabric_host_nic_cc_control_dropped_packets_total", "node=\"" + h + "\""), h);
            cnpsSent += sent;
            cnpsReceived += received;
        }
        assertEquals(cnpsSent, cnpsReceived, "every CNP sent arrived (lossless)");
        assertEquals((double) PACKETS * hosts.size(), value(m, "fabric_switch_ecn_marked_packets_total", "node="),
                "the one switch marked every data packet, and no CNP (not ECN-capable)");
    }

    /** Swift: every data packet is acknowledged, and every ACK comes back to its sender; no switch marks. */
    @Test
    void swiftHostsExportAnAckPerPacket(@TempDir Path dir) throws Exception {
        Map<String, Double> m = run(CongestionControl.settings("swift", Map.of()), dir);
        List<String> hosts = hostNames();
        for (String h : hosts) {
            assertEquals((double) PACKETS, value(m, "fabric_host_nic_cc_control_packets_total", "cc=\"swift\"", "kind=\"ack\"", "direction=\"received\"",
                    "node=\"" + h + "\""), h + ": an ACK per packet it sent");
        }
        assertEquals((double) PACKETS * hosts.size(), value(m, "fabric_host_nic_cc_control_packets_total", "direction=\"sent\""),
                "an ACK per packet received");
        assertTrue(m.keySet().stream().noneMatch(k -> k.startsWith("fabric_switch_ecn_marked_packets_total")), "no switch marks for Swift");
    }

    /**
     * Brings a live fabric of {@link #SPEC} whose hosts run {@code cc} up under a manager, sends
     * {@link #PACKETS} from every host all-to-all, waits until the control packets settle, polls
     * and returns the scrape's samples (promtool accepting the exposition); the admin contract's
     * NIC samples agree with it.
     */
    private static Map<String, Double> run(CongestionControl.Settings cc, Path dir) throws Exception {
        PrometheusMeterRegistry registry = MetricsServer.newRegistry();
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC),
                EmulatedFabric.Options.DEFAULTS.withLinkGbps(10).withCongestionControl(cc));
             FabricManager manager = new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), "minhop", null, registry);
             PerfManager perf = new PerfManager(manager, registry, 1000);
             MetricsServer server = new MetricsServer(registry, 0)) {
            FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, s.state(), s.lastError());
            List<LiveHost> hosts = fabric.hosts();
            fabric.startTraffic(TrafficPattern.ALL_TO_ALL, 0, 256, PACKETS, s.outcome().tables());
            long expected = (long) PACKETS * hosts.size();
            Waits.until("every packet arrived", () -> hosts.stream().mapToLong(h -> h.stats().join().received()).sum() >= expected);
            // every control packet sent has arrived (the fabric is lossless), and each data packet was answered as the algorithm asks
            Waits.until("every control packet sent arrived", () -> node(hosts, PortCounterArray.NIC_CONTROL_SENT) > 0
                    && node(hosts, PortCounterArray.NIC_CONTROL_SENT)
                    == node(hosts, PortCounterArray.NIC_CNPS_RECEIVED) + node(hosts, PortCounterArray.NIC_ACKS_RECEIVED));
            // and none is left in a NIC's control queue: the count of those sent stays put
            Waits.settled("control packets sent", () -> node(hosts, PortCounterArray.NIC_CONTROL_SENT), Duration.ofMillis(300));
            perf.poll();
            String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://localhost:" + server.port()
                    + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            Map<String, Double> m = QLearningMetricsTest.samples(body);
            for (PerfManager.NicSample n : perf.nicSamples()) {
                assertEquals(cc.name(), n.congestionControl(), n.node());
                assertEquals(value(m, "fabric_host_nic_cc_control_packets_total", "kind=\"any\"", "node=\"" + n.node() + "\""),
                        (double) n.controlSent(), n.node() + ": the admin contract's sample and the metric agree");
            }
            for (LiveSwitch sw : fabric.switches()) {
                assertEquals(cc.marking() != null, m.containsKey("fabric_switch_ecn_marked_packets_total{node=\"" + sw.name() + "\"}"),
                        sw.name());
            }
            MetricsTest.promtoolAccepts(dir, body);
            return m;
        }
    }

    /** Node counter {@code counter} summed over {@code hosts}. */
    private static long node(List<LiveHost> hosts, int counter) {
        return hosts.stream().mapToLong(h -> h.management().counters().getNode(counter)).sum();
    }

    private static List<String> hostNames() {
        org.fabriclab.routing.fabric.Fabric f = Topologies.generate(SPEC);
        return java.util.stream.IntStream.range(0, f.endpointCount()).mapToObj(e -> f.name(f.endpointNode(e))).toList();
    }

    /** The sum of the samples of {@code name} whose labels hold every one of {@code labels}. */
    private static double value(Map<String, Double> m, String name, String... labels) {
        double sum = 0;
        for (Map.Entry<String, Double> e : m.entrySet()) {
            if (!e.getKey().startsWith(name + "{")) {
                continue;
            }
            boolean all = true;
            for (String l : labels) {
                all &= e.getKey().contains(l);
            }
            sum += all ? e.getValue() : 0;
        }
        return sum;
    }
}
