package org.fabriclab.emulator.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/**
 * The simulator's packet pool against its heap: with congestion control the pool may grow to the
 * most packets its buffers' blocks hold (65 ACKs in a 4,133-byte slot), far past its starting
 * slots; where that bound does not fit the heap the run still starts (most runs never grow that
 * far), its pool's growth capped at what fits, and a run that reaches the cap stops with the sizes
 * and what to lower instead of an OutOfMemoryError half way or a report with packets dropped.
 */
class PoolHeapTest {
    private static final long MIB = 1L << 20;

    @Test
    void aPoolGrowsToItsBoundWhereItFitsAndToWhatFitsElse() {
        long slots = 1_000;
        long most = 65_000;
        long ringBytes = most * Simulation.INPUT_RING_SLOT_BYTES;
        assertEquals(most, Simulation.poolLimit(slots, most, ringBytes, 64 * MIB), "the bound fits: as before");
        int capped = Simulation.poolLimit(slots, most, ringBytes, 4 * MIB);
        assertTrue(capped > slots && capped < most, "" + capped);
        assertTrue(capped * Simulation.GROWN_HANDLE_BYTES + ringBytes <= 4 * MIB * Simulation.GROWTH_SHARE, "what fits: " + capped);
        assertEquals(slots, Simulation.poolLimit(slots, most, ringBytes, MIB), "never below its slots (their own check refuses a run)");
        assertEquals(PacketPool.MAX_CAPACITY, Simulation.poolLimit(slots, Long.MAX_VALUE / 2, 0, Long.MAX_VALUE / 2),
                "never past one pool's handles");
    }

    /**
     * Eight hosts send to host 0 while host 0 sends to hosts 1 and 2, Swift's windows made large
     * (a 10 ms target, up to 100,000 packets): host 0's link is congested with data, so the ACKs of
     * hosts 1 and 2 for host 0's packets queue behind it in their 32-packet input buffers, one
     * 64-byte block each of a buffer of 2,080, and the pool grows past its 1,741 slots (to 6,964 in
     * 3 ms); with Swift's own windows (at most 256 packets) it never does.
     */
    private static Simulation.Config acksQueueingBehindData(Map<String, String> swift, long durationNs) throws Exception {
        Fabric f = Topologies.generate("fat-tree:k=12,levels=1");
        ForwardingTables t = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        List<Simulation.Flow> flows = new ArrayList<>();
        for (int i = 3; i < 11; i++) {
            flows.add(new Simulation.Flow(i, 0, 0, durationNs));
        }
        flows.add(new Simulation.Flow(0, 1, 0, durationNs));
        flows.add(new Simulation.Flow(0, 2, 0, durationNs));
        return Simulation.Config.builder(f, t).load(1).durationNs(durationNs).bufferPackets(32).vls(1).payloadBytes(4096).flows(flows)
                .cc(CongestionControl.settings("swift", swift)).build();
    }

    /**
     * With a heap whose share holds little more than the pool's slots the run stops, naming the
     * sizes and the remedies; with this JVM's heap the same run goes to its end, nothing dropped.
     */
    @Test
    void aRunWhosePoolOutgrowsItsHeapStopsWithTheSizesAndWhatToLower() throws Exception {
        Simulation.Config c = acksQueueingBehindData(Map.of("target_us", "10000", "max_cwnd", "100000", "init_cwnd", "5000"), 2_000_000);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, 
                () -> Simulation.runLearningWithin(c, Simulation.Scheduler.GLOBAL, MIB, note -> { }));
        assertTrue(e.getMessage().contains("small packets (ACKs, CNPs) filled the buffers past the")
                && e.getMessage().contains("JAVA_OPTS=-Xmx") && e.getMessage().contains("--threads")
                && e.getMessage().contains("lower --buffer"), e.getMessage());
        assertEquals(0, Simulation.run(c).packetsDropped(), "with this JVM's heap it runs");
    }

    /**
     * The same stop in pattern traffic, on both loops: a permutation on a two-level tree routed by
     * minhop crowds some uplinks, and the receivers' ACKs (ack-only: a reliable transport's, the
     * senders at the line rate) queue behind the data there, growing the pool past its 3,345 slots
     * (to 6,690 in 500 us with this JVM's heap); with links without delay the tree is one logical
     * process, whose windowed run, forced into its windows, takes the global loop's events in the
     * global loop's order: both stop at the same simulated time, mid-run, with the same message.
     * The first allocation to fail is a receiver's ACK (the cause says so): the run stops there, at
     * 466,828 ns here, as it would for a data packet (it went on before, dropping the ACK, to the
     * first data packet refused, at 469,331 ns, or to its end had none been).
     */
    @Test
    void aPatternRunWhosePoolOutgrowsItsHeapMidRunStopsAtTheSameTimeOnBothLoops() throws Exception {
        Fabric f = Topologies.generate("fat-tree:k=4,levels=2");
        ForwardingTables t = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        Simulation.Config c = Simulation.Config.builder(f, t).pattern(TrafficPattern.PERMUTATION).load(1).durationNs(500_000).latencyNs(0)
                .bufferPackets(32).vls(1).payloadBytes(4096).cc(CongestionControl.settings("ack-only", Map.of())).build();
        IllegalArgumentException global = assertThrows(IllegalArgumentException.class,
                () -> Simulation.runLearningWithin(c, Simulation.Scheduler.GLOBAL, MIB, note -> { }));
        IllegalArgumentException windowed = assertThrows(IllegalArgumentException.class,
                () -> Simulation.runLearningWithin(c, Simulation.Scheduler.WINDOWED, MIB, true, note -> { }));
        Matcher m = Pattern.compile("^the simulation stopped at ([0-9,]+) ns: small packets \\(ACKs, CNPs\\) filled the buffers past the ")
                .matcher(global.getMessage());
        assertTrue(m.find() && global.getMessage().contains("--threads") && global.getMessage().contains("lower --buffer"), global.getMessage());
        long at = Long.parseLong(m.group(1).replace(",", ""));
        assertTrue(at > 0 && at < c.durationNs(), "mid-run: " + global.getMessage());
        assertEquals(global.getMessage(), windowed.getMessage(), "the same stop, at the same time");
        assertTrue(global.getCause().getMessage().endsWith("'s ACK was not made"), "an ACK first: " + global.getCause());
        assertEquals(global.getCause().getMessage(), windowed.getCause().getMessage(), "the same ACK");
    }

    /** A run that never fills its buffers with small packets runs under the same small heap, its report the same. */
    @Test
    void aRunThatStaysWithinItsCapIsNotRefusedAndReportsTheSame() throws Exception {
        Simulation.Config c = acksQueueingBehindData(Map.of(), 500_000);
        Simulation.Report small = Simulation.runLearningWithin(c, Simulation.Scheduler.GLOBAL, MIB, note -> { }).report();
        Simulation.Report full = Simulation.run(c);
        assertEquals(full.packetsDelivered(), small.packetsDelivered());
        assertEquals(full.latencyMeanNs(), small.latencyMeanNs());
        assertEquals(full.events(), small.events());
    }

    @Test
    void sharingTheHeapNeedsAtLeastOneSimulation() throws Exception {
        Simulation.Config c = acksQueueingBehindData(Map.of(), 100_000);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Simulation.runLearning(c, Simulation.Scheduler.GLOBAL, 0, note -> { }))
                .getMessage().contains("at least 1"));
    }
}
