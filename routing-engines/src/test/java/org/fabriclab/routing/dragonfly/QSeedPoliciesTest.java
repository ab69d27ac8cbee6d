package org.fabriclab.routing.dragonfly;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Map;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.dragonfly.DragonflyEngine;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/**
 * Q-adaptive's seed policies ({@code --engine-param qtable_seed=minimal|hops|zero}) on the small
 * Dragonfly the daemon's tests run ({@code dragonfly:p=1,a=4,h=1}: 5 groups of 4 routers, one host
 * each; every router has 3 local ports and 1 global one): the shape (a row per destination group
 * and host slot, a column per non-host port), the values of each policy (the hop counts checked
 * against a breadth-first search of the fabric, not against the rule that made them), rows of the
 * router's own group at 0, the routing otherwise the same whatever the policy, and bad values
 * refused by {@code checkParameters} before anything routes.
 */
class QSeedPoliciesTest {
    private static final String SPEC = "dragonfly:p=1,a=4,h=1";
    private static final DragonflyEngine Q = new DragonflyEngine(DragonflyAlgorithm.Q_ADAPTIVE);

    private static DragonflyTables route(Map<String, String> params) throws RoutingException {
        return DragonflyRoutingTest.route(Topologies.generate(SPEC), DragonflyAlgorithm.Q_ADAPTIVE, params).dragonfly();
    }

    @Test
    void everyPolicyGivesATableOfTheRoutersShapeWithItsOwnGroupsRowsAtZero() throws Exception {
        for (String policy : new String[] {"minimal", "hops", "zero"}) {
            DragonflyTables t = route(Map.of("qtable_seed", policy));
            for (int s = 0; s < t.dragonfly().fabric().switchCount(); s++) {
                DragonflySwitch r = t.of(s);
                assertEquals(5, r.rows(), policy);
                assertEquals(4, r.columns(), policy);
                assertEquals(3, r.localColumns(), policy);
                float[] q = r.qSeed();
                assertEquals(5 * 4, q.length, policy);
                for (int c = 0; c < r.columns(); c++) {
                    assertEquals(0f, q[r.row(r.group(), 0) * r.columns() + c], policy + ": switch " + s + "'s own group");
                }
            }
        }
    }

    @Test
    void minimalIsThePapersOneGlobalHopStraightThereAndAGlobalAndALocalOtherwise() throws Exception {
        // no delays in the generated fabric: 128-byte packets at 32 Gbps (32 ns) plus 30 ns local, 300 ns global
        DragonflyTables t = route(Map.of());
        DragonflyTables named = route(Map.of("qtable_seed", "minimal"));
        for (int s = 0; s < 20; s++) {
            DragonflySwitch r = t.of(s);
            assertTrue(Arrays.equals(r.qSeed(), named.of(s).qSeed()), "minimal is the default");
            for (int g = 0; g < 5; g++) {
                if (g == r.group()) {
                    continue;
                }
                for (int c = 0; c < r.columns(); c++) {
                    int p = r.portOfColumn(c);
                    boolean direct = r.kind(p) == DragonflySwitch.GLOBAL && r.peer(p) == g;
                    assertEquals(direct ? 332f : 394f, r.qSeed()[r.row(g, 0) * r.columns() + c], 1e-3f, "switch " + s + " group " + g);
                }
            }
        }
    }

    @Test
    void hopsIsTheFewestHopsToTheGroupThroughEachPortTimesTheHopTime() throws Exception {
        DragonflyTables t = route(Map.of("qtable_seed", "hops", "hop_ns", "100"));
        Fabric f = t.dragonfly().fabric();
        DragonflyFabric df = t.dragonfly();
        int[] seen = new int[4];
        for (int s = 0; s < f.switchCount(); s++) {
            DragonflySwitch r = t.of(s);
            int node = f.switchNode(s);
            for (int g = 0; g < df.groups(); g++) {
                if (g == r.group()) {
                    continue;
                }
                for (int c = 0; c < r.columns(); c++) {
                    int next = f.switchIndex(f.peerNode(f.globalPort(node, r.portOfColumn(c))));
                    int hops = 1 + distanceToGroup(df, next, g);
                    seen[hops]++;
                    assertEquals(100f * hops, r.qSeed()[r.row(g, 0) * r.columns() + c], 1e-3f, "switch " + s + " group " + g + " col " + c);
                }
            }
        }
        // on this Dragonfly all three counts occur: straight there, through the gateway, a hop more
        assertTrue(seen[1] > 0 && seen[2] > 0 && seen[3] > 0, Arrays.toString(seen));
    }

