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
        assertEquals(RoutingMode.ADAPTIVE_3, a.select(), "the bias's estimate from Adaptive's measure: a tenth less latency");
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
     * The paper's library replaces Adaptive with Increasingly Minimal Bias for MPI_Alltoall (its
     * default there): an all-to-all job weighs ADAPTIVE_1 against the high bias, the others
     * ADAPTIVE_0; the same counters give the same choice, named by the default.
     */
    @Test
    void allToAllWeighsIncreasinglyMinimalBiasAgainstTheHighBias() {
        assertEquals(RoutingMode.ADAPTIVE_1, AppAwareRouting.forPattern(TrafficPattern.ALL_TO_ALL));
        for (TrafficPattern p : new TrafficPattern[] {TrafficPattern.UNIFORM, TrafficPattern.ALLREDUCE_RING, TrafficPattern.HALO3D}) {
            assertEquals(RoutingMode.ADAPTIVE_0, AppAwareRouting.forPattern(p), p.cliName());
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
