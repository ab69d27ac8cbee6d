package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.fabriclab.routing.engine.PathLanes;
import org.junit.jupiter.api.Test;

/** The host policy both drivers run: destinations by every pattern, arrivals, the source queue, sequence numbers, SL and lane. */
class HostPolicyTest {
    private static final int HOSTS = 12;

    @Test
    void everyPatternPicksAnotherHostAsItPromises() {
        int[] groups = new int[HOSTS];
        for (int e = 0; e < HOSTS; e++) {
            groups[e] = 10 + e / 4; // three groups of four, numbered 10..12
        }
        for (TrafficPattern p : TrafficPattern.named()) {
            TrafficPlan plan = TrafficPlan.of(p, HOSTS, groups, 5);
            Set<Integer> permutationTargets = new HashSet<>();
            for (int e = 0; e < HOSTS; e++) {
                Destinations d = plan.destinations(e, new SplittableRandom(e));
                Set<Integer> seen = new HashSet<>();
                for (int i = 0; i < 2_000; i++) {
                    int x = d.next();
                    assertNotEquals(e, x, p + ": host " + e + " picked itself");
                    assertTrue(x >= 0 && x < HOSTS, p + ": " + x);
                    if (p.equals(TrafficPattern.ALL_TO_ALL)) {
                        int k = i % (HOSTS - 1);
                        assertEquals(k >= e ? k + 1 : k, x, "all-to-all: every other host in turn");
                    }
                    if (p.equals(TrafficPattern.GROUP_SHIFT)) {
                        assertEquals((e / 4 + 1) % 3, x / 4, "group-shift: a host of the next group");
                    }
                    seen.add(x);
                }
                switch (p.kind()) {
                    case UNIFORM, ALL_TO_ALL -> assertEquals(HOSTS - 1, seen.size(), p + ": every other host");
                    case PERMUTATION -> {
                        assertEquals(1, seen.size(), "permutation: one destination");
                        permutationTargets.addAll(seen);
                    }
                    case ADVERSARIAL -> assertEquals(4, seen.size(), "group-shift: every host of the next group");
                }
            }
            if (p.equals(TrafficPattern.PERMUTATION)) {
                assertEquals(HOSTS, permutationTargets.size(), "a permutation: every host is someone's destination");
            }
        }
    }

    @Test
    void thePermutationIsTheSameOnEveryHostForOneSeed() {
        TrafficPlan a = TrafficPlan.of(TrafficPattern.PERMUTATION, HOSTS, null, 9);
        TrafficPlan b = TrafficPlan.of(TrafficPattern.PERMUTATION, HOSTS, null, 9);
        for (int e = 0; e < HOSTS; e++) {
            assertEquals(a.destinations(e, new SplittableRandom(1)).next(), b.destinations(e, new SplittableRandom(2)).next());
        }
    }

    /** The turn used to be {@code next++ % n}: negative after 2^31 packets (an index out of bounds); it wraps at n now. */
    @Test
    void allToAllRunsPast2To31Packets() {
        Destinations d = TrafficPlan.of(TrafficPattern.ALL_TO_ALL, HOSTS, null, 1).destinations(3, new SplittableRandom(1));
        d.skip(Integer.MAX_VALUE);
        for (long i = Integer.MAX_VALUE; i < Integer.MAX_VALUE + 30L; i++) {
            int k = (int) (i % (HOSTS - 1));
            assertEquals(k >= 3 ? k + 1 : k, d.next(), "packet " + i);
        }
        Destinations among = TrafficPlan.among(TrafficPattern.ALL_TO_ALL, 3).destinations(-1, new SplittableRandom(1));
        among.skip(Integer.MAX_VALUE);
        assertEquals((int) (Integer.MAX_VALUE % 3L), among.next(), "a destination list: its entries in turn, from the first");
    }

    /**
     * ADV+N on a dragonfly-sized plan (9 groups of 4 hosts, numbered with gaps as a fabric may
     * number them): every host's destinations are exactly the hosts of group own + N mod 9, for
     * every N the plan takes; N reaching the sender's own group is refused.
     */
    @Test
    void adversarialTrafficSendsEveryHostToTheGroupNAfterItsOwn() {
        int groupsOf = 9;
        int hosts = 4 * groupsOf;
        int[] groups = new int[hosts];
        for (int e = 0; e < hosts; e++) {
            groups[e] = 3 * (e / 4) + 1; // group numbers 1, 4, 7, ..: the plan numbers them 0..8 in order
        }
        for (int n = 1; n < groupsOf; n++) {
            TrafficPattern p = TrafficPattern.adversarial(n);
            TrafficPlan plan = TrafficPlan.of(p, hosts, groups, 5);
            for (int e = 0; e < hosts; e++) {
                Destinations d = plan.destinations(e, new SplittableRandom(e));
                Set<Integer> seen = new HashSet<>();
                for (int i = 0; i < 400; i++) {
                    int x = d.next();
                    assertEquals((e / 4 + n) % groupsOf, x / 4, p + ": host " + e + " (group " + e / 4 + ") sent to host " + x);
                    seen.add(x);
                }
                assertEquals(4, seen.size(), p + ": every host of the destination group, host " + e);
            }
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TrafficPlan.of(TrafficPattern.adversarial(groupsOf), hosts, groups, 5));
        assertTrue(e.getMessage().startsWith("adv+9 traffic") && e.getMessage().contains("hosts are in 9 (adv+1 to adv+8)"), e.getMessage());
    }

