package org.fabriclab.emulator.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import java.util.function.BiFunction;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/** The simulator: deterministic, lossless, carrying what is offered below saturation, never faster than the links. */
class SimulationTest {
    private static Simulation.Config config(String topology, TrafficPattern pattern, double load, long seed) throws Exception {
        Fabric f = Topologies.generate(topology);
        var tables = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        return new Simulation.Config(f, tables, pattern, load, 100, 100, 2, 8, 256, 60_000, 10_000, seed);
    }

    @Test
    void theSameSeedGivesTheSameRun() throws Exception {
        Simulation.Config c = config("fat-tree:k=4,levels=3", TrafficPattern.UNIFORM, 0.6, 7);
        Simulation.Report a = Simulation.run(c);
        Simulation.Report b = Simulation.run(c);
        assertEquals(a.events(), b.events());
        assertEquals(a.packetsDelivered(), b.packetsDelivered());
        assertEquals(a.latencyMeanNs(), b.latencyMeanNs());
        assertEquals(a.latencyP99Ns(), b.latencyP99Ns());
        assertEquals(a.throughput(), b.throughput());
        Simulation.Report other = Simulation.run(config("fat-tree:k=4,levels=3", TrafficPattern.UNIFORM, 0.6, 8));
        assertTrue(other.events() != a.events() || other.latencyMeanNs() != a.latencyMeanNs(), "another seed, another run");
    }

