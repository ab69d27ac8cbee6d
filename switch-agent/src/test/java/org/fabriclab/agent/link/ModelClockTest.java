package org.fabriclab.agent.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicLong;
import org.fabriclab.cli.TimeDilation;
import org.junit.jupiter.api.Test;

/** Model time on a wall clock the test moves: dilated, continuous across changes of D, bounded. */
class ModelClockTest {
    private final AtomicLong wall = new AtomicLong(5_000);

    @Test
    void realTimeIsTheWallClock() {
        ModelClock c = new ModelClock(wall::get, 1);
        long m0 = c.nanos();
        wall.addAndGet(1_000_000);
        assertEquals(m0 + 1_000_000, c.nanos());
        assertEquals(700, c.wallNanos(700));
    }

    @Test
    void dilationSlowsModelTimeAndTimersWaitDTimesLonger() {
        ModelClock c = new ModelClock(wall::get, 10);
        long m0 = c.nanos();
        wall.addAndGet(1_000_000);
        assertEquals(m0 + 100_000, c.nanos(), "1 ms of wall time is 100 us of model time at D=10");
        assertEquals(7_000, c.wallNanos(700), "a 700 ns link time takes 7 us of wall time");
        assertEquals(70, c.modelNanos(700), "a 700 ns lateness is 70 ns of model time");
    }

    @Test
    void modelTimeIsContinuousAcrossChangesOfDilation() {
        ModelClock c = new ModelClock(wall::get, 1);
        long m0 = c.nanos();
        wall.addAndGet(1_000_000);
        c.dilation(20);
        assertEquals(m0 + 1_000_000, c.nanos(), "no jump at the change");
        wall.addAndGet(2_000_000);
        assertEquals(m0 + 1_100_000, c.nanos(), "then 2 ms of wall time at D=20 is 100 us");
        c.dilation(2);
        assertEquals(m0 + 1_100_000, c.nanos(), "no jump lowering D either");
        wall.addAndGet(2_000_000);
        assertEquals(m0 + 2_100_000, c.nanos());
        assertEquals(2, c.dilation());
    }

    /**
     * Two processes' clocks, started at different instants on one machine's monotonic clock, read
     * different model times until one adopts the other's line; then they read one model time, and
     * go on doing so through a change of dilation handed on as a line.
     */
    @Test
    void aClockThatAdoptsAnothersLineReadsItsModelTime() {
        ModelClock fabric = new ModelClock(wall::get, 10);
        wall.addAndGet(1_000_000); // a process started a millisecond of wall time later
        ModelClock process = new ModelClock(wall::get, 10);
        assertTrue(fabric.nanos() != process.nanos(), "apart before");
        process.adopt(fabric.anchor());
        assertEquals(fabric.nanos(), process.nanos());
        wall.addAndGet(3_000);
        fabric.dilation(4);
        process.adopt(fabric.anchor());
        wall.addAndGet(8_000);
        assertEquals(fabric.nanos(), process.nanos(), "after a change of dilation handed on");
        assertEquals(4.0, process.dilation());
        assertThrows(IllegalArgumentException.class, () -> process.adopt(new ModelClock.Anchor(0, 0, 0.5)));
    }

    @Test
    void outOfRangeDilationsAreRefusedAndNameTheRange() {
        ModelClock c = new ModelClock(wall::get, 3);
        for (double bad : new double[] {0, 0.5, -1, 1001, Double.NaN, Double.POSITIVE_INFINITY}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.dilation(bad));
            assertTrue(e.getMessage().contains("1..1000"), e.getMessage());
        }
        assertEquals(3, c.dilation(), "the clock keeps its dilation");
    }

    @Test
    void theOptionReadsAutoOrANumber() {
        assertEquals(TimeDilation.AUTO, TimeDilation.parse("auto"));
        assertEquals(new TimeDilation(12.5, false), TimeDilation.parse("12.5"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> TimeDilation.parse("fast")).getMessage().contains("\"fast\""));
        assertThrows(IllegalArgumentException.class, () -> TimeDilation.parse("0.9"));
    }
}
