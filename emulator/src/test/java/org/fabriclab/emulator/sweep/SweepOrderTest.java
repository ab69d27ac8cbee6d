package org.fabriclab.emulator.sweep;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class SweepOrderTest {
    @Test
    void pointsRunLongestFirstAndEqualsInTheGridsOrder() {
        // two engines x three loads: the second engine simulated four times as long (Q-adaptive's 1 ms against 250 us)
        double[] work = {250 * 0.1, 250 * 0.2, 250 * 0.3, 1000 * 0.1, 1000 * 0.2, 1000 * 0.3};
        assertEquals(List.of(5, 4, 3, 2, 1, 0), Sweep.longestFirst(work));
        assertEquals(List.of(1, 3, 0, 2), Sweep.longestFirst(new double[] {1, 2, 1, 2}));
    }

    @Test
    void aWarmStartedChainRunsItsEnginesPointsInRisingLoad() {
        // the second engine's points (3, 4, 5) of loads given 0.4, 0.2, 0.3: 0.2 first, then 0.3, then 0.4
        assertArrayEquals(new int[] {4, 5, 3}, Sweep.risingLoad(1, new double[] {0.4, 0.2, 0.3}));
    }
}
