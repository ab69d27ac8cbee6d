package org.fabriclab.emulator.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.dragonfly.DragonflyEngine;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

/**
 * The Dragonfly algorithms in the simulator, on the Q-adaptive paper's link and packet settings
 * (4 GB/s, 128-byte packets, 30 ns local and 300 ns global cables) scaled down to a 72-host
 * dragonfly: every algorithm carries a light load losslessly within its hop bound; minimal
 * routing carries uniform traffic as offered and Valiant the adversarial pattern; a run is the
 * same for a seed; a Q-adaptive run learns (its routers update their Q-tables) and deadlocks
 * nowhere under adversarial traffic beyond saturation. On a dragonfly whose routers have two
 * links to each other group, every algorithm sends over every one of them, and with the in-order
 * routing mode delivers every pair's packets in order.
 */
class DragonflySimulationTest {
    private static final String SPEC = "dragonfly:p=2,a=4,h=2,local-latency=30ns,global-latency=300ns,host-latency=10ns";
    /** 128-byte frames, as the paper's single-flit packets. */
    private static final int PAYLOAD = 128 - FrameSizes.DATA_HEADER;

    static Simulation.Config config(DragonflyAlgorithm a, TrafficPattern pattern, double load, long durationNs, int outputBuffer)
            throws Exception {
        return config(SPEC, a, pattern, load, durationNs, outputBuffer);
    }

    static Simulation.Config config(String spec, DragonflyAlgorithm a, TrafficPattern pattern, double load, long durationNs,
                                    int outputBuffer) throws Exception {
        Fabric f = Topologies.generate(spec);
        ForwardingTables t = new DragonflyEngine(a).route(new RoutingRequest(f, LidAssigner.assign(f),
                RoutingOptions.DEFAULTS.withParams(Map.of("link_gbps", "32", "packet_bytes", "128"))));
        return Simulation.Config.builder(f, t).pattern(pattern).load(load).linkGbps(32).vls(5).bufferPackets(20)
                .outputBufferPackets(outputBuffer).payloadBytes(PAYLOAD).durationNs(durationNs).build();
    }

    @ParameterizedTest
    @EnumSource(DragonflyAlgorithm.class)
    void everyAlgorithmCarriesALightLoadLosslesslyWithinItsHopBound(DragonflyAlgorithm a) throws Exception {
        for (TrafficPattern p : new TrafficPattern[] {TrafficPattern.UNIFORM, TrafficPattern.GROUP_SHIFT}) {
            Simulation.Report r = Simulation.run(config(a, p, 0.1, 30_000, 20));
            String what = a.key() + " " + p.cliName();
            assertEquals(0, r.packetsDropped(), what);
            assertEquals(0, r.packetsRefused(), what);
            assertTrue(r.packetsDelivered() > 1000, what);
            assertEquals(r.offeredLoad(), r.throughput(), 0.03 * r.offeredLoad(), what);
            assertTrue(r.meanHops() <= a.maxHops(), what + ": " + r.meanHops());
        }
    }

    @Test
    void minimalCarriesUniformTrafficAndValiantTheAdversarialPatternAsOffered() throws Exception {
        Simulation.Report min = Simulation.run(config(DragonflyAlgorithm.MIN, TrafficPattern.UNIFORM, 0.3, 40_000, 0));
        assertEquals(min.offeredLoad(), min.throughput(), 0.02 * min.offeredLoad());
        Simulation.Report val = Simulation.run(config(DragonflyAlgorithm.VALN, TrafficPattern.GROUP_SHIFT, 0.3, 40_000, 0));
        assertEquals(val.offeredLoad(), val.throughput(), 0.02 * val.offeredLoad());
        // and minimal routing cannot: every group's 8 hosts share one global link to the next group
        Simulation.Report minAdv = Simulation.run(config(DragonflyAlgorithm.MIN, TrafficPattern.GROUP_SHIFT, 0.3, 40_000, 0));
        assertTrue(minAdv.throughput() < 1.0 / 8 * 1.05, "minimal under ADV+1: " + minAdv.throughput());
    }

