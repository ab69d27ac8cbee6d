package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.fabriclab.manager.channel.NodeChannels;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.proto.v1.FlowCounter;
import org.fabriclab.proto.v1.FlowCounters;
import org.fabriclab.proto.v1.NodeCounters;
import org.fabriclab.proto.v1.PortCounters;
import org.fabriclab.proto.v1.XmitDiscards;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The perf manager and its exposition on a fabric as discovery sees it, fed counters made up
 * ({@link SyntheticCounters}, or edited replies): one call per node, series of what is gone
 * removed, the top K flows, discards by reason, receive errors, labels that join, failures counted.
 */
class PerfManagerTest {
    private static final Pattern SERIES = Pattern.compile("^(\\w+)\\{([^}]*)} (\\S+)$");
    private final Fabric fabric = Topologies.generate("fat-tree:k=4,levels=3");
    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final NodeChannels channels = new NodeChannels();
    private volatile FabricManager.Snapshot snapshot = FabricManager.Snapshot.initial("minhop").routing(SyntheticCounters.discovered(fabric, 100));
    private final SyntheticCounters synthetic = new SyntheticCounters(fabric, 100, 4, 10);

    @AfterEach
    void closeChannels() {
        channels.close();
    }

    private PerfManager perf(PerfManager.CounterSource source, int topFlows) {
        return new PerfManager(() -> snapshot, channels, source, registry, 60_000, topFlows);
    }

    private void poll(PerfManager perf) {
        synthetic.nextPoll();
        perf.poll();
    }

    @Test
    void onePollIsOneCallPerNode() {
        AtomicInteger calls = new AtomicInteger();
        try (PerfManager perf = perf(n -> {
            calls.incrementAndGet();
            return synthetic.read(n);
        }, 20)) {
            poll(perf);
            assertEquals(fabric.nodeCount(), calls.get(), "one GetNodeCounters per node: every port and the flows in it");
            poll(perf);
            assertEquals(2 * fabric.nodeCount(), calls.get());
        }
    }

    /** Every per-link series has a fabric_link_info to join on (node, port), naming the far end, whose own info names this end. */
    @Test
    void linkSeriesJoinTheirInfoAndTheFarEnd(@TempDir Path dir) throws Exception {
        try (PerfManager perf = perf(synthetic, 20)) {
            poll(perf);
            poll(perf);
            String body = registry.scrape();
            Map<String, Map<String, String>> info = series(body, "fabric_link_info").stream()
                    .collect(Collectors.toMap(l -> l.get("node") + "/" + l.get("port"), l -> l));
            assertEquals(2 * fabric.linkCount(), info.size(), "one info per directed link");
            for (Map<String, String> l : series(body, "fabric_port_utilisation_ratio")) {
                Map<String, String> i = info.get(l.get("node") + "/" + l.get("port"));
                assertTrue(i != null, "no fabric_link_info for " + l);
                Map<String, String> far = info.get(i.get("remote_node") + "/" + i.get("remote_port"));
                assertEquals(l.get("node"), far.get("remote_node"), "the far end's info names this end");
            }
            Set<String> kinds = info.values().stream().map(l -> l.get("kind")).collect(Collectors.toSet());
            assertEquals(Set.of("host", "leaf-spine", "spine-core"), kinds);
            assertEquals(fabric.nodeCount(), series(body, "fabric_node_info").size());
            assertTrue(body.contains("fabric_switch_adaptive_decisions_total{choice=\"nonminimal\""), "per switch, by choice");
            MetricsTest.promtoolAccepts(dir, body);
        }
    }

