package org.fabriclab.agent.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** {@code auto}'s decisions from lag figures alone: raise on lag, lower when idle, not back to where it lagged. */
class DilationControllerTest {
    private static final long BOUND = 20_000;

    @Test
    void aLagOverTheBoundRaisesDByItsExcessWithinLimits() {
        DilationController.Decision d = new DilationController().next(4, 60_000, BOUND);
        assertTrue(d.changes());
        assertEquals(12, d.dilation(), 1e-9, "three times the bound: three times D");
        assertTrue(d.why().contains("60.0 us"), "the log says the lag: " + d.why());
        assertEquals(6, new DilationController().next(4, 21_000, BOUND).dilation(), 1e-9, "just over: at least 1.5 times");
        assertEquals(16, new DilationController().next(4, 10_000_000, BOUND).dilation(), 1e-9, "far over: at most 4 times an interval");
        assertEquals(ModelClock.MAX_DILATION, new DilationController().next(900, 10_000_000, BOUND).dilation(), 1e-9,
                "never beyond the maximum");
    }

    @Test
    void theIntervalAfterAChangeIsIgnoredItsWindowBeganBeforeIt() {
        DilationController c = new DilationController();
        assertEquals(8, c.next(4, 40_000, BOUND).dilation(), 1e-9);
        for (int i = 0; i < DilationController.HOLD_INTERVALS; i++) {
            assertFalse(c.next(8, 40_000, BOUND).changes(), "the lag of the old D's backlog");
        }
        assertEquals(16, c.next(8, 40_000, BOUND).dilation(), 1e-9, "then a lag at the new D counts");
        c.hold();
        assertFalse(c.next(16, 40_000, BOUND).changes(), "held from outside (the starting estimate)");
    }

    @Test
    void lagsWithinTheBoundHoldD() {
        DilationController c = new DilationController();
        for (int i = 0; i < 100; i++) {
            assertFalse(c.next(8, BOUND / 2, BOUND).changes(), "interval " + i);
        }
    }

    @Test
    void idleLoopsLowerDOnlyAfterQuietIntervalsAndNeverBelowRealTime() {
        DilationController c = new DilationController();
        for (int i = 1; i < DilationController.QUIET_INTERVALS; i++) {
            assertFalse(c.next(8, 1_000, BOUND).changes(), "quiet interval " + i);
        }
        DilationController.Decision d = c.next(8, 1_000, BOUND);
        assertEquals(8 / DilationController.LOWER, d.dilation(), 1e-9);
        double at = 1.1;
        for (int i = 0; i < DilationController.HOLD_INTERVALS + DilationController.QUIET_INTERVALS - 1; i++) {
            assertFalse(c.next(at, 0, BOUND).changes(), "held, then quiet " + i);
        }
        assertEquals(1, c.next(at, 0, BOUND).dilation(), 1e-9, "down to real time");
        assertFalse(c.next(1, 0, BOUND).changes(), "and no lower");
    }

    @Test
    void hysteresisKeepsDAwayFromWhereItLaggedUntilTheMemoryFades() {
        DilationController c = new DilationController();
        double d = c.next(10, 40_000, BOUND).dilation(); // lagged at 10: raised to 20
        assertEquals(20, d, 1e-9);
        assertFalse(c.next(d, 0, BOUND).changes(), "held");
        int intervals = 2;
        double lowest = d;
        while (intervals < DilationController.MEMORY_INTERVALS) {
            DilationController.Decision x = c.next(d, 0, BOUND);
            d = x.dilation();
            lowest = Math.min(lowest, d);
            intervals++;
        }
        assertEquals(10 * DilationController.MARGIN, lowest, 1e-9, "lowered, but not to within the margin of 10");
        for (int i = 0; i < 3 * (DilationController.QUIET_INTERVALS + DilationController.HOLD_INTERVALS); i++) {
            d = c.next(d, 0, BOUND).dilation();
        }
        assertTrue(d < 10 * DilationController.MARGIN, "once forgotten it tries lower again: " + d);
    }

    @Test
    void theStartingDilationFollowsTheOfferedLoad() {
        // 64 hosts at 0.2 Gbps in 2 KiB frames over 5 links: 3.9 M frames/s; two loops at 250 k each, half busy: 16
        assertEquals(16, DilationController.initial(64, 0.2, 2048, 5, 2, 250_000), 1e-9);
        assertEquals(1, DilationController.initial(4, 0.01, 2048, 2, 2, 250_000), 1e-9, "a light load runs in real time");
    }
}