    @Test
    void theSameSeedGivesTheSameQAdaptiveRun() throws Exception {
        Simulation.Config c = config(DragonflyAlgorithm.Q_ADAPTIVE, TrafficPattern.GROUP_SHIFT, 0.4, 30_000, 20);
        Simulation.Report a = Simulation.run(c);
        Simulation.Report b = Simulation.run(c);
        assertEquals(a.events(), b.events());
        assertEquals(a.latencyMeanNs(), b.latencyMeanNs());
        assertEquals(a.meanHops(), b.meanHops());
    }

    @ParameterizedTest
    @EnumSource(DragonflyAlgorithm.class)
    void noAlgorithmDeadlocksBeyondSaturation(DragonflyAlgorithm a) throws Exception {
        // offered far beyond what the adversarial pattern can have: the fabric stays busy, delivering to the end
        Simulation.Config c = config(a, TrafficPattern.GROUP_SHIFT, 1.0, 40_000, 0);
        Simulation.Report first = Simulation.run(c.toBuilder().durationNs(20_000).warmupNs(10_000).build());
        Simulation.Report last = Simulation.run(c.toBuilder().durationNs(40_000).warmupNs(30_000).build());
        assertTrue(first.throughput() > 0.05 && last.throughput() > 0.05, a.key() + ": " + first.throughput() + ", then " + last.throughput());
    }

    @Test
    void theSwitchesNeedTheAlgorithmsVirtualChannels() throws Exception {
        Simulation.Config c = config(DragonflyAlgorithm.PAR, TrafficPattern.UNIFORM, 0.1, 10_000, 0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.toBuilder().vls(4).build());
        assertTrue(e.getMessage().contains("needs 5 virtual channels"), e.getMessage());
    }

    /** Every router has two global links to each of the two other groups (4 hosts, 3 local ports, 4 global ones). */
    private static final String PARALLEL = "dragonfly:p=4,a=4,h=4,g=3,trunk=8,local-latency=30ns,global-latency=300ns,host-latency=10ns";

    @ParameterizedTest
    @EnumSource(DragonflyAlgorithm.class)
    void everyParallelGlobalLinkCarriesTraffic(DragonflyAlgorithm a) throws Exception {
        for (TrafficPattern p : new TrafficPattern[] {TrafficPattern.UNIFORM, TrafficPattern.GROUP_SHIFT}) {
            Simulation.Learnt run = Simulation.runLearning(config(PARALLEL, a, p, 0.3, 30_000, 20));
            String what = a.key() + " " + p.cliName();
            assertEquals(0, run.report().packetsDropped(), what);
            // per router and other group, its two links' loads: where the algorithm sends that way, both carry a fair part
            // (before, the second of each pair carried nothing); under uniform traffic every global link carries some
            Map<String, java.util.List<Double>> byWay = new java.util.TreeMap<>();
            for (Simulation.LinkLoad l : run.linkLoads()) {
                String toGroup = l.to().substring(0, l.to().indexOf('_'));
                if (!l.from().startsWith(toGroup + "_")) {
                    byWay.computeIfAbsent(l.from() + " to " + toGroup, k -> new java.util.ArrayList<>()).add(l.load());
                }
            }
            assertEquals(3 * 4 * 2, byWay.size(), "every router's way to each other group");
            for (var e : byWay.entrySet()) {
                assertEquals(2, e.getValue().size(), e.getKey());
                double least = Math.min(e.getValue().get(0), e.getValue().get(1));
                double most = Math.max(e.getValue().get(0), e.getValue().get(1));
                assertTrue(most < 0.01 && p != TrafficPattern.UNIFORM || least > 0.5 * most, what + ", " + e.getKey() + ": " + e.getValue());
            }
        }
    }

    @ParameterizedTest
    @EnumSource(DragonflyAlgorithm.class)
    void inOrderTrafficOverParallelLinksArrivesInOrder(DragonflyAlgorithm a) throws Exception {
        Simulation.Config c = config(PARALLEL, a, TrafficPattern.UNIFORM, 0.5, 30_000, 20).toBuilder()
                .routingMode(org.fabriclab.routing.dragonfly.RoutingMode.IN_ORDER).build();
        Simulation.Report r = Simulation.run(c);
        assertTrue(r.packetsDelivered() > 1000, a.key());
        assertEquals(0, r.outOfOrder(), a.key() + ": one path per pair");
    }
}
