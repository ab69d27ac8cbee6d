package org.fabriclab.routing.torus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricBuilder;
import org.fabriclab.routing.fabric.NodeSet;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The walks torus-sssp takes instead of searching the whole routing graph: they find exactly the
 * distinct shortest routes the graph allows (checked against the graph's own breadth-first
 * levels), kept per offset where the torus is uniform and walked per pair where it is not; and
 * the engine built on them routes as the paper's searches do.
 */
class MinimalRoutesTest {
    private static Torus torus(String spec) {
        if (spec.endsWith("-failed")) {
            Fabric f = Topologies.generate(spec.substring(0, spec.length() - "-failed".length()) + ",hosts=0");
            FabricBuilder b = FabricBuilder.copyOf(f);
            b.unlink(f.nodeByName("T1_1_1").orElseThrow(), 1); // T1_1_1 +X
            return Torus.of(b.build());
        }
        return Torus.of(Topologies.generate(spec));
    }

    private static Set<String> names(Torus t, List<byte[]> routes) {
        Set<String> out = new TreeSet<>();
        for (byte[] r : routes) {
            StringBuilder sb = new StringBuilder();
            for (byte d : r) {
                sb.append(t.directionName(d));
            }
            out.add(sb.toString());
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"torus:5", "torus:4x4", "torus:3x4x5", "torus:4x4x4", "paper:angara-desmos", "torus:3x3x2x3", "torus:4x4x4-failed"})
    void walksFindExactlyTheGraphsDistinctShortestRoutes(String spec) {
        Torus t = torus(spec);
        RoutingGraph g = RoutingGraph.withDeadlockFreeTurns(t);
        MinimalRoutes walk = new MinimalRoutes(g);
        ShortestRoutes shortest = new ShortestRoutes(g);
        int checked = 0;
        for (int u = 0; u < t.nodes(); u++) {
            shortest.from(g.begin(u));
            for (int v = 0; v < t.nodes(); v++) {
                if (u == v) {
                    continue;
                }
                int c = walk.routes(u, v, MinimalRoutes.MAX_ROUTES);
                List<byte[]> found = new ArrayList<>();
                for (int r = 0; r < Math.max(c, 0); r++) {
                    found.add(Arrays.copyOfRange(walk.directions(), walk.start(r), walk.start(r) + walk.hops()));
                }
                int torusDistance = walk.hops();
                boolean minimalExists = shortest.hops(g.end(v)) == torusDistance;
                if (!minimalExists) {
                    assertEquals(0, c, spec + ": no route as short as the torus allows from " + t.name(u) + " to " + t.name(v));
                    continue;
                }
                assertEquals(names(t, shortest.routes(g.end(v), 1000)), names(t, found), spec + " " + t.name(u) + " -> " + t.name(v));
                checked++;
            }
        }
        assertTrue(checked > 0);
    }

    @Test
    void aUniformTorusKeepsRoutesPerOffsetAndOthersAreWalkedPerPair() {
        assertTrue(new MinimalRoutes(RoutingGraph.withDeadlockFreeTurns(torus("torus:4x5x3"))).perOffset());
        // a size-2 dimension's single link leaves its two ends unlike; a failed link leaves its ends unlike the rest
        assertTrue(!new MinimalRoutes(RoutingGraph.withDeadlockFreeTurns(torus("paper:angara-desmos"))).perOffset());
        assertTrue(!new MinimalRoutes(RoutingGraph.withDeadlockFreeTurns(torus("torus:4x4x4-failed"))).perOffset());
    }

    /**
     * The engine with walks against the paper's own procedure (a search of the whole routing graph
     * for every group): every pair gets a route of the same length, and the balance is the same
     * up to the ties between equally light routes, which each breaks its own way.
     */
    @ParameterizedTest
    @ValueSource(strings = {"torus:4x4", "torus:8x8", "torus:3x4x5", "torus:4x4x4", "torus:6x6x6", "paper:angara-desmos", "torus:3x3x2x3",
        "torus:4x4x4-failed", "torus:3x3x3x3"})
    void walksRouteAsThePapersSearchesDo(String spec) {
        Torus t = torus(spec);
        RoutingGraph g = RoutingGraph.withDeadlockFreeTurns(t);
        int[] nodes = IntStream.range(0, t.nodes()).toArray();
        SourceRoutes walked = new TorusSsspEngine().route(g, nodes, false);
        SourceRoutes searched = new TorusSsspEngine().route(g, nodes, true);
        for (int i = 0; i < nodes.length; i++) {
            for (int j = 0; j < nodes.length; j++) {
                assertEquals(searched.length(i, j), walked.length(i, j), spec + " " + walked.describe(i, j) + " vs " + searched.describe(i, j));
            }
        }
        SourceRouteAnalysis.Report w = SourceRouteAnalysis.analyze(walked);
        SourceRouteAnalysis.Report s = SourceRouteAnalysis.analyze(searched);
        assertTrue(w.deadlockFree(), w.cycle().toString());
        assertTrue(w.maxLoad() <= s.maxLoad() + 1, spec + ": edge-forwarding index " + w.maxLoad() + " against the searches' " + s.maxLoad());
        assertTrue(w.sigma4() <= s.sigma4() * 1.1 + 0.05, spec + ": sigma4 " + w.sigma4() + " against the searches' " + s.sigma4());
    }

    @Test
    void aJobsNodeSetIsWalkedPairByPair() {
        Fabric f = Topologies.generate("torus:4x4x4");
        Torus t = Torus.of(f);
        RoutingGraph g = RoutingGraph.withDeadlockFreeTurns(t);
        int[] nodes = NodeSet.parse(f, "H[0-3]_[0-1]_[1-2]_0").stream().map(h -> t.torusNode(f.endpointSwitch(h))).sorted().toArray();
        SourceRoutes walked = new TorusSsspEngine().route(g, nodes, false);
        SourceRoutes searched = new TorusSsspEngine().route(g, nodes, true);
        SourceRouteAnalysis.Report w = SourceRouteAnalysis.analyze(walked);
        SourceRouteAnalysis.Report s = SourceRouteAnalysis.analyze(searched);
        assertEquals(16, walked.size());
        assertEquals(0, w.unroutablePairs());
        assertTrue(w.maxLoad() <= s.maxLoad() + 1, w.maxLoad() + " vs " + s.maxLoad());
    }

    @Test
    void aBuilderRefusesAPairLeftWithoutARouteAndARouteTooLong() {
        Torus t = torus("torus:4x4");
        SourceRoutes.Builder b = new SourceRoutes.Builder(t, new int[] {0, 1});
        b.route(0, 1, new byte[] {0});
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> b.build("test"));
        assertTrue(e.getMessage().contains(t.name(1) + " -> " + t.name(0) + " without a route"), e.getMessage());
        SourceRoutes.Builder shared = new SourceRoutes.Builder(t, new int[] {0, 1, 2});
        int at = shared.keep(new byte[] {0}, 0, 1);
        shared.routeAt(0, 1, at, 1).routeAt(1, 2, at, 1).route(0, 2, new byte[] {0, 0}).route(1, 0, new byte[] {2}).route(2, 0, new byte[] {2, 2})
                .route(2, 1, new byte[] {2});
        SourceRoutes r = shared.build("test");
        assertEquals("+X", r.describe(0, 1));
        assertEquals("+X", r.describe(1, 2));
        assertEquals("-X-X", r.describe(2, 0));
        assertThrows(IllegalArgumentException.class, () -> shared.route(0, 1, new byte[SourceRoutes.MAX_HOPS + 1]));
    }
}
