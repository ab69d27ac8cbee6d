package org.fabriclab.agent.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Jobs on one fabric: placements of their ranks, and each job pattern's destinations among its ranks, in messages. */
class JobTrafficTest {
    /** 72 hosts in 9 groups of 8 (dragonfly:p=2,a=4,h=2's numbering). */
    private static int[] groups() {
        int[] g = new int[72];
        for (int e = 0; e < g.length; e++) {
            g[e] = e / 8;
        }
        return g;
    }

    @Test
    void placementsTakeDisjointFreeHostsOfTheAskedNumber() {
        for (Placement first : Placement.values()) {
            for (Placement second : Placement.values()) {
                boolean[] taken = new boolean[72];
                SplittableRandom r = new SplittableRandom(3);
                int[] a = first.place(30, taken, groups(), r);
                int[] b = second.place(42, taken, groups(), r);
                assertEquals(30, a.length);
                assertEquals(42, b.length);
                Set<Integer> all = new HashSet<>();
                Arrays.stream(a).forEach(all::add);
                Arrays.stream(b).forEach(all::add);
                assertEquals(72, all.size(), first + " then " + second + ": disjoint, every host once");
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> first.place(1, taken, groups(), r));
                assertEquals("asks for 1 hosts; 0 are left", e.getMessage());
            }
        }
    }

    @Test
    void contiguousPacksGroupsAndInterleavedSpreadsOverEveryGroup() {
        int[] contiguous = Placement.CONTIGUOUS.place(16, new boolean[72], groups(), new SplittableRandom(1));
        assertArrayEquals(new int[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, contiguous);
        int[] interleaved = Placement.INTERLEAVED.place(18, new boolean[72], groups(), new SplittableRandom(1));
        for (int r = 0; r < interleaved.length; r++) {
            assertEquals(r % 9, groups()[interleaved[r]], "rank " + r + " in group " + r % 9 + ": round-robin over the groups");
        }
        for (int r = 0; r + 1 < interleaved.length; r++) {
            assertNotEquals(groups()[interleaved[r]], groups()[interleaved[r + 1]], "neighbouring ranks in different groups");
        }
    }

    @Test
    void randomPlacementIsSeededAndSorted() {
        int[] a = Placement.RANDOM.place(20, new boolean[72], groups(), new SplittableRandom(9));
        int[] b = Placement.RANDOM.place(20, new boolean[72], groups(), new SplittableRandom(9));
        assertArrayEquals(a, b, "the same seed, the same hosts");
        int[] sorted = a.clone();
        Arrays.sort(sorted);
        assertArrayEquals(sorted, a, "ranks in host order");
        assertTrue(Arrays.stream(a).map(e -> e / 8).distinct().count() > 3, "scattered over groups: " + Arrays.toString(a));
    }

    /** Ranks 0..n-1 on hosts 100 + 3r, so a destination that is not a rank's host shows. */
    private static int[] hostsOf(int n) {
        int[] h = new int[n];
        for (int r = 0; r < n; r++) {
            h[r] = 100 + 3 * r;
        }
        return h;
    }

    @Test
    void allToAllSendsToEveryOtherRankInTurnAndRandomStaysInTheJob() {
        int n = 10;
        int[] hosts = hostsOf(n);
        for (TrafficPattern p : new TrafficPattern[] {TrafficPattern.ALL_TO_ALL, TrafficPattern.UNIFORM}) {
            TrafficPlan plan = TrafficPlan.ofJob(p, hosts, 1, 1);
            for (int r = 0; r < n; r++) {
                Destinations d = plan.destinations(r, new SplittableRandom(r));
                Set<Integer> seen = new HashSet<>();
                for (int i = 0; i < (p == TrafficPattern.ALL_TO_ALL ? n - 1 : 1000); i++) {
                    int x = d.next();
                    assertNotEquals(hosts[r], x, p + ": never the sender");
                    assertTrue(Arrays.stream(hosts).anyMatch(h -> h == x), p + ": " + x + " is a host of the job");
                    seen.add(x);
                }
                assertEquals(n - 1, seen.size(), p + ": every other rank (all-to-all within one round)");
            }
        }
    }

    @Test
    void aJobsAllToAllStartsAfterTheSendersRank() {
        int[] hosts = hostsOf(5);
        TrafficPlan plan = TrafficPlan.ofJob(TrafficPattern.ALL_TO_ALL, hosts, 1, 1);
        Destinations d = plan.destinations(2, new SplittableRandom(0));
        int[] got = new int[8];
        for (int i = 0; i < got.length; i++) {
            got[i] = d.next();
        }
        assertArrayEquals(new int[] {hosts[3], hosts[4], hosts[0], hosts[1], hosts[3], hosts[4], hosts[0], hosts[1]}, got,
                "2 to 3, 4, 0, 1, and round again: no incast on rank 0");
    }

    @Test
    void theRingSendsToTheNextRank() {
        int[] hosts = hostsOf(7);
        TrafficPlan plan = TrafficPlan.ofJob(TrafficPattern.ALLREDUCE_RING, hosts, 1, 1);
        for (int r = 0; r < 7; r++) {
            Destinations d = plan.destinations(r, new SplittableRandom(r));
            for (int i = 0; i < 5; i++) {
                assertEquals(hosts[(r + 1) % 7], d.next());
            }
        }
    }

    @Test
    void halo3dSendsToTheSixNeighboursOfThePeriodicGrid() {
        assertArrayEquals(new int[] {4, 4, 4}, TrafficPlan.grid3d(64));
        assertArrayEquals(new int[] {2, 3, 4}, TrafficPlan.grid3d(24));
        assertArrayEquals(new int[] {1, 1, 7}, TrafficPlan.grid3d(7));
        int[] hosts = hostsOf(64);
        TrafficPlan plan = TrafficPlan.ofJob(TrafficPattern.HALO3D, hosts, 1, 1);
        // rank 0 at (0,0,0): neighbours (1,0,0)=1, (3,0,0)=3, (0,1,0)=4, (0,3,0)=12, (0,0,1)=16, (0,0,3)=48
        Destinations d = plan.destinations(0, new SplittableRandom(0));
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < 12; i++) {
            seen.add(d.next());
        }
        Set<Integer> expected = new HashSet<>();
        for (int r : new int[] {1, 3, 4, 12, 16, 48}) {
            expected.add(hosts[r]);
        }
        assertEquals(expected, seen);
        int[][] nb = TrafficPlan.halo3d(24); // 2 x 3 x 4: one neighbour along the side of 2, two along the others
        for (int r = 0; r < 24; r++) {
            assertEquals(5, nb[r].length, "rank " + r + ": " + Arrays.toString(nb[r]));
            for (int x : nb[r]) {
                int back = r;
                assertTrue(Arrays.stream(nb[x]).anyMatch(y -> y == back), "neighbours are mutual");
            }
        }
    }

    @Test
    void aMessageGoesToOneDestinationAsABurst() {
        TrafficPlan plan = TrafficPlan.ofJob(TrafficPattern.ALL_TO_ALL, hostsOf(5), 4, 1);
        Destinations d = plan.destinations(0, new SplittableRandom(0));
        int[] got = new int[12];
        for (int i = 0; i < got.length; i++) {
            got[i] = d.next();
        }
        assertArrayEquals(new int[] {103, 103, 103, 103, 106, 106, 106, 106, 109, 109, 109, 109}, got);
        assertEquals(4, d.messagePackets());
    }

    @Test
    void aJobPlanRefusesWhatCannotRun() {
        assertThrows(IllegalArgumentException.class, () -> TrafficPlan.ofJob(TrafficPattern.UNIFORM, new int[] {3}, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> TrafficPlan.ofJob(TrafficPattern.UNIFORM, new int[] {3, 3}, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> TrafficPlan.ofJob(TrafficPattern.GROUP_SHIFT, new int[] {1, 2}, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> TrafficPlan.ofJob(TrafficPattern.UNIFORM, new int[] {1, 2}, 0, 1));
    }
}