    /** adv+1 is group-shift: the same value, so the same plan draws the same destinations from the same generator. */
    @Test
    void adv1IsGroupShift() {
        assertEquals(TrafficPattern.GROUP_SHIFT, TrafficPattern.adversarial(1));
        assertEquals(TrafficPattern.GROUP_SHIFT, TrafficPattern.parse("adv+1"));
        assertEquals("group-shift", TrafficPattern.adversarial(1).cliName());
        int[] groups = {0, 0, 0, 1, 1, 1, 2, 2, 2};
        Destinations a = TrafficPlan.of(TrafficPattern.GROUP_SHIFT, 9, groups, 1).destinations(4, new SplittableRandom(3));
        Destinations b = TrafficPlan.of(TrafficPattern.parse("adv+1"), 9, groups, 1).destinations(4, new SplittableRandom(3));
        for (int i = 0; i < 100; i++) {
            assertEquals(a.next(), b.next(), "draw " + i);
        }
    }

    @Test
    void patternsAreParsedByTheirCommandLineNamesAndTheOldRoundRobin() {
        for (TrafficPattern p : TrafficPattern.named()) {
            assertEquals(p, TrafficPattern.parse(p.cliName()));
            assertEquals(p, TrafficPattern.parse(p.cliName().toUpperCase(java.util.Locale.ROOT).replace('-', '_')));
        }
        assertEquals(TrafficPattern.ALL_TO_ALL, TrafficPattern.parse("round-robin"));
        assertEquals(TrafficPattern.ALL_TO_ALL, TrafficPattern.parse("ROUND_ROBIN"));
        assertEquals(TrafficPattern.adversarial(4), TrafficPattern.parse("adv+4"));
        assertEquals(TrafficPattern.adversarial(4), TrafficPattern.parse("ADV+4"));
        assertEquals("adv+4", TrafficPattern.adversarial(4).cliName());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TrafficPattern.parse("tornado"));
        assertTrue(e.getMessage().contains("'tornado'") && e.getMessage().contains(TrafficPattern.NAMES), e.getMessage());
        for (String bad : new String[] {"adv+0", "adv+x", "adv+", "adv+-1", "adv+1.5", "adv+99999999999"}) {
            e = assertThrows(IllegalArgumentException.class, () -> TrafficPattern.parse(bad), bad);
            assertTrue(e.getMessage().contains("'" + bad + "' is not an adversarial pattern"), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> new TrafficPattern(TrafficPattern.Kind.UNIFORM, 2));
        assertThrows(IllegalArgumentException.class, () -> TrafficPattern.adversarial(0));
    }

