package org.fabriclab.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.List;
import org.fabriclab.agent.link.ModelClock;
import org.fabriclab.cli.TimeDilation;
import org.fabriclab.testkit.CpuLoad;
import org.fabriclab.testkit.LiveRates;
import org.junit.jupiter.api.Test;

/**
 * A congested many-to-one on 100 Gbps links, run live under time dilation while the test keeps
 * cores busy, against the simulator on the same scenario: in model time the live plane gives the
 * same throughput and the same shares within 10%, and flags the same congested output (transmit
 * wait where the model congests). Without dilation two cores carry a fraction of 100 Gbps.
 */
class DilatedScenariosIT {
    private static final double LINK_GBPS = 100;
    /** 100 Gbps links at D=1000 are a tenth of a gigabit a second of wall time: what two cores carry, loaded and shared. */
    private static final TimeDilation D = new TimeDilation(ModelClock.MAX_DILATION, false);
    /** A phase, in model time: 10 ms is 6,000 frames into the hot spot at 100 Gbps (10 s of wall time). */
    private static final long PHASE_MS = 10;
    /** The warm-up, in model time. */
    private static final long WARMUP_MS = 5;

    @Test
    void aHotSpotIsCongestedInModelTimeAsTheSimulatorSays() throws Exception {
        Scenarios.Scenario s = Scenarios.byName("ib-ar-c2-s1"); // three senders on one leaf to node 4
        Scenarios.Result sim = Scenarios.simulate(s, false, LINK_GBPS, PHASE_MS * 1_000_000, 1);
        Scenarios.Result live;
        CpuLoad load = new CpuLoad(2);
        try {
            live = Scenarios.live(s, false, LINK_GBPS, PHASE_MS, WARMUP_MS, D);
        } finally {
            load.close();
        }
        Scenarios.PhaseResult l = live.phases().get(0);
        Scenarios.PhaseResult m = sim.phases().get(0);
        LiveRates.assumeKeptUp("many-to-one under D=1000, model Gbps carried live against simulated", total(l), total(m), 0.5);
        assertEquals(total(m), total(l), 0.1 * total(m), "throughput into the hot spot, model Gbps");
        List<Double> expected = ScenariosTest.shares(sim, 0);
        List<Double> actual = ScenariosTest.shares(live, 0);
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), 0.1 * expected.get(i),
                    String.format("flow %s: live %.3f, simulated %.3f", l.flows().get(i).src(), actual.get(i), expected.get(i)));
        }
        assertFalse(m.congestedPorts().isEmpty(), "the simulator congests the hot spot's link");
        assertEquals(outputs(m), outputs(l), "the congested outputs (transmit wait in model time), live as simulated");
    }

    private static List<String> outputs(Scenarios.PhaseResult p) {
        return p.congestedPorts().stream().map(o -> o.node() + ":" + o.port() + "->" + o.to()).sorted().toList();
    }

    private static double total(Scenarios.PhaseResult p) {
        return p.flows().stream().mapToDouble(Scenarios.FlowResult::throughputGbps).sum();
    }
}