    /** Only the K flows of the highest throughput have series; a flow that leaves the top K loses its own. */
    @Test
    void onlyTheTopFlowsHaveSeries() {
        Set<String> stopped = new HashSet<>();
        PerfManager.CounterSource source = n -> {
            NodeCounters c = synthetic.read(n);
            if (!c.hasFlows() || stopped.isEmpty()) {
                return c;
            }
            long t = synthetic.modelTimeNanos() / 1_000_000_000L;
            FlowCounters.Builder f = c.getFlows().toBuilder().clearFlows();
            for (FlowCounter x : c.getFlows().getFlowsList()) {
                // a stopped flow's bytes stay where the last poll read them (they grow linearly with model time)
                boolean stop = stopped.contains("lid" + x.getSourceLid() + ">" + n.info().getDescription());
                f.addFlows(stop ? x.toBuilder().setBytes(x.getBytes() / t * (t - 1)).build() : x);
            }
            return c.toBuilder().setFlows(f).build();
        };
        try (PerfManager perf = perf(source, 3)) {
            poll(perf);
            poll(perf);
            String body = registry.scrape();
            Set<String> top = flowSeries(body);
            assertEquals(3, top.size());
            assertEquals(fabric.caCount() * 4, (int) value(body, "fabric_flows_active"), "every flow counted active");
            assertEquals(fabric.caCount(), series(body, "fabric_destination_receive_bytes_per_second").size(), "every destination");
            double third = perf.topFlows().get(2).bps();
            stopped.addAll(top);
            poll(perf);
            Set<String> now = flowSeries(registry.scrape());
            assertEquals(3, now.size());
            assertTrue(now.stream().noneMatch(top::contains), "the stopped flows left the top K and lost their series: " + now);
            assertTrue(perf.topFlows().get(0).bps() <= third * 1.0001, "the next ones moved up");
        }
    }

    private static Set<String> flowSeries(String body) {
        return series(body, "fabric_flow_throughput_bytes_per_second").stream().map(l -> l.get("src") + ">" + l.get("dst"))
                .collect(Collectors.toSet());
    }

    /** A link gone after a sweep loses its series; an input's share goes after the port has not been congested for 10 polls. */
    @Test
    void seriesOfWhatIsGoneAreRemoved() {
        boolean[] congested = {true};
        PerfManager.CounterSource source = n -> {
            NodeCounters c = synthetic.read(n);
            if (congested[0]) {
                return c;
            }
            NodeCounters.Builder b = c.toBuilder();
            for (int i = 0; i < b.getPortsCount(); i++) {
                // no more waits: the wait counter stands where it was
                b.setPorts(i, b.getPorts(i).toBuilder().setXmitWaitNs(0));
            }
            return b.build();
        };
        try (PerfManager perf = perf(source, 20)) {
            poll(perf);
            poll(perf);
            assertFalse(series(registry.scrape(), "fabric_port_input_share_ratio").isEmpty(), "congested outputs export their inputs' shares");
            congested[0] = false;
            for (int i = 0; i < PerfManager.SHARE_POLLS - 1; i++) {
                poll(perf);
            }
            assertFalse(series(registry.scrape(), "fabric_port_input_share_ratio").isEmpty(), "kept for " + PerfManager.SHARE_POLLS + " polls");
            poll(perf);
            assertTrue(series(registry.scrape(), "fabric_port_input_share_ratio").isEmpty(), "gone after " + PerfManager.SHARE_POLLS);

            // a sweep finds the fabric without one link: both its ends lose their series
            int g = fabric.globalPort(fabric.nodeByName("H0_0_0").orElseThrow(), 1);
            Fabric less = fabric.withoutLinks(g);
            Discovery.Result d = SyntheticCounters.discovered(less, 100);
            snapshot = snapshot.routing(d);
            poll(perf);
            String body = registry.scrape();
            assertFalse(body.contains("node=\"H0_0_0\",port=\"1\""), "the host's end of the link is gone");
            assertEquals(2 * less.linkCount(), series(body, "fabric_link_info").size());
            assertEquals(2 * less.linkCount(), series(body, "fabric_port_transmit_bytes_total").size());
        }
    }

    /** Discards are exported by reason, a reason's series once it is non-zero. */
    @Test
    void inputSharesAreExportedForTheMostCongestedOutputsOnly() {
        SyntheticCounters everyOutputCongested = new SyntheticCounters(fabric, 100, 4, 1);
        PerfManager.CounterSource source = everyOutputCongested::read;
        try (PerfManager perf = perf(source, 20)) {
            for (int i = 0; i < 2; i++) {
                everyOutputCongested.nextPoll();
                perf.poll();
            }
            long congested = perf.samples().stream().filter(PerfManager.LinkSample::congested).count();
            assertTrue(congested > PerfManager.SHARE_OUTPUTS, "the test congests more outputs than are exported: " + congested);
            long exported = series(registry.scrape(), "fabric_port_input_share_ratio").stream()
                    .map(l -> l.get("node") + ":" + l.get("port")).distinct().count();
            assertEquals(PerfManager.SHARE_OUTPUTS, exported, "input shares of the " + PerfManager.SHARE_OUTPUTS + " most congested outputs");
            assertTrue(perf.samples().stream().filter(PerfManager.LinkSample::congested).allMatch(x -> x.shares().length > 1),
                    "the samples (the fabric view) keep every congested output's shares");
        }
    }

