package org.fabriclab.emulator.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.fabriclab.agent.core.ClosedLoop;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.routing.analysis.NoLoadLatency;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.fabric.Fabric;
import org.junit.jupiter.api.Test;

/**
 * The NIC's latency counter in the simulator is Aries': the round trips of the host's own packets
 * (issue 19). On {@link DragonflySimulationTest}'s dragonfly under minimal routing, an
 * application-aware ping-pong of one-packet messages between hosts 0 and 71 (other groups) keeps
 * one packet at a time in the empty fabric: each rank's counter holds each of its packets' time
 * there plus its response's time back, to the nanosecond, and none of its peer's. A run with no
 * application-aware job, whose counters nothing reads, answers nothing.
 */
class NicRoundTripSimulationTest {
    private static Simulation.Config pingPong(boolean appAware) throws Exception {
        return DragonflySimulationTest.config(DragonflyAlgorithm.MIN, TrafficPattern.UNIFORM, 0.1, 20_000, 0).toBuilder()
                .jobs(List.of(new Simulation.Job("pp", new int[] {0, 71}, TrafficPattern.UNIFORM, 1, RoutingMode.ADAPTIVE_0, 1, appAware,
                        ClosedLoop.Kind.PING_PONG))).build();
    }

    @Test
    void eachRankCountsItsOwnPacketsRoundTrips() throws Exception {
        Simulation.Config c = pingPong(true);
        Fabric f = c.fabric();
        assertTrue(f.group(f.endpointSwitch(0)) != f.group(f.endpointSwitch(71)), "two groups");
        Simulation sim = Simulation.ranToEnd(c);
        NoLoadLatency data = new NoLoadLatency(f, c.latencyNs(), c.linkGbps(), FrameSizes.DATA_HEADER + c.payloadBytes());
        NoLoadLatency header = new NoLoadLatency(f, c.latencyNs(), c.linkGbps(), FrameSizes.DATA_HEADER);
        for (int[] pair : new int[][] {{0, 71}, {71, 0}}) {
            PortCounterArray mine = sim.nicCounters(pair[0]);
            long packets = mine.getNode(PortCounterArray.NIC_LATENCY_PACKETS);
            long there = data.ns(pair[0], pair[1]);
            long back = header.ns(pair[1], pair[0]);
            assertTrue(back < there && there < 1_000, "a header-only frame back, a data frame there: " + back + ", " + there + " ns");
            assertTrue(packets > 10, "host " + pair[0] + ": " + packets + " round trips");
            assertEquals(packets * (there + back), mine.getNode(PortCounterArray.NIC_LATENCY_NS),
                    "host " + pair[0] + ": each its packet's way there and its response's back");
            long hops = mine.getNode(PortCounterArray.NIC_RECEIVED_HOPS);
            assertTrue(hops >= packets && hops <= 3 * packets, "one global link, a local one at either end at most: " + hops);
        }
        long sent0 = sim.nicCounters(0).getNode(PortCounterArray.NIC_LATENCY_PACKETS);
        long sent71 = sim.nicCounters(71).getNode(PortCounterArray.NIC_LATENCY_PACKETS);
        assertTrue(Math.abs(sent0 - sent71) <= 1, "a ping, then its pong: " + sent0 + ", " + sent71);

        Simulation fixed = Simulation.ranToEnd(pingPong(false));
        assertEquals(0, fixed.nicCounters(0).getNode(PortCounterArray.NIC_LATENCY_PACKETS), "no reader, no responses");
    }
}
