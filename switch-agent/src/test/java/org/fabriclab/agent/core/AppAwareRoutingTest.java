package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.junit.jupiter.api.Test;

/**
 * Application-aware routing's choice (SC'19, Algorithm 1) from the NIC counters: small messages go
 * with the high bias until 4 KiB have gone; then the cost model picks the high bias where latency
 * is what a message pays (few stalls) and Adaptive where stalls are (a congested NIC).
 */
class AppAwareRoutingTest {
    private static final int FRAME = FrameSizes.DATA_HEADER + 256;

    /**
     * The NIC's {@code packets} packets came back with a round trip of {@code latencyNs} each, and it sent {@code flits} flits
     * waiting {@code waitNs} for credits.
     */
    private static void traffic(PortCounterArray c, long packets, long latencyNs, long flits, long waitNs) {
        c.addNode(PortCounterArray.NIC_LATENCY_PACKETS, packets);
        c.addNode(PortCounterArray.NIC_LATENCY_NS, packets * latencyNs);
        c.addNode(PortCounterArray.NIC_REQUEST_FLITS, flits);
        c.add(1, PortCounterArray.XMIT_WAIT_NS, waitNs);
    }

    /**
     * Twice {@link AppAwareRouting#MAX_AGE} decisions of {@code latencyNs} round trips (no stall) all
     * choose {@code mode}: the other mode's measure {@code measured} until it is too old, then {@code estimated}.
     */
    private static void keeps(PortCounterArray c, AppAwareRouting a, long latencyNs, RoutingMode mode, String measured, String estimated) {
        for (int i = 1; i <= 2 * AppAwareRouting.MAX_AGE; i++) {
            traffic(c, 100, latencyNs, 4000, 0);
            assertEquals(mode, a.select(), "decision " + i + ": " + (i <= AppAwareRouting.MAX_AGE ? measured : estimated));
        }
    }

    @Test
    void smallMessagesGoWithTheHighBiasUntilTheThreshold() {
        PortCounterArray c = new PortCounterArray(1);
        AppAwareRouting a = new AppAwareRouting(c, 1, 1024, 4, FRAME);
        for (int i = 0; i < 3; i++) {
            assertEquals(RoutingMode.ADAPTIVE_3, a.select(), "message " + i + ": " + (i + 1) * 1024 + " bytes, under 4 KiB");
        }
        assertEquals(RoutingMode.ADAPTIVE_3, a.select(), "the fourth reaches 4 KiB: nothing measured, it keeps the mode in use");
        assertEquals(4 * 1024, a.biasedBytes());
    }

    @Test
    void latencyBoundMessagesTakeTheHighBiasAndStalledOnesAdaptive() {
        // 64 KiB messages: every one reads the counters
        PortCounterArray quiet = new PortCounterArray(1);
        AppAwareRouting a = new AppAwareRouting(quiet, 1, 65536, 256, FRAME);
        traffic(quiet, 100, 2000, 4000, 0); // long latency, no stall: the bias's shorter paths pay
        assertEquals(RoutingMode.ADAPTIVE_3, a.select(), "the bias's estimate from Adaptive's measure: lambda (0.997) times its latency, a little less");
        traffic(quiet, 100, 1500, 4000, 0);
        assertEquals(RoutingMode.ADAPTIVE_3, a.select(), "the bias measured lower latency: it stays");
        traffic(quiet, 100, 2500, 4000, 0);
        assertEquals(RoutingMode.ADAPTIVE_0, a.select(), "the bias measured higher latency than Adaptive's last: back to Adaptive");

        PortCounterArray stalled = new PortCounterArray(1);
        AppAwareRouting b = new AppAwareRouting(stalled, 1, 65536, 256, FRAME);
        traffic(stalled, 100, 2000, 4000, 40_000); // ten cycles a flit stalled: the bias's fewer paths would stall more
        assertEquals(RoutingMode.ADAPTIVE_0, b.select());
        traffic(stalled, 100, 2000, 4000, 40_000);
        assertEquals(RoutingMode.ADAPTIVE_0, b.select());
        assertEquals(2 * 65536, b.adaptiveBytes());
    }