    @Test
    void discardsAreExportedByReason() {
        PerfManager.CounterSource source = n -> {
            NodeCounters c = synthetic.read(n);
            if (!n.info().getDescription().equals(fabric.name(fabric.switchNode(0)))) {
                return c;
            }
            NodeCounters.Builder b = c.toBuilder();
            PortCounters p = b.getPorts(0);
            b.setPorts(0, p.toBuilder().setXmitDiscards(5).setXmitDiscardsByReason(XmitDiscards.newBuilder().setNoRoute(2).setPortDown(3)));
            return b.build();
        };
        try (PerfManager perf = perf(source, 20)) {
            poll(perf);
            String sw = fabric.name(fabric.switchNode(0));
            Map<String, Double> byReason = new TreeMap<>();
            for (String line : registry.scrape().lines().toList()) {
                Matcher m = SERIES.matcher(line);
                if (m.matches() && m.group(1).equals("fabric_port_transmit_discards_total") && m.group(2).contains("node=\"" + sw + "\",port=\"1\"")) {
                    byReason.put(labels(m.group(2)).get("reason"), Double.parseDouble(m.group(3)));
                }
            }
            assertEquals(Map.of("no_route", 2.0, "port_down", 3.0), byReason);
        }
    }

    /**
     * A port's receive errors (PortRcvErrors: frames refused or malformed) reach the exposition, a
     * port's series once it has one, and the samples that {@code fabricctl counters} reads.
     */
    @Test
    void receiveErrorsAreExportedPerPort(@TempDir Path dir) throws Exception {
        String sw = fabric.name(fabric.switchNode(0));
        PerfManager.CounterSource source = n -> {
            NodeCounters c = synthetic.read(n);
            if (!n.info().getDescription().equals(sw)) {
                return c;
            }
            NodeCounters.Builder b = c.toBuilder();
            b.setPorts(1, b.getPorts(1).toBuilder().setRcvErrors(1));
            return b.build();
        };
        try (PerfManager perf = perf(source, 20)) {
            poll(perf);
            String body = registry.scrape();
            List<String> lines = body.lines().filter(l -> l.startsWith("fabric_port_receive_errors_total{")).toList();
            assertEquals(List.of("fabric_port_receive_errors_total{node=\"" + sw + "\",port=\"2\"} 1.0"), lines, body);
            assertEquals(List.of(sw + ":2"), perf.samples().stream().filter(l -> l.rcvErrors() > 0).map(l -> l.node() + ":" + l.port()).toList());
            MetricsTest.promtoolAccepts(dir, body);
        }
    }

    /** A failure that is no gRPC status is counted as unexpected and logged; a gRPC status as a node's; polling goes on with the others. */
    @Test
    void failuresAreCountedAndPollingGoesOn() {
        String broken = fabric.name(fabric.switchNode(0));
        String gone = fabric.name(fabric.switchNode(1));
        try (PerfManager perf = perf(n -> {
            if (n.info().getDescription().equals(broken)) {
                throw new IllegalStateException("refused for the test");
            }
            if (n.info().getDescription().equals(gone)) {
                throw Status.UNAVAILABLE.withDescription("gone for the test").asRuntimeException();
            }
            return synthetic.read(n);
        }, 20)) {
            poll(perf);
            assertEquals(1, registry.get("fabric.perf.poll.failures").tag("kind", "unexpected").counter().count());
            // a transient status is retried (FanOut), then counted once
            assertEquals(1, registry.get("fabric.perf.poll.failures").tag("kind", "node").counter().count());
            long polled = perf.samples().stream().map(PerfManager.LinkSample::node).distinct().count();
            assertEquals(fabric.nodeCount() - 2, polled, "every other node was polled");
        }
    }

    private static List<Map<String, String>> series(String body, String name) {
        return body.lines().map(SERIES::matcher).filter(m -> m.matches() && m.group(1).equals(name)).map(m -> labels(m.group(2))).toList();
    }

    private static double value(String body, String name) {
        return body.lines().filter(l -> l.startsWith(name + " ")).mapToDouble(l -> Double.parseDouble(l.substring(name.length() + 1)))
                .findFirst().orElse(Double.NaN);
    }

    private static Map<String, String> labels(String text) {
        Map<String, String> out = new HashMap<>();
        Matcher m = Pattern.compile("(\\w+)=\"([^\"]*)\"").matcher(text);
        while (m.find()) {
            out.put(m.group(1), m.group(2));
        }
        return out;
    }
}
