package org.fabriclab.emulator.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.junit.jupiter.api.Test;

/**
 * Steady-state detection ({@code --until-steady}): the test on windows by itself, then on runs of
 * the 72-host dragonfly of {@link DragonflySimulationTest}: a light load is steady within a few
 * windows and ends early, measured exactly as a run whose fixed warm-up ends at that instant; a
 * run whose source queues are still filling at the cap is not steady and is the run without
 * detection; a saturated run whose source queues are bounded is steady once they are full; the
 * same seed gives the same run.
 */
class SteadyStateTest {
    private static final int FRAME = 128;

    /** Closes {@code n} windows of {@code packets} packets at {@code latency} ns each; the last close's answer. */
    private static boolean windows(SteadyState s, int n, int packets, long latency) {
        boolean steady = false;
        for (int w = 0; w < n; w++) {
            for (int p = 0; p < packets; p++) {
                s.delivered(latency, FRAME);
            }
            steady = s.closeWindow();
        }
        return steady;
    }

    @Test
    void aFlatRunIsSteadyOnceTenWindowsHavePassedAndNotBefore() {
        SteadyState s = new SteadyState(new Simulation.Steady(0.05, 1000));
        assertFalse(windows(s, Simulation.Steady.WINDOWS - 1, 100, 500), "nine windows are too few to judge");
        assertTrue(windows(s, 1, 100, 500));
    }

    @Test
    void aTrendBeyondTheToleranceOverTheTenWindowsIsNotSteady() {
        // latency rising 1.5% a window: each window within 5% of the one before (BookSim's test would pass it), but the
        // first and last of ten 6.75% from their mean
        SteadyState s = new SteadyState(new Simulation.Steady(0.05, 1000));
        boolean steady = false;
        for (int w = 0; w < 20; w++) {
            for (int p = 0; p < 100; p++) {
                s.delivered(Math.round(1000 * Math.pow(1.015, w)), FRAME);
            }
            steady |= s.closeWindow();
        }
        assertFalse(steady);
        // a looser tolerance takes the same trend for steady
        SteadyState loose = new SteadyState(new Simulation.Steady(0.1, 1000));
        for (int w = 0; w < 10; w++) {
            for (int p = 0; p < 100; p++) {
                loose.delivered(Math.round(1000 * Math.pow(1.015, w)), FRAME);
            }
            steady = loose.closeWindow();
        }
        assertTrue(steady);
    }

    @Test
    void oneExcursionOrAWindowWithoutPacketsIsNotSteady() {
        SteadyState s = new SteadyState(new Simulation.Steady(0.05, 1000));
        windows(s, 5, 100, 500);
        assertFalse(windows(s, 1, 100, 600), "a window 20% slower");
        assertFalse(windows(s, 9, 100, 500), "still within the last ten");
        assertTrue(windows(s, 1, 100, 500), "out of the last ten");
        assertFalse(windows(s, 1, 80, 500), "a window that carried 20% less");
        SteadyState empty = new SteadyState(new Simulation.Steady(0.05, 1000));
        windows(empty, 9, 100, 500);
        assertFalse(empty.closeWindow(), "a window that delivered nothing has no latency to judge");
    }

    @Test
    void theConfigurationRefusesWhatTheTestCannotRun() throws Exception {
        Simulation.Config c = DragonflySimulationTest.config(DragonflyAlgorithm.MIN, TrafficPattern.UNIFORM, 0.3, 100_000, 20);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> c.toBuilder().warmupNs(5_000).steady(new Simulation.Steady(0.05, 1_000)).build());
        assertTrue(e.getMessage().contains("needs 10 windows of 1000 ns within the warm-up's cap (5000 ns)"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new Simulation.Steady(0, 1_000));
        assertThrows(IllegalArgumentException.class, () -> new Simulation.Steady(1, 1_000));
        e = assertThrows(IllegalArgumentException.class, () -> c.toBuilder().flows(Simulation.Flow.manyToOne(2, 100_000))
                .steady(new Simulation.Steady(0.05, 0)).build());
        assertTrue(e.getMessage().contains("flows are measured per phase"), e.getMessage());
        assertEquals(2_000, c.toBuilder().steady(new Simulation.Steady(0.05, 0)).build().steady().windowNs(),
                "unless given, a tenth of the measured window or, shorter here, of the warm-up (a fifth of 100 us)");
        assertEquals(1_000, c.toBuilder().durationNs(110_000).warmupNs(100_000).steady(new Simulation.Steady(0.05, 0)).build().steady()
                .windowNs(), "a tenth of the measured window (10 us)");
    }

