package org.fabriclab.emulator.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.Map;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.junit.jupiter.api.Test;

/**
 * The hosts' routing modes in the simulator (issue 19), on {@link DragonflySimulationTest}'s
 * 72-host dragonfly under adversarial traffic (ADV+1), where UGAL has reason to leave the
 * minimal path: the bias lowers the share of non-minimal decisions in the order the modes name
 * (ADAPTIVE_3 below ADAPTIVE_2 below ADAPTIVE_0); MIN_HASH and IN_ORDER never leave it, NMIN_HASH
 * always does; IN_ORDER delivers every pair in order; and a run whose packets ask for no mode is
 * the run of ADAPTIVE_0 (no bias, the same draws), event for event.
 */
class RoutingModeSimulationTest {
    private static Simulation.Learnt run(DragonflyAlgorithm a, RoutingMode m, double load) throws Exception {
        return Simulation.runLearning(DragonflySimulationTest.config(a, TrafficPattern.GROUP_SHIFT, load, 30_000, 0).toBuilder()
                .routingMode(m).build());
    }

    @Test
    void theBiasLowersTheNonMinimalShareInTheOrderTheModesName() throws Exception {
        for (DragonflyAlgorithm a : new DragonflyAlgorithm[] {DragonflyAlgorithm.UGALG, DragonflyAlgorithm.PAR}) {
            Map<RoutingMode, Double> share = new EnumMap<>(RoutingMode.class);
            for (RoutingMode m : RoutingMode.values()) {
                share.put(m, run(a, m, 0.3).nonminimalShare());
            }
            String what = a.key() + " " + share;
            System.out.println(what);
            assertTrue(share.get(RoutingMode.ADAPTIVE_3) < share.get(RoutingMode.ADAPTIVE_2), what);
            assertTrue(share.get(RoutingMode.ADAPTIVE_2) < share.get(RoutingMode.ADAPTIVE_0), what);
            assertTrue(share.get(RoutingMode.ADAPTIVE_1) < share.get(RoutingMode.ADAPTIVE_0), what);
            assertEquals(0.0, share.get(RoutingMode.MIN_HASH), what);
            assertEquals(0.0, share.get(RoutingMode.IN_ORDER), what);
            assertEquals(1.0, share.get(RoutingMode.NMIN_HASH), what);
        }
    }

    @Test
    void inOrderDeliversEveryPairInOrderWhereAdaptiveRoutingReorders() throws Exception {
        Simulation.Report adaptive = run(DragonflyAlgorithm.UGALN, RoutingMode.ADAPTIVE_0, 0.3).report();
        Simulation.Report inOrder = run(DragonflyAlgorithm.UGALN, RoutingMode.IN_ORDER, 0.3).report();
        assertTrue(adaptive.outOfOrder() > 0, "adaptive routing reorders some pairs: " + adaptive.outOfOrder());
        assertEquals(0, inOrder.outOfOrder());
        assertEquals(0, inOrder.packetsDropped());
    }

    @Test
    void packetsAskingForNoModeRunAsAdaptiveZeroEventForEvent() throws Exception {
        for (DragonflyAlgorithm a : DragonflyAlgorithm.values()) {
            Simulation.Learnt none = run(a, RoutingMode.DEFAULT, 0.3);
            Simulation.Learnt zero = run(a, RoutingMode.ADAPTIVE_0, 0.3);
            assertEquals(none.report().events(), zero.report().events(), a.key());
            assertEquals(none.report().latencyMeanNs(), zero.report().latencyMeanNs(), a.key());
            assertEquals(none.nonminimalDecisions(), zero.nonminimalDecisions(), a.key());
        }
    }
}
