package org.fabriclab.emulator.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.fabriclab.testkit.LiveRates;
import org.junit.jupiter.api.Test;

/**
 * The scenarios run live (Netty links, wall-clock time) against the simulator: an integration
 * test ({@code mvn verify}), as the live shares depend on the machine keeping up with its links
 * in real time; where it did not (the live run carried less than 90% of what the simulator
 * carries), the test is aborted with the figures rather than failed.
 */
class LiveScenariosIT {
    /** The links' rate, live and simulated (two cores emulate 1 Gbps links faithfully when they are free). */
    private static final double LINK_GBPS = 1;

    /**
     * The acceptance test of "one core, two clocks": the same scenario run on the live
     * agents (Netty links, wall-clock time, {@link #LINK_GBPS}) and in the simulator (virtual time, the same
     * link rate) gives every flow the same share of its link within 10%, phase by phase. C1 S2
     * under DR and AR, and C2 S3 under AR: the reverse parking lot, whose three phases change the
     * shares each time.
     */
    @Test
    void liveAndSimulatedRunsGiveTheSameSharesWithinTenPercent() throws Exception {
        sameShares("ib-ar-c1-s2", false);
        sameShares("ib-ar-c1-s2", true);
        sameShares("ib-ar-c2-s3", true);
    }

    private static void sameShares(String name, boolean adaptive) throws Exception {
        Scenarios.Scenario s = Scenarios.byName(name);
        Scenarios.Result sim = Scenarios.simulate(s, adaptive, LINK_GBPS, 20_000_000, 1);
        Scenarios.Result live = Scenarios.live(s, adaptive, LINK_GBPS, 2000, 2000);
        assertTrue(live.live() && !sim.live());
        assertEquals(s.phases() * Scenarios.LIVE_BINS_PER_PHASE, live.series()[0].length, "one sample per bin of every phase");
        for (int p = 0; p < s.phases(); p++) {
            LiveRates.assumeKeptUp(name + " phase " + p + ", Gbps carried live against simulated", total(live, p), total(sim, p), 0.9);
        }
        for (int p = 0; p < s.phases(); p++) {
            List<Double> expected = ScenariosTest.shares(sim, p);
            List<Double> actual = ScenariosTest.shares(live, p);
            for (int i = 0; i < expected.size(); i++) {
                String what = String.format("%s %s phase %d flow %s: live %.3f, simulated %.3f", name, adaptive ? "AR" : "DR", p,
                        live.phases().get(p).flows().get(i).src(), actual.get(i), expected.get(i));
                assertEquals(expected.get(i), actual.get(i), 0.1 * expected.get(i), what);
            }
        }
    }

    private static double total(Scenarios.Result r, int phase) {
        return r.phases().get(phase).flows().stream().mapToDouble(Scenarios.FlowResult::throughputGbps).sum();
    }
}