    @Test
    void theBuilderMakesWhatTheConstructorsMakeWithTheCommandLinesDefaults() throws Exception {
        Simulation.Config c = config("fat-tree:k=4,levels=3", TrafficPattern.PERMUTATION, 0.6, 7);
        Simulation.Config built = Simulation.Config.builder(c.fabric(), c.tables()).pattern(TrafficPattern.PERMUTATION).load(0.6)
                .durationNs(60_000).warmupNs(10_000).seed(7).build();
        assertEquals(c, built);
        assertEquals(c, c.toBuilder().build());
        Simulation.Config defaults = Simulation.Config.builder(c.fabric(), c.tables()).build();
        assertEquals(TrafficPattern.UNIFORM, defaults.pattern());
        assertEquals(0.5, defaults.load());
        assertEquals(100_000, defaults.durationNs());
        assertEquals(20_000, defaults.warmupNs(), "a fifth of the duration");
        assertTrue(defaults.adaptive() && defaults.flows().isEmpty());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.toBuilder().load(0).build());
        assertTrue(e.getMessage().contains("load 0.0 is not in (0, 1]"), e.getMessage());
    }

    @Test
    void belowSaturationWhatIsOfferedIsCarriedWithoutLossOrReordering() throws Exception {
        for (TrafficPattern p : TrafficPattern.named()) {
            Simulation.Report r = Simulation.run(config(p.equals(TrafficPattern.GROUP_SHIFT) ? "dragonfly-plus:p=2,leaves=2,spines=2,h=2"
                    : "fat-tree:k=4,levels=3", p, 0.2, 1));
            String where = p.toString();
            assertEquals(0, r.packetsDropped(), where);
            assertEquals(0, r.packetsRefused(), where);
            assertEquals(0, r.outOfOrder(), where + ": deterministic routes keep each flow in order");
            assertTrue(r.packetsDelivered() > 1000, where);
            assertTrue(Math.abs(r.throughput() - r.offeredLoad()) < 0.05 * r.offeredLoad(),
                    where + ": offered " + r.offeredLoad() + ", carried " + r.throughput());
        }
    }

    @Test
    void adaptiveRoutingSpreadsFlowsOverPathsAndOffIsTheStaticLft() throws Exception {
        Fabric f = Topologies.generate("fat-tree:k=4,levels=3");
        var lids = LidAssigner.assign(f);
        var ar = EngineChain.parse("ar-tree").route(new RoutingRequest(f, lids, RoutingOptions.DEFAULTS)).tables();
        var minhop = EngineChain.parse("minhop").route(new RoutingRequest(f, lids, RoutingOptions.DEFAULTS)).tables();
        Simulation.Report on = Simulation.run(new Simulation.Config(f, ar, TrafficPattern.UNIFORM, 0.7, 100, 100, 2, 8, 256,
                60_000, 10_000, 1, true));
        Simulation.Report off = Simulation.run(new Simulation.Config(f, ar, TrafficPattern.UNIFORM, 0.7, 100, 100, 2, 8, 256,
                60_000, 10_000, 1, false));
        Simulation.Report staticLft = Simulation.run(new Simulation.Config(f, minhop, TrafficPattern.UNIFORM, 0.7, 100, 100, 2, 8,
                256, 60_000, 10_000, 1, true));
        assertTrue(on.outOfOrder() > 0, "packets of one flow took different paths");
        assertEquals(0, on.packetsDropped());
        assertEquals(0, off.outOfOrder());
        assertEquals(staticLft.events(), off.events(), "AR off is routing by ar-tree's LFT, which is minhop's");
        assertEquals(staticLft.latencyMeanNs(), off.latencyMeanNs());
    }

    @Test
    void noPacketIsFasterThanItsLinks() throws Exception {
        // 285-byte frames at 100 Gbps take 23 ns a link, plus 100 ns of delay: at least two links per route
        Simulation.Report r = Simulation.run(config("fat-tree:k=4,levels=3", TrafficPattern.PERMUTATION, 0.1, 3));
        assertTrue(r.latencyMeanNs() >= 2 * (23 + 100), "mean latency " + r.latencyMeanNs());
        assertTrue(r.latencyP99Ns() >= r.latencyP95Ns());
        assertTrue(r.meanHops() > 0);
    }

    @Test
    void badConfigurationsAreRefusedWithTheReason() throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> config("fat-tree:k=4,levels=3", TrafficPattern.UNIFORM, 1.5, 1));
        assertTrue(e.getMessage().contains("fraction of the link rate"), e.getMessage());
        // refused before anything is routed or allocated: the reordering state would be 4 bytes per pair of hosts
        Fabric big = Topologies.generate("fat-tree:k=33,levels=3");
        e = assertThrows(IllegalArgumentException.class, () -> new Simulation.Config(big, null, TrafficPattern.UNIFORM, 0.5, 100,
                100, 2, 8, 256, 60_000, 10_000, 1));
        assertTrue(e.getMessage().contains(big.endpointCount() + " hosts") && e.getMessage().contains("at most 32768"), e.getMessage());
    }

    /**
     * DFP's detours on a Dragonfly+ (5 groups, one global link between each pair): under
     * group-shift traffic, where minimal routing has one global link per pair of groups, the
     * detours through intermediate groups carry clearly more, deadlock-free on two lanes; under
     * uniform traffic the switches keep to the minimal ports and carry as much as without
     * detours. One lane is refused: the detours' deadlock freedom needs the second.
     */
    @Test
    void dragonflyPlusDetoursCarryAdversarialTrafficMinimalRoutingCannot() throws Exception {
        Fabric f = Topologies.generate("dragonfly-plus:p=2,leaves=2,spines=2,h=2");
        var lids = LidAssigner.assign(f);
        var detours = EngineChain.parse("ar-dfp").route(new RoutingRequest(f, lids, RoutingOptions.DEFAULTS)).tables();
        var minimal = EngineChain.parse("ar-dfp-minimal").route(new RoutingRequest(f, lids, RoutingOptions.DEFAULTS)).tables();
        BiFunction<ForwardingTables, TrafficPattern, Simulation.Report> run =
                (t, p) -> Simulation.run(new Simulation.Config(f, t, p, 0.8, 100, 100, 2, 8, 256, 60_000, 10_000, 1));
        Simulation.Report shiftDetours = run.apply(detours, TrafficPattern.GROUP_SHIFT);
        Simulation.Report shiftMinimal = run.apply(minimal, TrafficPattern.GROUP_SHIFT);
        assertTrue(shiftDetours.throughput() > 1.5 * shiftMinimal.throughput(),
                "group-shift: detours " + shiftDetours.throughput() + " against minimal " + shiftMinimal.throughput());
        assertTrue(shiftDetours.meanHops() > shiftMinimal.meanHops(), "detours are longer");
        assertEquals(0, shiftDetours.packetsDropped());
        Simulation.Report uniformDetours = run.apply(detours, TrafficPattern.UNIFORM);
        Simulation.Report uniformMinimal = run.apply(minimal, TrafficPattern.UNIFORM);
        assertTrue(uniformDetours.throughput() > 0.95 * uniformMinimal.throughput(),
                "uniform: detours " + uniformDetours.throughput() + " against minimal " + uniformMinimal.throughput());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new Simulation.Config(f, detours, TrafficPattern.UNIFORM, 0.8, 100, 100, 1, 8, 256, 60_000, 10_000, 1));
        assertTrue(e.getMessage().contains("needs 2 lanes"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Simulation.run(config("fat-tree:k=4,levels=3", TrafficPattern.GROUP_SHIFT, 0.5, 1)));
        assertTrue(e.getMessage().contains("group-shift traffic needs hosts in two or more groups"), e.getMessage());
    }

    /**
     * Angara on a 4x4x4 torus at 0.8 load, one lane: minhop's table routing closes credit loops
     * around the rings and the simulated fabric deadlocks (nothing is delivered after the
     * warm-up), while torus-sssp's source routes with bubble flow control keep every packet moving.
     */
    @Test
    void sourceRoutesWithBubbleFlowControlDoNotDeadlockWhereTableRoutingDoes() throws Exception {
        Fabric f = Topologies.generate("torus:4x4x4");
        var minhop = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        Simulation.Config c = new Simulation.Config(f, minhop, TrafficPattern.UNIFORM, 0.8, 100, 100, 1, 8, 256, 100_000, 20_000, 1);
        Simulation.Report tables = Simulation.run(c);
        assertEquals(0, tables.packetsDelivered(), "minhop's credit loops deadlock the torus at this load");
        var sssp = EngineChain.parse("torus-sssp").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        Simulation.Report angara = Simulation.run(new Simulation.Config(f, sssp, TrafficPattern.UNIFORM, 0.8, 100, 100, 1, 8, 256, 100_000,
                20_000, 1));
        assertTrue(angara.throughput() > 0.5, "source routes keep moving: " + angara.throughput());
        assertEquals(0, angara.packetsDropped());
        assertEquals(0, angara.outOfOrder(), "one route per pair: in order");
        assertEquals(3.0, angara.meanHops(), 0.1, "shortest routes: 3 hops on average between switches of a 4x4x4 torus");
    }

    /**
     * The series over time costs nothing per packet: the same run with and without it allocates
     * the same but for the bins (the event queue's growth, which a run's length changes, is the
     * same in both), far less than a byte per packet delivered.
     */
    @Test
    void aSeriesAllocatesNothingPerPacket() throws Exception {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        Simulation.Config base = config("fat-tree:k=4,levels=3", TrafficPattern.UNIFORM, 0.5, 3).toBuilder().durationNs(100_000).build();
        long[] least = {Long.MAX_VALUE, Long.MAX_VALUE};
        long packets = 0;
        for (int round = 0; round < 3; round++) { // the least of three: the first run also loads and compiles
            for (int k = 0; k < 2; k++) {
                Simulation.Config c = base.toBuilder().seriesNs(k * 10_000L).build();
                long before = mx.getCurrentThreadAllocatedBytes();
                Simulation.Report r = Simulation.run(c);
                least[k] = Math.min(least[k], mx.getCurrentThreadAllocatedBytes() - before);
                packets = r.packetHops();
                assertEquals(k == 0 ? 0 : 10, r.series().size());
            }
        }
        assertTrue(packets > 100_000, "packets forwarded: " + packets);
        assertTrue(least[1] - least[0] < packets / 20, "allocated " + least[0] + " bytes without a series, " + least[1] + " with, for "
                + packets + " packets forwarded");
    }
}
