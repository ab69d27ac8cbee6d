package org.fabriclab.emulator.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/**
 * The windowed event loop ({@link Simulation.Scheduler#WINDOWED}, experimental) against the global
 * one: on a dragonfly (Q-adaptive and UGAL, uniform and adversarial) and a fat tree, the two agree
 * within the run-to-run noise (throughput within 2%, mean latency within 5%), inject as many
 * packets within 0.5% (not exactly: a host's arrivals and destinations share its random stream,
 * the destinations drawn as its NIC takes packets, so the arrivals depend on the network's
 * timing) and deliver every packet; a seed
 * gives the same windowed run twice; steady-state detection cuts the windows at its own, and so
 * does the precision stop (a precise run is the fixed window ending where it stopped); the heap
 * bound sizes its pool; every event one process schedules for another is checked to land beyond
 * the window, assertions on or off ({@code LogicalProcesses.checkLanding}), so every run here
 * passed that check.
 */
class WindowedSchedulerTest {
    private static final String FAT_TREE = "fat-tree:k=4,levels=3";

    private static Simulation.Report run(Simulation.Config c, Simulation.Scheduler s, List<String> notes) {
        return Simulation.runLearning(c, s, 1, notes::add).report();
    }

    /** {@code c} by the windowed loop even when its fabric is one logical process (which the global loop runs otherwise). */
    static Simulation.Report windowedOnOneProcess(Simulation.Config c, List<String> notes) {
        return Simulation.runLearningWithin(c, Simulation.Scheduler.WINDOWED, Runtime.getRuntime().maxMemory(), true, notes::add).report();
    }

    /** The report's fields that time the machine, not the run. */
    private static final Set<String> TIMINGS = Set.of("wallMillis", "eventsPerSecond", "packetHopsPerSecond", "cpuMillis",
            "packetHopsPerCpuSecond");

    /** Every field of the two reports but the machine's timings is the same, arrays element by element. */
    static void assertSameReport(Simulation.Report a, Simulation.Report b, String what) throws Exception {
        for (RecordComponent f : Simulation.Report.class.getRecordComponents()) {
            if (!TIMINGS.contains(f.getName())) {
                Object x = f.getAccessor().invoke(a);
                Object y = f.getAccessor().invoke(b);
                assertTrue(Objects.deepEquals(x, y), what + ": " + f.getName() + " " + x + " against " + y);
            }
        }
    }

