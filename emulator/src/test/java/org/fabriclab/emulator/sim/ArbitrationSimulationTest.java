package org.fabriclab.emulator.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fabriclab.agent.core.CrossbarArbitration;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.junit.jupiter.api.Test;

/**
 * The switches' crossbar arbitration in the simulator ({@code --arbitration}), on {@link
 * DragonflySimulationTest}'s 72-host dragonfly with the paper's 20-packet output buffers and
 * input-queued: under least recently used, Q-adaptive and VALn lose nothing under a light
 * adversarial load within their hop bound, VALn carries it as offered, a run is the same for a
 * seed, and where heads wait for a full output another run than round-robin's (the setting reaches
 * the switches; an input-output queued switch arbitrates only when an output buffer is full).
 */
class ArbitrationSimulationTest {
    private static Simulation.Report run(DragonflyAlgorithm a, int outputBuffer, CrossbarArbitration arb) throws Exception {
        return Simulation.run(DragonflySimulationTest.config(a, TrafficPattern.GROUP_SHIFT, 0.2, 30_000, outputBuffer).toBuilder()
                .arbitration(arb).build());
    }

    @Test
    void lruCarriesALightLoadLosslesslyAndDeterministically() throws Exception {
        for (DragonflyAlgorithm a : new DragonflyAlgorithm[] {DragonflyAlgorithm.Q_ADAPTIVE, DragonflyAlgorithm.VALN}) {
            for (int outputBuffer : new int[] {0, 20}) {
                String what = a.key() + ", output buffer " + outputBuffer;
                Simulation.Report lru = run(a, outputBuffer, CrossbarArbitration.LRU);
                assertEquals(0, lru.packetsDropped(), what);
                if (a == DragonflyAlgorithm.VALN) { // Q-adaptive still learns its way out of the minimal path in 30 us
                    assertTrue(Math.abs(lru.throughput() - 0.2) < 0.02, what + ": carried " + lru.throughput());
                }
                assertTrue(lru.meanHops() <= 5, what + ": " + lru.meanHops() + " hops");
                Simulation.Report again = run(a, outputBuffer, CrossbarArbitration.LRU);
                assertEquals(lru.events(), again.events(), what);
                assertEquals(lru.latencyMeanNs(), again.latencyMeanNs(), what);
                if (a == DragonflyAlgorithm.Q_ADAPTIVE || outputBuffer == 0) {
                    // VALn's light load never fills a 20-packet output buffer: every head moves at once, nothing to arbitrate
                    Simulation.Report rr = run(a, outputBuffer, CrossbarArbitration.ROUND_ROBIN);
                    assertNotEquals(rr.latencyMeanNs(), lru.latencyMeanNs(), what + ": another order, another run");
                }
            }
        }
    }
}