    /**
     * A hand-computed sequence of 64 KiB messages (256 packets: the model's latency share (256 + 512) /
     * 1024 = 0.75, no stalls, so the lower latency wins): the high bias measured slower than the
     * default's last measure sends the host back to the default, and it stays there once the high
     * bias's measure is too old, because the estimate that replaces it scales the default's by this
     * host's measured ratio (1.2), not by the fixed lambda (0.997), which would make the high bias
     * look quicker at once and send the host back to it (as before 2026-11-27, when a host that then
     * measured the high bias quicker by chance stayed on it for good).
     */
    @Test
    void theDefaultWinsBackWhenTheHighBiasGetsSlowerAndKeepsItOnceTheBiasIsEstimated() {
        PortCounterArray c = new PortCounterArray(1);
        AppAwareRouting a = new AppAwareRouting(c, 1, 65536, 256, FRAME);
        traffic(c, 100, 1000, 4000, 0);
        assertEquals(RoutingMode.ADAPTIVE_3, a.select(), "the default measured 1000 ns; the bias estimated 0.997 x 1000 = 997: the bias");
        traffic(c, 100, 900, 4000, 0);
        assertEquals(RoutingMode.ADAPTIVE_3, a.select(), "the bias measured 900 against the default's 1000: it stays");
        traffic(c, 100, 1200, 4000, 0);
        assertEquals(RoutingMode.ADAPTIVE_0, a.select(), "the bias's latency rose to 1200 against the default's 1000: the default wins back");
        keeps(c, a, 1000, RoutingMode.ADAPTIVE_0, "the bias's 1200 ns measured", "the bias estimated 1.2 x 1000 (by the fixed lambda: 997, the bias)");
        traffic(c, 100, 2000, 4000, 0);
        assertEquals(RoutingMode.ADAPTIVE_0, a.select(), "a rise in the default's latency raises the bias's estimate alike (1.2 x 2000)");
        assertEquals(2 * 65536, a.biasedBytes(), "two messages went with the bias, the rest with the default");
    }

    /**
     * The other way: a host that measured the high bias quicker keeps it once the default's measure
     * is too old (the default estimated from the bias by the host's ratio, 900 / 1000); and stalls
     * still bring the default back, scaled by sigma (2.03): 4 cycles a flit stalled under the bias,
     * the default estimated at 4 / 2.03 = 1.97, over a 4,352-flit message 4352 x (4 - 1.97) = 8,835
     * cycles against 0.75 x (1000 - 900) = 75 of latency.
     */
    @Test
    void theHostsOwnRatioAlsoKeepsTheHighBiasAndStallsStillBringTheDefaultBack() {
        PortCounterArray c = new PortCounterArray(1);
        AppAwareRouting a = new AppAwareRouting(c, 1, 65536, 256, FRAME);
        traffic(c, 100, 1000, 4000, 20_000); // 5 cycles a flit stalled under the default: the bias estimated 2.03 x 5 = 10.15
        assertEquals(RoutingMode.ADAPTIVE_0, a.select(), "4352 x (10.15 - 5) outweighs 0.75 x 3 ns of latency: the default");
        PortCounterArray q = new PortCounterArray(1);
        AppAwareRouting b = new AppAwareRouting(q, 1, 65536, 256, FRAME);
        traffic(q, 100, 1000, 4000, 0);
        assertEquals(RoutingMode.ADAPTIVE_3, b.select());
        keeps(q, b, 900, RoutingMode.ADAPTIVE_3, "the default's 1000 ns measured", "the default estimated 900 / 0.9 = 1000");
        traffic(q, 100, 900, 4000, 16_000);
        assertEquals(RoutingMode.ADAPTIVE_0, b.select(), "the bias stalls 4 cycles a flit, the default estimated at 1.97: the default");
    }