    @Test
    void hopsTakesTheMeanOfALocalAndAGlobalHopByDefault() throws Exception {
        DragonflyTables t = route(Map.of("qtable_seed", "hops"));
        DragonflySwitch r = t.of(0);
        int g = r.peer(r.portOfColumn(r.columns() - 1)); // the group its global port leads to
        assertEquals((62 + 332) / 2f, r.qSeed()[r.row(g, 0) * r.columns() + r.columns() - 1], 1e-3f);
    }

    @Test
    void zeroIsZeroEverywhere() throws Exception {
        DragonflyTables t = route(Map.of("qtable_seed", "zero"));
        for (int s = 0; s < 20; s++) {
            for (float v : t.of(s).qSeed()) {
                assertEquals(0f, v);
            }
        }
    }

    @Test
    void thePolicyChangesTheSeedAndNothingElse() throws Exception {
        DragonflyTables minimal = route(Map.of());
        for (String policy : new String[] {"hops", "zero"}) {
            DragonflyTables other = route(Map.of("qtable_seed", policy));
            for (int s = 0; s < 20; s++) {
                assertTrue(minimal.of(s).sameRouting(other.of(s)), policy + ": switch " + s);
                assertFalse(minimal.of(s).equals(other.of(s)), policy + ": switch " + s + "'s seed differs");
            }
        }
    }