    private static Simulation.Config fatTree(double load, long seed) throws Exception {
        Fabric f = Topologies.generate(FAT_TREE);
        var tables = EngineChain.parse("minhop").route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS)).tables();
        return Simulation.Config.builder(f, tables).load(load).durationNs(60_000).warmupNs(10_000).seed(seed).build();
    }

    /** Both loops' reports of {@code c}: the same injection, every packet delivered, throughput and latency within the noise. */
    private static void assertAgree(Simulation.Config c, String what) {
        List<String> notes = new ArrayList<>();
        Simulation.Report global = run(c, Simulation.Scheduler.GLOBAL, notes);
        assertTrue(notes.isEmpty(), "the global loop has nothing to say: " + notes);
        Simulation.Report windowed = run(c, Simulation.Scheduler.WINDOWED, notes);
        assertEquals(1, notes.size(), what);
        assertTrue(notes.get(0).startsWith("windowed scheduler: "), notes.get(0));
        // a host draws its Poisson gaps and its destinations from one stream, the destinations when its NIC takes a packet:
        // the arrivals depend on the network's timing (HostPolicy), so the packets created differ within the noise, not to the packet
        assertEquals(global.offeredLoad(), windowed.offeredLoad(), 0.005 * global.offeredLoad(), what + ": the packets injected");
        for (Simulation.Report r : List.of(global, windowed)) {
            assertEquals(0, r.packetsDropped(), what);
            assertEquals(0, r.packetsRefused(), what);
            assertTrue(r.packetsDelivered() > 1000, what);
        }
        assertEquals(global.throughput(), windowed.throughput(), 0.02 * global.throughput(), what + ": throughput");
        assertEquals(global.latencyMeanNs(), windowed.latencyMeanNs(), 0.05 * global.latencyMeanNs(), what + ": mean latency");
        assertEquals(global.meanHops(), windowed.meanHops(), 0.05 * global.meanHops(), what + ": mean hops");
        // the measured packets delivered by the end: the injection's difference and those still in flight at the end
        assertEquals(global.packetsDelivered(), windowed.packetsDelivered(), 0.03 * global.packetsDelivered(), what + ": delivered");
    }

    /**
     * The lookahead's check, always on: no configuration breaks it (whatever crosses between
     * processes crosses a link of at least the lookahead's delay), so it is provoked here on the
     * processes alone.
     */
    @Test
    void anEventForAnotherProcessInsideTheWindowIsRefusedNamingIt() throws Exception {
        Fabric f = Topologies.generate(FAT_TREE);
        long[] delay = new long[f.globalPortCount()];
        Arrays.fill(delay, 100);
        LogicalProcesses lp = LogicalProcesses.of(f, delay);
        lp.openWindow(1_000);
        lp.collect(2, 1_000, 0);
        lp.sortWindow();
        lp.begin(2);
        lp.take();
        long credit = EventQueue.event(Simulation.CREDIT, 5, 3, 17);
        lp.checkLanding(2, 1_020, credit); // its own, beyond a window cut short: to the queue
        lp.checkLanding(1, 1_100, credit); // another's, a lookahead after the window's start
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> lp.checkLanding(1, 1_099, credit));
        assertEquals("the windowed scheduler's lookahead does not hold: process 2 scheduled event CREDIT (node 5, port 3, argument 17) "
                + "for process 1 at 1099 ns, less than the lookahead (100 ns) after its window's start at 1000 ns, so process 1 may "
                + "already have run past it; the fabric's cut into processes is wrong (report this with the command line)", e.getMessage());
    }

    @Test
    void onADragonflyTheTwoLoopsAgreeWithinTheNoise() throws Exception {
        assertAgree(DragonflySimulationTest.config(DragonflyAlgorithm.Q_ADAPTIVE, TrafficPattern.UNIFORM, 0.5, 40_000, 20), "q-adaptive UR 0.5");
        assertAgree(DragonflySimulationTest.config(DragonflyAlgorithm.Q_ADAPTIVE, TrafficPattern.GROUP_SHIFT, 0.3, 40_000, 20),
                "q-adaptive ADV+1 0.3");
        assertAgree(DragonflySimulationTest.config(DragonflyAlgorithm.UGALG, TrafficPattern.UNIFORM, 0.4, 40_000, 0), "ugalg UR 0.4");
    }

    @Test
    void onAFatTreeTheTwoLoopsAgreeWithinTheNoise() throws Exception {
        assertAgree(fatTree(0.6, 7), FAT_TREE + " UR 0.6");
    }

    @Test
    void aSeedGivesTheSameWindowedRunTwiceAndAnotherSeedAnother() throws Exception {
        Simulation.Config c = DragonflySimulationTest.config(DragonflyAlgorithm.Q_ADAPTIVE, TrafficPattern.GROUP_SHIFT, 0.4, 30_000, 20);
        List<String> notes = new ArrayList<>();
        Simulation.Report a = run(c, Simulation.Scheduler.WINDOWED, notes);
        Simulation.Report b = run(c, Simulation.Scheduler.WINDOWED, notes);
        SteadyStateTest.assertSameRun(a, b);
        assertEquals(notes.get(0), notes.get(1), "the same windows");
        Simulation.Report other = run(c.toBuilder().seed(2).build(), Simulation.Scheduler.WINDOWED, notes);
        assertTrue(other.events() != a.events() || other.latencyMeanNs() != a.latencyMeanNs(), "another seed, another run");
    }

    @Test
    void aSteadyStateWindowEndCutsTheWindowsAndEndsTheWarmUpAsTheGlobalLoopDoes() throws Exception {
        Simulation.Config c = DragonflySimulationTest.config(DragonflyAlgorithm.Q_ADAPTIVE, TrafficPattern.UNIFORM, 0.5, 60_000, 20)
                .toBuilder().warmupNs(30_000).steady(new Simulation.Steady(0.2, 2_000, 0)).build();
        List<String> notes = new ArrayList<>();
        Simulation.Report global = run(c, Simulation.Scheduler.GLOBAL, notes);
        Simulation.Report windowed = run(c, Simulation.Scheduler.WINDOWED, notes);
        assertTrue(global.steady(), "the uniform run settles well before its cap");
        assertTrue(windowed.steady());
        // the test looks at the same windows of a run that differs within the noise: steady at the same window's end or a neighbour's
        long window = c.steady().windowNs();
        assertEquals(global.steadyAtNs(), windowed.steadyAtNs(), 2.0 * window, "steady at");
        assertEquals(0, windowed.steadyAtNs() % window, "a window's end");
        assertEquals(windowed.warmupNs() + c.measuredNs(), windowed.simulatedNs(), "measured for the configured window after it");
        assertEquals(global.throughput(), windowed.throughput(), 0.02 * global.throughput());
    }

    /**
     * Links without delay make the tree one logical process, which has no lookahead: asked to be
     * windowed, it runs by the global loop, which a line says; the tests can still force its windows.
     */
    @Test
    void aFabricOfOneProcessRunsByTheGlobalLoopUnlessForcedIntoWindows() throws Exception {
        Simulation.Config c = fatTree(0.4, 3).toBuilder().latencyNs(0).build();
        List<String> notes = new ArrayList<>();
        Simulation.Report global = run(c, Simulation.Scheduler.GLOBAL, notes);
        Simulation.Report asked = run(c, Simulation.Scheduler.WINDOWED, notes);
        assertEquals(List.of(Simulation.ONE_PROCESS), notes, "one line, and only for the loop asked for");
        assertSameReport(global, asked, "the global loop's run");
        notes.clear();
        windowedOnOneProcess(c, notes);
        assertTrue(notes.get(0).startsWith("windowed scheduler: 1 logical processes, lookahead " + LogicalProcesses.MAX_WINDOW_NS + " ns; "),
                notes.get(0));
    }

    /**
     * One logical process is the global loop, event for event: every event of a window is the
     * process's, taken in time order, ties first from the queue (scheduled before the window) then
     * in the order scheduled, as the global loop's buckets have them. So the windowed run's report
     * is the global one's exactly, on a tree whose links have no delay and on one switch with its hosts.
     */
    @Test
    void onAFabricOfOneProcessTheWindowedRunIsTheGlobalRunExactly() throws Exception {
        Fabric one = Topologies.generate("fat-tree:k=12,levels=1");
        var tables = EngineChain.parse("minhop").route(new RoutingRequest(one, LidAssigner.assign(one), RoutingOptions.DEFAULTS)).tables();
        for (Simulation.Config c : List.of(fatTree(0.6, 5).toBuilder().latencyNs(0).seriesNs(5_000).build(),
                Simulation.Config.builder(one, tables).load(0.8).durationNs(60_000).seed(4).seriesNs(5_000).build())) {
            List<String> notes = new ArrayList<>();
            Simulation.Report global = run(c, Simulation.Scheduler.GLOBAL, notes);
            Simulation.Report windowed = windowedOnOneProcess(c, notes);
            String what = c.fabric().kind() + " with " + c.latencyNs() + " ns links";
            assertTrue(notes.get(0).startsWith("windowed scheduler: 1 logical processes"), what + ": " + notes.get(0));
            assertTrue(global.packetsDelivered() > 1000, what);
            assertSameReport(global, windowed, what);
        }
    }

    /**
     * Q-adaptive's feedback rides with the credit it follows on a link (one {@code CREDIT_FEEDBACK}
     * event), in the global loop through the queue and in the windowed one through a process's own
     * list when the link has no delay: a dragonfly without cable delays, one process, runs the same
     * events by both loops, and so the same run.
     */
    @Test
    void onAQAdaptiveFabricOfOneProcessTheFeedbackRidesWithItsCreditAsInTheGlobalLoop() throws Exception {
        Simulation.Config c = DragonflySimulationTest.config("dragonfly:p=2,a=4,h=2,local-latency=0ns,global-latency=0ns,host-latency=0ns",
                DragonflyAlgorithm.Q_ADAPTIVE, TrafficPattern.UNIFORM, 0.5, 30_000, 20);
        List<String> notes = new ArrayList<>();
        Simulation.Report global = run(c, Simulation.Scheduler.GLOBAL, notes);
        Simulation.Report windowed = windowedOnOneProcess(c, notes);
        assertTrue(notes.get(0).startsWith("windowed scheduler: 1 logical processes"), notes.get(0));
        assertEquals(global.events(), windowed.events(), "the feedback folded into its credit's event, as the global loop folds it");
        assertSameReport(global, windowed, "q-adaptive on one process");
    }

    /** {@code r} is a run that carried traffic to its end: packets delivered, none lost, its numbers finite. */
    private static void assertDelivered(Simulation.Report r, Simulation.Config c, String what) {
        assertTrue(r.packetsDelivered() > 0 && r.events() > 0 && r.packetHops() > 0, what + ": " + r);
        assertEquals(0, r.packetsDropped(), what);
        assertEquals(c.durationNs(), r.simulatedNs(), what + ": ran to its end");
        assertTrue(r.throughput() > 0 && r.throughput() <= 1, what + ": throughput " + r.throughput());
        assertTrue(Double.isFinite(r.latencyMeanNs()) && r.latencyMeanNs() > 0 && r.latencyP99Ns() >= r.latencyP95Ns(), what + ": latency");
        assertTrue(r.meanHops() >= 1, what + ": hops " + r.meanHops());
    }

    /**
     * The windowed loop with what crosses between processes besides packets and credits: Swift's
     * ACKs (their own packets, and WAKE events at the hosts) on a tree, and Q-adaptive's feedback on
     * a dragonfly whose local cables have no delay (a group is then one process, and the feedback
     * inside it stays within its window). Each runs to its end, delivers, and is the same run for a seed.
     */
    @Test
    void swiftOnATreeAndQAdaptiveWithoutLocalDelayRunWindowedToTheirEndTheSameForASeed() throws Exception {
        Simulation.Config swift = fatTree(0.4, 3).toBuilder().cc(CongestionControl.settings("swift", Map.of())).build();
        Simulation.Config qAdaptive = DragonflySimulationTest.config("dragonfly:p=2,a=4,h=2,local-latency=0ns,global-latency=300ns,"
                + "host-latency=10ns", DragonflyAlgorithm.Q_ADAPTIVE, TrafficPattern.UNIFORM, 0.4, 30_000, 20);
        for (Simulation.Config c : List.of(swift, qAdaptive)) {
            String what = c.fabric().kind() + (c.cc() == null ? "" : " swift");
            List<String> notes = new ArrayList<>();
            Simulation.Report a = run(c, Simulation.Scheduler.WINDOWED, notes);
            Simulation.Report b = run(c, Simulation.Scheduler.WINDOWED, notes);
            assertDelivered(a, c, what);
            assertSameReport(a, b, what + ": the same seed, the same run");
            assertEquals(notes.get(0), notes.get(1), what + ": the same windows");
            if (c.cc() != null) {
                assertTrue(a.controlPackets() > 0, what + ": ACKs sent");
            } else {
                assertTrue(notes.get(0).startsWith("windowed scheduler: 9 logical processes, lookahead 300 ns; "), what + ": a group a "
                        + "process, the global cables between them: " + notes.get(0));
            }
        }
    }

    @Test
    void aDragonflysProcessesAreItsRoutersWithTheirHostsAndItsLookaheadTheLocalCable() throws Exception {
        Simulation.Config c = DragonflySimulationTest.config(DragonflyAlgorithm.MIN, TrafficPattern.UNIFORM, 0.1, 10_000, 0);
        List<String> notes = new ArrayList<>();
        run(c, Simulation.Scheduler.WINDOWED, notes);
        Fabric f = c.fabric();
        // p=2, a=4, h=2: 9 groups of 4 routers; the hosts' 10 ns cables inside the processes, the 30 ns local cables between them
        assertTrue(notes.get(0).startsWith("windowed scheduler: " + f.switchCount() + " logical processes, lookahead 30 ns; "), notes.get(0));
        assertEquals(36, f.switchCount());
    }

    @Test
    void nodesJoinedWithoutDelayAreOneProcessAndOneProcessHasTheWidestWindow() throws Exception {
        Fabric f = Topologies.generate(FAT_TREE);
        long[] delay = new long[f.globalPortCount()];
        Arrays.fill(delay, 100);
        LogicalProcesses byDelay = LogicalProcesses.of(f, delay);
        assertEquals(f.switchCount(), byDelay.count());
        assertEquals(100, byDelay.lookaheadNs());
        for (int e = 0; e < f.endpointCount(); e++) {
            assertEquals(byDelay.ofNode(f.endpointNode(e)), byDelay.ofEndpoint(e));
        }
        Arrays.fill(delay, 0);
        LogicalProcesses joined = LogicalProcesses.of(f, delay);
        assertEquals(1, joined.count(), "every link without delay: one process");
        assertEquals(LogicalProcesses.MAX_WINDOW_NS, joined.lookaheadNs());
    }

    @Test
    void eachProcessTakesItsEventsInTimeOrderTiesInTheOrderTheyReachedIt() throws Exception {
        Fabric f = Topologies.generate(FAT_TREE);
        long[] delay = new long[f.globalPortCount()];
        Arrays.fill(delay, 100);
        LogicalProcesses lp = LogicalProcesses.of(f, delay);
        for (int i = 0; i < 3000; i++) { // past the window's first size, over processes 2, 0, 1, 2, 0, ...
            lp.collect((i + 2) % 3, 10 + i / 3, i);
        }
        lp.sortWindow();
        assertEquals(3, lp.activeCount());
        assertEquals(2, lp.active(0), "in the order their first event came");
        lp.begin(2);
        assertEquals(0, lp.take());
        assertEquals(10, lp.takenTime());
        lp.addLocal(11, -1); // at the time of one waiting: after it
        lp.addLocal(10, -2); // before one waiting
        for (int i = 0; i < 20; i++) { // past the process's first size
            lp.addLocal(2000 + i, -100 - i);
        }
        assertFalse(lp.amendLast(-118, -1000), "not the one added last");
        assertTrue(lp.amendLast(-119, -119), "the one added last, not yet taken");
        long[] expect = {-2, 3, -1, 6};
        for (long e : expect) {
            assertTrue(lp.hasNext());
            assertEquals(e, lp.take());
        }
        int taken = 4;
        long last = 0;
        while (lp.hasNext()) {
            long ev = lp.take();
            assertTrue(lp.takenTime() >= last, "time order");
            last = lp.takenTime();
            assertTrue(ev < 0 ? lp.takenTime() >= 2000 : ev % 3 == 0 && lp.takenTime() == 10 + ev / 3, ev + " at " + lp.takenTime());
            taken++;
        }
        assertEquals(1000 + 22 - 1, taken); // the first was taken before the loop
        assertFalse(lp.amendLast(-119, -1000), "taken: too late to amend");
        for (int p : new int[] {0, 1}) {
            lp.begin(p);
            int n = 0;
            while (lp.hasNext()) {
                assertEquals((p + 1) % 3, lp.take() % 3, "process " + p + "'s own");
                n++;
            }
            assertEquals(1000, n);
        }
        lp.endWindow();
        assertEquals(0, lp.activeCount());
        LogicalProcesses.Stats s = lp.stats();
        assertEquals(1, s.windows());
        assertEquals(3, s.batches());
        assertEquals(3022, s.events());
        assertEquals(22, s.localEvents());
        assertEquals(3, s.histogram()[LogicalProcesses.BINS - 1], "over 128 events each: the last bin");
    }

    /**
     * The precision stop in the windowed loop, as PreciseStopTest has it in the global one: a light
     * load ends at a batch's end before its cap, and its report is exactly the windowed run of the
     * same batches whose window ends there (a precision it never reaches: it runs to that cap). The
     * batch ends cut the windows, and where windows are cut decides the order in which two
     * processes' events for a third at the same instant reach the queue (each process runs its
     * window's events in turn): so the windowed run without the batches, its fixed window ending
     * there too, is the same run but for such ties, within a thousandth.
     */
    @Test
    void aPreciseWindowedRunEndsAtABatchEndAndIsTheWindowedFixedWindowEndingThere() throws Exception {
        Simulation.Config fixed = DragonflySimulationTest.config(DragonflyAlgorithm.MIN, TrafficPattern.UNIFORM, 0.3, 200_000, 20)
                .toBuilder().warmupNs(20_000).build();
        Simulation.Config precise = fixed.toBuilder().precise(new Simulation.Precise(0.01)).build();
        List<String> notes = new ArrayList<>();
        Simulation.Report r = run(precise, Simulation.Scheduler.WINDOWED, notes);
        Simulation.Precision p = r.precision();
        assertTrue(p.precise(), "precise by the cap: " + p);
        assertTrue(r.simulatedNs() < 200_000, "ended early: " + r.simulatedNs());
        assertEquals(0, (r.simulatedNs() - 20_000) % p.batchNs(), "at a batch's end");
        assertEquals(r.simulatedNs() - 20_000, (long) p.batches() * p.batchNs(), "the intervals over the whole window");
        Simulation.Report same = run(fixed.toBuilder().durationNs(r.simulatedNs()).precise(new Simulation.Precise(1e-6, p.batchNs())).build(),
                Simulation.Scheduler.WINDOWED, notes);
        SteadyStateTest.assertSameRun(same, r);
        assertFalse(same.precision().precise(), "ran to its cap");
        assertEquals(p.batches(), same.precision().batches(), "over the same batches");
        Simulation.Report plain = run(fixed.toBuilder().durationNs(r.simulatedNs()).build(), Simulation.Scheduler.WINDOWED, notes);
        assertEquals(null, plain.precision(), "no intervals without the option");
        assertEquals(r.simulatedNs(), plain.simulatedNs());
        assertEquals(r.offeredLoad(), plain.offeredLoad(), 1e-3 * r.offeredLoad());
        assertEquals(r.throughput(), plain.throughput(), 1e-3 * r.throughput());
        assertEquals(r.latencyMeanNs(), plain.latencyMeanNs(), 1e-3 * r.latencyMeanNs());
        assertEquals(r.events(), plain.events(), 1e-3 * r.events());
        Simulation.Report global = run(precise, Simulation.Scheduler.GLOBAL, notes);
        assertEquals(global.latencyMeanNs(), r.latencyMeanNs(), 0.05 * global.latencyMeanNs(), "within the noise of the global loop's");
        assertEquals(global.throughput(), r.throughput(), 0.02 * global.throughput());
    }

    /** --until-steady with --until-precise in the windowed loop: steady, then precise at a batch's end after it; a seed, the same run. */
    @Test
    void steadyThenPreciseWindowedIsTheSameRunForASeed() throws Exception {
        Simulation.Config c = DragonflySimulationTest.config(DragonflyAlgorithm.MIN, TrafficPattern.UNIFORM, 0.3, 300_000, 20)
                .toBuilder().warmupNs(180_000).steady(new Simulation.Steady(0.05, 2_000)).precise(new Simulation.Precise(0.01)).build();
        List<String> notes = new ArrayList<>();
        Simulation.Report a = run(c, Simulation.Scheduler.WINDOWED, notes);
        assertTrue(a.steady() && a.precision().precise(), "steady, then precise: " + a.precision());
        long measured = a.simulatedNs() - a.steadyAtNs();
        assertTrue(measured < 120_000, "before the window's 120 us: " + measured);
        assertEquals(measured, (long) a.precision().batches() * a.precision().batchNs(), "at a batch's end after the steady one");
        Simulation.Report b = run(c, Simulation.Scheduler.WINDOWED, notes);
        SteadyStateTest.assertSameRun(a, b);
        assertEquals(a.steadyAtNs(), b.steadyAtNs());
        assertEquals(a.precision(), b.precision(), "the same seed, the same intervals");
        assertEquals(notes.get(0), notes.get(1), "the same windows");
    }

    /** The heap bound holds for the windowed loop too: a heap too small for the pool's slots is refused, and so is sharing it by none. */
    @Test
    void aWindowedRunIsSizedAgainstItsHeapShare() throws Exception {
        Simulation.Config c = fatTree(0.5, 1);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Simulation.runLearningWithin(c, Simulation.Scheduler.WINDOWED, 1 << 10, note -> { }));
        assertTrue(e.getMessage().contains("this run's heap is") && e.getMessage().contains("--threads"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> Simulation.runLearning(c, Simulation.Scheduler.WINDOWED, 0, note -> { }));
        assertTrue(e.getMessage().contains("at least 1"), e.getMessage());
    }

    @Test
    void flowsAndJobsAreRefusedWithTheReason() throws Exception {
        Simulation.Config flows = fatTree(0.5, 1).toBuilder().flows(Simulation.Flow.manyToOne(3, 60_000)).build();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Simulation.runLearning(flows, Simulation.Scheduler.WINDOWED, 1, note -> { }));
        assertTrue(e.getMessage().contains("pattern traffic only") && e.getMessage().contains("--scheduler global"), e.getMessage());
        Simulation.Config jobs = fatTree(0.5, 1).toBuilder().jobs(List.of(new Simulation.Job("a", new int[] {0, 5, 9}, TrafficPattern.UNIFORM,
                0.3, RoutingMode.DEFAULT, 1))).build();
        e = assertThrows(IllegalArgumentException.class, () -> Simulation.runLearning(jobs, Simulation.Scheduler.WINDOWED, 1, note -> { }));
        assertTrue(e.getMessage().contains("pattern traffic only"), e.getMessage());
    }
}