    /**
     * The paper's library replaces Adaptive with Increasingly Minimal Bias for MPI_Alltoall (its
     * default there): an all-to-all job, open-loop or the closed-loop MPI_Alltoall (whose pattern,
     * unused, is uniform), weighs ADAPTIVE_1 against the high bias, the others ADAPTIVE_0 (a
     * closed loop's kind decides, not its unused pattern); the same counters give the same choice,
     * named by the default.
     */
    @Test
    void allToAllWeighsIncreasinglyMinimalBiasAgainstTheHighBias() {
        assertEquals(RoutingMode.ADAPTIVE_1, AppAwareRouting.forPattern(TrafficPattern.ALL_TO_ALL, null), "open-loop all-to-all");
        assertEquals(RoutingMode.ADAPTIVE_1, AppAwareRouting.forPattern(TrafficPattern.UNIFORM, ClosedLoop.Kind.ALL_TO_ALL),
                "closed-loop alltoall (Figure 8's)");
        for (TrafficPattern p : new TrafficPattern[] {TrafficPattern.UNIFORM, TrafficPattern.ALLREDUCE_RING, TrafficPattern.HALO3D}) {
            assertEquals(RoutingMode.ADAPTIVE_0, AppAwareRouting.forPattern(p, null), p.cliName());
        }
        for (ClosedLoop.Kind k : ClosedLoop.Kind.values()) {
            if (k != ClosedLoop.Kind.ALL_TO_ALL) {
                assertEquals(RoutingMode.ADAPTIVE_0, AppAwareRouting.forPattern(TrafficPattern.UNIFORM, k), k.cliName());
                assertEquals(RoutingMode.ADAPTIVE_0, AppAwareRouting.forPattern(TrafficPattern.ALL_TO_ALL, k),
                        k.cliName() + ": the loop decides, not the unused pattern");
            }
        }
        PortCounterArray stalled = new PortCounterArray(1);
        AppAwareRouting a = new AppAwareRouting(stalled, 1, 65536, 256, FRAME, RoutingMode.ADAPTIVE_1);
        assertEquals(RoutingMode.ADAPTIVE_1, a.adaptive());
        traffic(stalled, 100, 2000, 4000, 40_000);
        assertEquals(RoutingMode.ADAPTIVE_1, a.select(), "stalled: the default, here Increasingly Minimal Bias");
        PortCounterArray quiet = new PortCounterArray(1);
        AppAwareRouting b = new AppAwareRouting(quiet, 1, 65536, 256, FRAME, RoutingMode.ADAPTIVE_1);
        traffic(quiet, 100, 2000, 4000, 0);
        assertEquals(RoutingMode.ADAPTIVE_3, b.select(), "latency-bound: the high bias, as against ADAPTIVE_0");
        traffic(quiet, 100, 2500, 4000, 0);
        assertEquals(RoutingMode.ADAPTIVE_1, b.select(), "the bias measured worse than the default's last: back to ADAPTIVE_1");
        assertEquals(65536, b.adaptiveBytes(), "the default's bytes count ADAPTIVE_1's");
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> new AppAwareRouting(quiet, 1, 65536, 256, FRAME, RoutingMode.ADAPTIVE_3), "the high bias against itself");
    }

    @Test
    void aHostPolicyStampsEachMessageWithTheChosenMode() {
        PortCounterArray c = new PortCounterArray(1);
        int[] hosts = {0, 1, 2, 3};
        TrafficPlan plan = TrafficPlan.ofJob(TrafficPattern.ALL_TO_ALL, hosts, 4, 1);
        HostPolicy p = new HostPolicy(plan.destinations(0, new SplittableRandom(1)), null, null, 1);
        p.routingMode(RoutingMode.ADAPTIVE_0);
        p.appAware(new AppAwareRouting(c, 1, 1024, 4, FRAME));
        for (int i = 0; i < 4; i++) {
            p.nextDestination();
            assertEquals(RoutingMode.ADAPTIVE_3, p.routingMode(), "a small message's packets: high bias");
        }
        assertTrue(p.appAware().biasedBytes() == 1024, "one choice per message, not per packet");
    }
}