    @Test
    void checkParametersRefusesAnUnknownPolicyOrABadHopTime() {
        Q.checkParameters(Map.of("qtable_seed", "hops", "hop_ns", "mean"));
        Q.checkParameters(Map.of("qtable_seed", " zero ", "hop_ns", "250"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Q.checkParameters(Map.of("qtable_seed", "random")));
        assertEquals("qtable_seed=random is no seed policy; there are minimal (the paper's), hops (hop count x hop_ns), zero, and snapshot:NAME "
                + "(a snapshot the daemon keeps)", e.getMessage());
        for (String bad : new String[] {"0", "-5", "abc", "1e12", "NaN"}) {
            e = assertThrows(IllegalArgumentException.class, () -> Q.checkParameters(Map.of("hop_ns", bad)), bad);
            assertTrue(e.getMessage().startsWith("hop_ns=" + bad + " is neither 'mean' nor a positive number"), e.getMessage());
        }
        // refused when routing too, as a RoutingException naming the engine (a chain falls back)
        RoutingException r = assertThrows(RoutingException.class, () -> route(Map.of("qtable_seed", "snapshot")));
        assertTrue(r.getMessage().contains("qtable_seed=snapshot"), r.getMessage());
    }

    @Test
    void onlyQAdaptiveReadsTheSeedPolicy() {
        Map<String, String> q = Q.parameters();
        assertEquals("minimal", q.get("qtable_seed"));
        assertEquals("mean", q.get("hop_ns"));
        Map<String, String> min = new DragonflyEngine(DragonflyAlgorithm.MIN).parameters();
        assertFalse(min.containsKey("qtable_seed"));
        assertFalse(min.containsKey("hop_ns"));
    }

    /** Router-to-router hops from switch {@code from} to the nearest switch of group {@code g}, by breadth-first search. */
    private static int distanceToGroup(DragonflyFabric df, int from, int g) {
        Fabric f = df.fabric();
        int[] dist = new int[f.switchCount()];
        Arrays.fill(dist, -1);
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        dist[from] = 0;
        queue.add(from);
        while (!queue.isEmpty()) {
            int s = queue.poll();
            if (df.group(s) == g) {
                return dist[s];
            }
            int node = f.switchNode(s);
            for (int p = 1; p <= f.portCount(node); p++) {
                int other = f.peerNode(f.globalPort(node, p));
                if (other != Fabric.NONE && f.isSwitch(other) && dist[f.switchIndex(other)] < 0) {
                    dist[f.switchIndex(other)] = dist[s] + 1;
                    queue.add(f.switchIndex(other));
                }
            }
        }
        throw new AssertionError("group " + g + " unreachable from switch " + from);
    }

    /**
     * A global link fails on a dragonfly with two links between every pair of groups: each router
     * keeps what it learnt in every row whose minimal way (first port, gateway) is unchanged, column
     * by column by port (the router that lost a port loses that column, the others shift), and
     * starts again from the new seed in the rows whose way changed: at the routers of groups 0 and
     * 1 whose own link or gateway to the other group was the failed link (the others' gateways are
     * the pair's other link). Routers of groups the change does not touch keep everything.
     */
    @Test
    void aRoutingChangeCarriesWhatWasLearntOverAndReseedsOnlyTheRowsWhoseMinimalWayChanged() throws Exception {
        Fabric f = Topologies.generate("dragonfly:p=1,a=4,h=2,trunk=2");
        DragonflyTables before = DragonflyRoutingTest.route(f, DragonflyAlgorithm.Q_ADAPTIVE, Map.of()).dragonfly();
        DragonflySwitch inGroup0 = before.of(f.switchIndex(f.nodeByName("G0_S0").orElseThrow()));
        int gatewayIndex = inGroup0.gateway(1);
        int gatewayNode = f.nodeByName("G0_S" + gatewayIndex).orElseThrow();
        DragonflySwitch gateway = before.of(f.switchIndex(gatewayNode));
        int failedPort = gateway.globalPort(1);
        Fabric failed = f.withoutLinks(f.globalPort(gatewayNode, failedPort));
        DragonflyTables after = DragonflyRoutingTest.route(failed, DragonflyAlgorithm.Q_ADAPTIVE, Map.of()).dragonfly();
        int totalReseeded = 0;
        for (int s = 0; s < f.switchCount(); s++) {
            DragonflySwitch b = before.of(s);
            DragonflySwitch a = after.of(s);
            float[] learnt = new float[b.qSeed().length];
            for (int i = 0; i < learnt.length; i++) {
                learnt[i] = b.qSeed()[i] + 1000 + i; // values no seed holds
            }
            QSeeds.CarriedOver c = QSeeds.carryOver(b, learnt, a);
            String at = "router " + b.index() + " of group " + b.group();
            assertEquals(4 * 1, c.rowsKept() + c.rowsReseeded(), at + ": one row per other group");
            totalReseeded += c.rowsReseeded();
            for (int t = 0; t < a.groups(); t++) {
                if (t == a.group()) {
                    continue;
                }
                // a row starts again where its minimal way changed: the router lost its own link to the group, or its gateway
                boolean wayChanged = b.globalPort(t) != a.globalPort(t) || b.globalPort(t) == 0 && b.gateway(t) != a.gateway(t);
                boolean reseeded = (b.group() == 0 && t == 1 || b.group() == 1 && t == 0) && wayChanged;
                for (int col = 0; col < a.columns(); col++) {
                    int port = a.portOfColumn(col);
                    float expected = reseeded ? a.qSeed()[a.row(t, 0) * a.columns() + col]
                            : learnt[b.row(t, 0) * b.columns() + b.column(port)];
                    assertEquals(expected, c.seed()[a.row(t, 0) * a.columns() + col], at + ", row of group " + t + ", port " + port);
                }
            }
            if (b.group() > 1) {
                assertEquals(0, c.rowsReseeded(), at + " keeps everything it learnt");
            }
            if (s == f.switchIndex(gatewayNode)) {
                assertEquals(b.columns() - 1, a.columns(), "the failed link's router lost a column");
            }
        }
        // the failed link's two routers and the routers that went through them; the others' gateways are the pair's other link
        assertTrue(totalReseeded >= 2 && totalReseeded < 8, "the rows of the routers whose way went through the failed link: "
                + totalReseeded);
        // another router, or a table of another shape: nothing carries over
        assertEquals(null, QSeeds.carryOver(before.of(0), before.of(0).qSeed(), after.of(1)));
        assertEquals(null, QSeeds.carryOver(before.of(0), new float[3], after.of(0)));
    }
    /**
     * Parallel links ({@code dragonfly:p=1,a=2,h=4,trunk=4}: 3 groups of 2 routers, each router
     * with two links to each other group): the first of router G0_S0's two links to group 1 fails;
     * its way to group 1 is still its own global link (the second), so the row keeps what it
     * learnt, the failed link's column goes and the second link's keeps its value. Then both fail:
     * the way to group 1 is now the local link to G0_S1, so the row starts again from the new seed.
     */
    @Test
    void losingOneOfParallelLinksKeepsTheRowAndLosingTheLastReseedsIt() throws Exception {
        Fabric f = Topologies.generate("dragonfly:p=1,a=2,h=4,trunk=4");
        int node = f.nodeByName("G0_S0").orElseThrow();
        int s = f.switchIndex(node);
        DragonflySwitch b = DragonflyRoutingTest.route(f, DragonflyAlgorithm.Q_ADAPTIVE, Map.of()).dragonfly().of(s);
        int first = b.globalPort(1);
        assertEquals(2, b.parallels(first), "G0_S0 has two links to group 1");
        int second = b.parallel(first, 1);
        float[] learnt = new float[b.qSeed().length];
        for (int i = 0; i < learnt.length; i++) {
            learnt[i] = b.qSeed()[i] + 1000 + i; // values no seed holds
        }
        int row = b.row(1, 0);

        DragonflySwitch one = DragonflyRoutingTest.route(f.withoutLinks(f.globalPort(node, first)), DragonflyAlgorithm.Q_ADAPTIVE, Map.of())
                .dragonfly().of(s);
        assertEquals(second, one.globalPort(1), "the second link is the way now");
        QSeeds.CarriedOver kept = QSeeds.carryOver(b, learnt, one);
        assertEquals(0, kept.rowsReseeded(), "no row's way changed");
        assertEquals(b.columns() - 1, one.columns(), "the failed link's column went");
        assertEquals(-1, one.column(first));
        for (int c = 0; c < one.columns(); c++) {
            int p = one.portOfColumn(c);
            assertEquals(learnt[row * b.columns() + b.column(p)], kept.seed()[one.row(1, 0) * one.columns() + c], "port " + p + " kept its value");
        }

        DragonflySwitch none = DragonflyRoutingTest.route(f.withoutLinks(f.globalPort(node, first), f.globalPort(node, second)),
                DragonflyAlgorithm.Q_ADAPTIVE, Map.of()).dragonfly().of(s);
        assertEquals(0, none.globalPort(1), "no link of its own to group 1 left");
        QSeeds.CarriedOver reseeded = QSeeds.carryOver(b, learnt, none);
        assertEquals(1, reseeded.rowsReseeded(), "the row of group 1 starts again");
        assertEquals(1, reseeded.rowsKept(), "the row of group 2 keeps what it learnt");
        for (int c = 0; c < none.columns(); c++) {
            assertEquals(none.qSeed()[none.row(1, 0) * none.columns() + c], reseeded.seed()[none.row(1, 0) * none.columns() + c],
                    "column " + c + " of group 1's row is the new seed's");
            int p = none.portOfColumn(c);
            assertEquals(learnt[b.row(2, 0) * b.columns() + b.column(p)], reseeded.seed()[none.row(2, 0) * none.columns() + c],
                    "group 2's row, port " + p + " kept");
        }
    }
}