    /** The simulation's part of two reports: everything but the machine's and the warm-up's. */
    private static void assertSameRun(Simulation.Report a, Simulation.Report b) {
        assertEquals(a.offeredLoad(), b.offeredLoad());
        assertEquals(a.throughput(), b.throughput());
        assertEquals(a.latencyMeanNs(), b.latencyMeanNs());
        assertEquals(a.latencyP95Ns(), b.latencyP95Ns());
        assertEquals(a.latencyP99Ns(), b.latencyP99Ns());
        assertEquals(a.meanHops(), b.meanHops());
        assertEquals(a.packetsDelivered(), b.packetsDelivered());
        assertEquals(a.packetsRefused(), b.packetsRefused());
        assertEquals(a.packetsDropped(), b.packetsDropped());
        assertEquals(a.packetHops(), b.packetHops());
        assertEquals(a.events(), b.events());
        assertEquals(a.simulatedNs(), b.simulatedNs());
    }

    @Test
    void aLightLoadIsSteadySoonAndMeasuredAsAFixedWarmUpEndingThere() throws Exception {
        // cap 180 us, 20 us measured, windows of 2 us
        Simulation.Config fixed = DragonflySimulationTest.config(DragonflyAlgorithm.MIN, TrafficPattern.UNIFORM, 0.3, 200_000, 20)
                .toBuilder().warmupNs(180_000).build();
        Simulation.Config watched = fixed.toBuilder().steady(new Simulation.Steady(0.05, 0)).build();
        Simulation.Report r = Simulation.run(watched);
        assertTrue(r.steady(), "steady by the cap");
        assertTrue(r.steadyAtNs() <= 40_000, "a light load settles within a few windows, not at " + r.steadyAtNs());
        assertEquals(0, r.steadyAtNs() % 2_000, "at a window's end");
        assertEquals(r.steadyAtNs(), r.warmupNs());
        assertEquals(r.steadyAtNs() + 20_000, r.simulatedNs(), "measured for the duration less the warm-up, then ended");
        Simulation.Report same = Simulation.run(fixed.toBuilder().warmupNs(r.steadyAtNs()).durationNs(r.steadyAtNs() + 20_000).build());
        assertSameRun(same, r);
        assertFalse(same.steady());
        assertEquals(r.steadyAtNs(), same.warmupNs());
        Simulation.Report again = Simulation.run(watched);
        assertSameRun(r, again);
        assertEquals(r.steadyAtNs(), again.steadyAtNs(), "the same seed, the same run");
    }

    @Test
    void aRunStillFillingItsSourceQueuesAtTheCapIsNotSteadyAndIsTheRunWithoutDetection() throws Exception {
        // minimal routing under adversarial traffic carries a few percent: each host's 1,024-packet source queue fills at
        // nearly the offered 0.8 of its link, about 40 us, so latency still climbs at a 20 us cap
        Simulation.Config fixed = DragonflySimulationTest.config(DragonflyAlgorithm.MIN, TrafficPattern.GROUP_SHIFT, 0.8, 30_000, 20)
                .toBuilder().warmupNs(20_000).build();
        Simulation.Report r = Simulation.run(fixed.toBuilder().steady(new Simulation.Steady(0.05, 1_000)).build());
        assertFalse(r.steady());
        assertEquals(-1, r.steadyAtNs());
        assertEquals(20_000, r.warmupNs(), "measured after the cap");
        assertSameRun(Simulation.run(fixed), r);
    }

    @Test
    void aSaturatedRunWithBoundedSourceQueuesIsSteadyOnceTheyAreFull() throws Exception {
        Simulation.Config c = DragonflySimulationTest.config(DragonflyAlgorithm.MIN, TrafficPattern.GROUP_SHIFT, 0.8, 200_000, 20)
                .toBuilder().warmupNs(180_000).sourceQueuePackets(20).steady(new Simulation.Steady(0.05, 0)).build();
        Simulation.Report r = Simulation.run(c);
        assertTrue(r.throughput() < 0.5 * r.offeredLoad(), "saturated: " + r.throughput());
        assertTrue(r.steady() && r.steadyAtNs() < 180_000, "steady before the cap: " + r.steadyAtNs());
    }
}