    @Test
    void groupShiftNeedsTwoGroupsAndAListTakesUniformOrAllToAllOnly() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TrafficPlan.of(TrafficPattern.GROUP_SHIFT, 4, new int[] {-1, -1, -1, -1}, 1));
        assertTrue(e.getMessage().contains("no group"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> TrafficPlan.of(TrafficPattern.GROUP_SHIFT, 4, new int[] {2, 2, 2, 2}, 1));
        assertTrue(e.getMessage().contains("one group"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> TrafficPlan.among(TrafficPattern.PERMUTATION, 3));
        assertThrows(IllegalArgumentException.class, () -> TrafficPlan.among(TrafficPattern.UNIFORM, 3).destinations(0, new SplittableRandom(1)));
    }

    @Test
    void poissonGapsHaveTheMeanOfTheOfferedLoadAndPacedGapsAreTheMean() {
        double mean = Arrivals.meanGapNs(2048 + 32, 10); // 1,664 ns
        assertEquals(1664, mean, 1e-9);
        Arrivals poisson = new Arrivals(Arrivals.Mode.POISSON, mean, new SplittableRandom(3));
        long sum = 0;
        int n = 200_000;
        for (int i = 0; i < n; i++) {
            long g = poisson.nextGapNs();
            assertTrue(g >= 1);
            sum += g;
        }
        assertEquals(mean, (double) sum / n, mean * 0.01, "mean gap");
        Arrivals paced = new Arrivals(Arrivals.Mode.PACED, mean, null);
        assertEquals(1664, paced.nextGapNs());
        assertEquals(1664, paced.nextGapNs());
    }

    @Test
    void aFullSourceQueueRefusesAndKeepsOrder() {
        SourceQueue q = new SourceQueue();
        for (int i = 0; i < SourceQueue.PACKETS; i++) {
            assertTrue(q.add(i, i % 3 - 1));
        }
        assertTrue(q.isFull());
        assertFalse(q.add(99_999, 0));
        assertEquals(1, q.refused());
        for (int i = 0; i < SourceQueue.PACKETS; i++) {
            assertEquals(i, q.headCreated());
            assertEquals(i % 3 - 1, q.headFlow());
            q.remove();
        }
        assertTrue(q.isEmpty() && q.isIdle());
        q.hold(5);
        assertTrue(q.isEmpty() && !q.isIdle(), "a held packet still waits");
        assertEquals(5, q.held());
        q.unhold();
        assertTrue(q.isIdle());
        assertEquals(PacketPool.NONE, q.held());
    }

    @Test
    void aPacketGetsItsSlFromThePathsLaneAndOneSequenceCounterPerHost() {
        PathLanes lanes = new PathLanes() {
            @Override
            public int laneCount() {
                return 4;
            }

            @Override
            public int lane(int srcEndpoint, int dstLid) {
                return srcEndpoint == 2 ? dstLid % 4 : 0;
            }
        };
        PacketPool pool = new PacketPool(8);
        HostPolicy p = new HostPolicy(TrafficPlan.of(TrafficPattern.UNIFORM, 4, null, 1).destinations(2, new SplittableRandom(1)), null,
                new HostRoutes(new long[] {0, 0, 0, 77}, lanes, 2), 2);
        int[] seqs = new int[3];
        for (int dlid = 1; dlid <= 3; dlid++) {
            int h = pool.allocate();
            p.stamp(pool, h, 5, dlid, p.routes().route(dlid));
            assertEquals(dlid, pool.sl(h), "SL: the lane of the path to " + dlid);
            assertEquals(dlid % 2, pool.vl(h), "VL: the SL on the host's 2 lanes");
            assertEquals(dlid == 3 ? 77 : 0, pool.route(h), "the host table's source route");
            assertEquals(5, pool.slid(h));
            seqs[dlid - 1] = pool.seq(h);
        }
        assertEquals(0, seqs[0]);
        assertEquals(1, seqs[1], "one counter over all destinations");
        assertEquals(2, seqs[2]);
    }

    @Test
    void outOfOrderIsWrapSafe() {
        assertFalse(HostPolicy.overtaken(0, 5), "the first packet of a pair");
        assertTrue(HostPolicy.overtaken(6, 4));
        assertFalse(HostPolicy.overtaken(6, 9), "a gap: numbers of other destinations");
        assertFalse(HostPolicy.overtaken(Integer.MAX_VALUE, Integer.MIN_VALUE), "past 2^31: later, not earlier");
        assertTrue(HostPolicy.overtaken(Integer.MIN_VALUE + 2, Integer.MAX_VALUE), "before the wrap: earlier");
    }

    @Test
    void theSinkCountsReorderingLossAndPercentiles() {
        FlowSink s = new FlowSink();
        // source 7 numbers its packets with one counter over all its destinations: gaps in seq
        // are its other destinations' packets, gaps in the pair number are losses
        s.record(7, 10, 0, 100, 1_000);
        s.record(7, 14, 2, 100, 3_000); // pair packet 1 lost (or late)...
        s.record(7, 12, 1, 100, 2_000); // ... late: reordered, not lost
        s.record(7, 20, 4, 100, 4_000); // pair packet 3 lost
        s.record(9, Integer.MAX_VALUE, 0, 50, 500);
        s.record(9, Integer.MIN_VALUE, 1, 50, 500); // past 2^31: in order
        FlowSink.Totals t = s.totals();
        assertEquals(6, t.packets());
        assertEquals(1, t.outOfOrder());
        assertEquals(1, t.missing());
        assertEquals(11_000, t.latencyNsSum());
        assertEquals(4_000, t.latencyP99Ns(), 4_000 * 0.04);
        assertEquals(4_000, t.latencyP95Ns(), 4_000 * 0.04, "six samples: the 95th percentile is the largest");
    }

    @Test
    void histogramPercentilesAreWithinABucket() {
        LatencyHistogram h = new LatencyHistogram();
        for (int i = 1; i <= 10_000; i++) {
            h.add(i);
        }
        assertEquals(5000.5, h.mean(), 1e-9);
        long p95 = h.percentile(0.95);
        assertTrue(Math.abs(p95 - 9500) < 9500 * 0.04, "p95 " + p95);
        assertEquals(10, h.percentile(0.001), 1);
    }
}
