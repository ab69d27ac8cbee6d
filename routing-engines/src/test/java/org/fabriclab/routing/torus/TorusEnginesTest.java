package org.fabriclab.routing.torus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import java.util.stream.IntStream;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricBuilder;
import org.fabriclab.routing.fabric.NodeSet;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The Angara engines: every pair routed by the rules, shortest, deadlock-free, balanced as the paper's Table 2. */
class TorusEnginesTest {
    static int[] all(Torus t) {
        return IntStream.range(0, t.nodes()).toArray();
    }

    /** One row of Table 2: the engine on the node set's switches, seed 1. */
    private static void table2(String engine, String nodes, long max, long min, double sigma4, int maxD) {
        Fabric f = Topologies.generate("paper:angara-desmos");
        SourceRouteAnalysis.Report r = SourceRouteAnalysis.analyze(TorusEngines.route(f, engine, NodeSet.parse(f, nodes), 1));
        assertEquals(0, r.unroutablePairs());
        assertEquals(maxD, r.maxHops(), "shortest routes: the diameter of the set");
        assertEquals(max, r.maxLoad(), "edge-forwarding index");
        assertEquals(min, r.minLoad());
        assertEquals(sigma4, r.sigma4(), 0.0005);
        assertTrue(r.deadlockFree(), "with the deadlock-free turns of section 3.2: " + r.cycle());
    }

    /**
     * The paper's Table 2 for BFS on the Desmos 4x2x2x2 torus, node sets numbered X first (2, 4, 8,
     * 16, 32 nodes): max and min channel load, sigma(4,R), max D. The paper's: 1/1/0/1, 2/2/0/2,
     * 6/2/1.429/3, 18/3/4.341/4, 48/3/12.254/5. Ours match at 2 and 4 and beat it from 8 on
     * (docs/reproductions.md says why).
     */
    @ParameterizedTest
    @CsvSource({
        "H[0-1]_0_0_0_0, 1, 1, 0.000, 1",
        "H[0-3]_0_0_0_0, 2, 2, 0.000, 2",
        "H[0-3]_[0-1]_0_0_0, 6, 2, 1.164, 3",
        "H[0-3]_[0-1]_[0-1]_0_0, 14, 4, 3.102, 4",
        "H[0-3]_[0-1]_[0-1]_[0-1]_0, 36, 3, 8.621, 5"})
    void bfsReproducesTable2OnDesmos(String nodes, long max, long min, double sigma4, int maxD) {
        table2("torus-bfs", nodes, max, min, sigma4, maxD);
    }

    /**
     * Table 2's SSSP column the same way. The paper's: 1/1/0/1, 2/2/0/2, 5/3/0.707/3, 12/3/2.319/4,
     * 28/8/6.298/5. Ours equal the paper at 2, 4 and 8 nodes and beat it at 16 and 32 (a lower
     * maximum load and sigma(4,R): the most turns first in stage 2, docs/reproductions.md).
     */
    @ParameterizedTest
    @CsvSource({
        "H[0-1]_0_0_0_0, 1, 1, 0.000, 1",
        "H[0-3]_0_0_0_0, 2, 2, 0.000, 2",
        "H[0-3]_[0-1]_0_0_0, 5, 3, 0.707, 3",
        "H[0-3]_[0-1]_[0-1]_0_0, 11, 5, 1.825, 4",
        "H[0-3]_[0-1]_[0-1]_[0-1]_0, 27, 8, 6.237, 5"})
    void ssspReproducesTable2OnDesmos(String nodes, long max, long min, double sigma4, int maxD) {
        table2("torus-sssp", nodes, max, min, sigma4, maxD);
    }

    /**
     * Table 2's Genetic column, seed 1. The paper's: 1/1/0/1, 2/2/0/2, 4/4/0/3, 11/5/1.745/4,
     * 27/8/6.274/5. Ours: the same at 2, 4 and 8 nodes; at 16 a lower maximum (10) with sigma 2%
     * higher; at 32 the same maximum and minimum with sigma 1.4% higher.
     */
    @ParameterizedTest
    @CsvSource({
        "H[0-1]_0_0_0_0, 1, 1, 0.000, 1",
        "H[0-3]_0_0_0_0, 2, 2, 0.000, 2",
        "H[0-3]_[0-1]_0_0_0, 4, 4, 0.000, 3",
        "H[0-3]_[0-1]_[0-1]_0_0, 10, 6, 1.784, 4",
        "H[0-3]_[0-1]_[0-1]_[0-1]_0, 27, 8, 6.360, 5"})
    void geneticReproducesTable2OnDesmos(String nodes, long max, long min, double sigma4, int maxD) {
        table2("torus-genetic", nodes, max, min, sigma4, maxD);
    }

