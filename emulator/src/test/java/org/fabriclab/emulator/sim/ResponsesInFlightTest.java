package org.fabriclab.emulator.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.fabriclab.agent.core.PortCounterArray;
import org.junit.jupiter.api.Test;

/**
 * The simulator's responses on their way back: at every settle, each sender's latency counters hold
 * exactly the responses due by then (as its own heap would have given them), however their times
 * back interleave, through the FIFOs' growth and wrap-around.
 */
class ResponsesInFlightTest {
    @Test
    void eachSenderCountsExactlyItsResponsesDueBySettle() {
        int hosts = 7;
        long[] backs = {90, 410, 250, 1_300, 410, 75};
        for (long seed = 1; seed <= 5; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            PortCounterArray[] nic = new PortCounterArray[hosts];
            for (int e = 0; e < hosts; e++) {
                nic[e] = new PortCounterArray(1);
            }
            ResponsesInFlight flight = new ResponsesInFlight(nic);
            int n = 5_000;
            int[] sender = new int[n];
            long[] at = new long[n];
            long[] rtt = new long[n];
            int[] hops = new int[n];
            long now = 0;
            long settled = 0;
            for (int k = 0; k < n; k++) {
                now += r.nextInt(0, 40); // deliveries in time order, some at the same time
                sender[k] = r.nextInt(hosts);
                long back = backs[r.nextInt(backs.length)];
                long sentAt = now - r.nextInt(50, 5_000);
                at[k] = now + back;
                rtt[k] = at[k] - sentAt;
                hops[k] = r.nextInt(0, 6);
                flight.add(sender[k], sentAt, hops[k], back, now);
                if (r.nextInt(10) == 0) {
                    settled = Math.max(settled, now + r.nextInt(0, 30)); // as the simulator's clock: never back
                    long t = settled;
                    flight.settle(t);
                    check(nic, sender, at, rtt, hops, k + 1, t, "seed " + seed + ", settled at " + t);
                }
            }
            flight.settle(Long.MAX_VALUE - 1);
            check(nic, sender, at, rtt, hops, n, Long.MAX_VALUE - 1, "seed " + seed + ", all back");
            assertEquals(0, flight.held());
        }
    }

    /** Each sender's counters hold the sums over the first {@code made} responses due by {@code t}. */
    private static void check(PortCounterArray[] nic, int[] sender, long[] at, long[] rtt, int[] hops, int made, long t, String what) {
        for (int e = 0; e < nic.length; e++) {
            long packets = 0;
            long ns = 0;
            long links = 0;
            for (int k = 0; k < made; k++) {
                if (sender[k] == e && at[k] <= t) {
                    packets++;
                    ns += rtt[k];
                    links += hops[k];
                }
            }
            assertEquals(packets, nic[e].getNode(PortCounterArray.NIC_LATENCY_PACKETS), what + ": host " + e + "'s round trips");
            assertEquals(ns, nic[e].getNode(PortCounterArray.NIC_LATENCY_NS), what + ": host " + e + "'s nanoseconds");
            assertEquals(links, nic[e].getNode(PortCounterArray.NIC_RECEIVED_HOPS), what + ": host " + e + "'s hops");
        }
    }
}