    @Test
    void geneticIsSeeded() {
        Torus t = Torus.of(Topologies.generate("torus:4x3"));
        RoutingGraph g = RoutingGraph.withDeadlockFreeTurns(t);
        SourceRoutes a = TorusEngines.create("torus-genetic").route(g, all(t), 7);
        SourceRoutes b = TorusEngines.create("torus-genetic").route(g, all(t), 7);
        for (int i = 0; i < a.size(); i++) {
            for (int j = 0; j < a.size(); j++) {
                assertEquals(a.describe(i, j), b.describe(i, j));
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"torus-genetic, torus:4x4", "torus-genetic, torus:3x3x2", "torus-bfs, torus:4x4", "torus-bfs, torus:3x5x2", "torus-bfs, torus:4x3x3x2", "torus-bfs, mesh:3x3",
        "torus-sssp, torus:4x4", "torus-sssp, torus:3x5x2", "torus-sssp, torus:4x3x3x2", "torus-sssp, mesh:3x3"})
    void everyRouteKeepsTheRulesIsShortestAndNoCycleHasATurn(String engine, String spec) {
        Torus t = Torus.of(Topologies.generate(spec));
        RoutingGraph g = RoutingGraph.withDeadlockFreeTurns(t);
        SourceRoutes r = TorusEngines.create(engine).route(g, all(t), 1);
        SourceRouteAnalysis.Report a = SourceRouteAnalysis.analyze(r); // walks every route link by link
        assertEquals(0, a.unroutablePairs(), spec);
        assertTrue(a.deadlockFree(), spec + ": " + a.cycle());
        // shortest under the rules: as long as the breadth-first levels of the routing graph say
        SourceRoutes bfs = TorusEngines.create("torus-bfs").route(g, all(t), 1);
        for (int i = 0; i < r.size(); i++) {
            for (int j = 0; j < r.size(); j++) {
                assertEquals(bfs.length(i, j), r.length(i, j), engine + " " + r.describe(i, j) + " vs " + bfs.describe(i, j));
            }
        }
    }

    @Test
    void ssspTakesTheUniqueRouteWhereThereIsOne() {
        // on a ring of five every pair has one shortest route: the short way round
        Torus t = Torus.of(Topologies.generate("torus:5"));
        SourceRoutes r = TorusEngines.create("torus-sssp").route(RoutingGraph.withDeadlockFreeTurns(t), all(t), 1);
        assertEquals("+X+X", r.describe(0, 2));
        assertEquals("-X-X", r.describe(0, 3));
        assertEquals("-X", r.describe(0, 4));
    }

    @Test
    void theDeadlockFreeTurnsAddRoutesTheDirectionOrderForbids() {
        Torus t = Torus.of(Topologies.generate("paper:angara-desmos"));
        assertTrue(RoutingGraph.withDeadlockFreeTurns(t).edgeCount() > RoutingGraph.of(t).edgeCount());
        // on a full ring every turn against the order would close a cycle: none is added
        Torus ring = Torus.of(Topologies.generate("torus:5x5"));
        assertEquals(RoutingGraph.of(ring).edgeCount(), RoutingGraph.withDeadlockFreeTurns(ring).edgeCount());
    }

    @Test
    void theAnalysisFindsACycleOfTurns() {
        // four routes turning right around a unit square of a 3x3 torus: the classic deadlock
        Torus t = Torus.of(Topologies.generate("torus:3x3"));
        int[] nodes = {0, 1, 3, 4}; // T0_0, T0_1, T1_0, T1_1
        SourceRoutes.Builder b = new SourceRoutes.Builder(t, nodes);
        int x = 0;
        int y = 1;
        int mx = 2;
        int my = 3;
        // T0_0 -> T1_1 by +X+Y, T1_0 -> T0_1 by +Y-X, T1_1 -> T0_0 by -X-Y, T0_1 -> T1_0 by -Y+X
        b.route(0, 3, new byte[] {(byte) x, (byte) y});
        b.route(2, 1, new byte[] {(byte) y, (byte) mx});
        b.route(3, 0, new byte[] {(byte) mx, (byte) my});
        b.route(1, 2, new byte[] {(byte) my, (byte) x});
        for (int i = 0; i < 4; i++) {
            for (int j = 0; j < 4; j++) {
                if (i != j && !(i == 0 && j == 3 || i == 2 && j == 1 || i == 3 && j == 0 || i == 1 && j == 2)) {
                    b.route(i, j, new byte[] {(byte) (t.next(t.channel(nodes[i], x)) == nodes[j] ? x : t.next(t.channel(nodes[i], y)) == nodes[j] ? y
                            : t.next(t.channel(nodes[i], mx)) == nodes[j] ? mx : my)});
                }
            }
        }
        SourceRouteAnalysis.Report a = SourceRouteAnalysis.analyze(b.build("hand-made"));
        assertFalse(a.deadlockFree());
        assertEquals(4, a.cycle().size(), a.cycle().toString());
    }

    @Test
    void bfsRoutesAroundAFailedLinkAndIsDeterministic() {
        Fabric f = Topologies.generate("torus:4x4,hosts=0");
        FabricBuilder b = FabricBuilder.copyOf(f);
        b.unlink(f.nodeByName("T1_1").orElseThrow(), 1); // T1_1 +X -> T2_1
        Torus t = Torus.of(b.build());
        RoutingGraph g = RoutingGraph.withDeadlockFreeTurns(t);
        SourceRoutes r = TorusEngines.create("torus-bfs").route(g, all(t), 1);
        SourceRouteAnalysis.Report a = SourceRouteAnalysis.analyze(r);
        assertEquals(0, a.loads()[t.channel(5, 0)], "nothing crosses the failed link");
        assertEquals(0, a.unroutablePairs(), "FS/LS steps reach around one failed link on a 4x4 torus");
        assertTrue(a.deadlockFree(), a.cycle().toString());
        assertTrue(r.length(5, 9) > 1, "T1_1 to T2_1 without its direct link: " + r.describe(5, 9));
        SourceRoutes again = TorusEngines.create("torus-bfs").route(g, all(t), 1);
        for (int i = 0; i < r.size(); i++) {
            for (int j = 0; j < r.size(); j++) {
                assertEquals(r.describe(i, j), again.describe(i, j));
            }
        }
    }

    @ParameterizedTest
    @CsvSource({"torus-bfs", "torus-sssp", "torus-genetic"})
    void routesAroundAFailedNode(String engine) {
        // T1_1 of a 5x5 torus is gone, its hosts with it: the others are routed around the hole
        Fabric full = Topologies.generate("torus:5x5,hosts=1");
        int gone = full.nodeByName("T1_1").orElseThrow();
        Fabric f = FabricBuilder.copyWithout(full, n -> n == gone || !full.isSwitch(n) && full.peerNode(full.globalPort(n, 1)) == gone).build();
        SourceRoutes r = TorusEngines.route(f, engine, null, 1);
        Torus t = r.torus();
        assertEquals(25, t.nodes(), "the torus keeps its places");
        assertFalse(t.present(6));
        assertEquals("T1_1 (failed: no switch)", t.name(6));
        assertEquals(24, r.size(), "the present switches are routed");
        SourceRouteAnalysis.Report a = SourceRouteAnalysis.analyze(r);
        assertEquals(0, a.unroutablePairs(), "FS/LS steps reach around one failed node on a 5x5 torus");
        assertTrue(a.deadlockFree(), a.cycle().toString());
        // T0_1 to T2_1 had one shortest route, +X+X through T1_1: now the long way round the ring
        int from = r.indexOf(1);
        int to = r.indexOf(11);
        assertEquals("-X-X-X", r.describe(from, to));
    }

    @Test
    void aTorusMostlyMissingIsRefusedWithTheReason() {
        Fabric full = Topologies.generate("torus:3x3,hosts=0");
        // T0_0, T1_1 and T2_2 span the 3x3 places: 6 of 9 missing
        Fabric f = FabricBuilder.copyWithout(full, n -> !Set.of("T0_0", "T1_1", "T2_2").contains(full.name(n))).build();
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Torus.of(f));
        assertTrue(e.getMessage().contains("more than half the torus missing"), e.getMessage());
    }

    @Test
    void pairsTheRulesCannotRouteAreReportedNotHidden() {
        // cut T0 off on a 1D ring except towards +X: -X from T1 back to T0 is the only way in... cut that too
        Fabric f = Topologies.generate("torus:5,hosts=0");
        FabricBuilder b = FabricBuilder.copyOf(f);
        b.unlink(f.nodeByName("T0").orElseThrow(), 2); // T0 -X (T4 +X)
        Torus t = Torus.of(b.build());
        SourceRoutes r = TorusEngines.create("torus-bfs").route(RoutingGraph.withDeadlockFreeTurns(t), all(t), 1);
        SourceRouteAnalysis.Report a = SourceRouteAnalysis.analyze(r);
        // on a broken ring every pair is still reachable one way round (a single direction needs no turn)
        assertEquals(0, a.unroutablePairs());
        b.unlink(f.nodeByName("T2").orElseThrow(), 1); // and T2 +X: the ring is in two pieces
        t = Torus.of(b.build());
        a = SourceRouteAnalysis.analyze(TorusEngines.create("torus-bfs").route(RoutingGraph.withDeadlockFreeTurns(t), all(t), 1));
        assertEquals(2 * 2 * 3, a.unroutablePairs(), "T0..T2 and T3..T4 cannot reach each other");
    }
}
