package org.fabriclab.routing.torus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.BitSet;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricBuilder;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The routing graph against the Angara rules written out another way: a route is an optional
 * first positive step, then runs of steps direction by direction in the order +X+Y+Z+K-X-Y-Z-K
 * never using both signs of a dimension (counts per direction), then an optional last negative
 * step after a higher one; the first step's direction below the runs' first, the last step's
 * above the runs' last. Theorem 1: v is reachable from u by such a route exactly when end(v) is
 * reachable from begin(u) in the graph.
 */
class RoutingGraphTest {
    @ParameterizedTest
    @ValueSource(strings = {"torus:5", "torus:3x3", "torus:4x3", "torus:3x2x4", "torus:2x2x2", "paper:angara-desmos", "torus:3x3x3x2"})
    void theoremOneReachabilityByGraphEqualsReachabilityByRules(String spec) {
        theoremOne(Torus.of(Topologies.generate(spec)));
    }

    @Test
    void theoremOneHoldsWithFailedLinks() {
        Fabric f = Topologies.generate("torus:4x4x3,hosts=0");
        FabricBuilder b = FabricBuilder.copyOf(f);
        // take out two links: T0_0_0 +X and T1_2_1 +Z
        b.unlink(f.nodeByName("T0_0_0").orElseThrow(), 1);
        b.unlink(f.nodeByName("T1_2_1").orElseThrow(), 5);
        Torus t = Torus.of(b.build());
        assertEquals(-1, t.next(t.channel(0, 0)), "the failed link is no channel");
        theoremOne(t);
    }

    @Test
    void theGraphHasThePapersVertexCountPerNode() {
        for (int n = 1; n <= 4; n++) {
            String dims = "3x3x3x3".substring(0, 2 * n - 1);
            RoutingGraph g = RoutingGraph.of(Torus.of(Topologies.generate("torus:" + dims)));
            assertEquals(RoutingGraph.pow3(n) + 2 * n + 1, g.perNode());
        }
    }

    @Test
    void aFabricThatIsNoTorusIsRefusedWithTheReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Torus.of(Topologies.generate("fat-tree:k=4,levels=2")));
        assertTrue(e.getMessage().contains("no torus coordinates"), e.getMessage());
        Fabric f = Topologies.generate("torus:4x4,hosts=0");
        FabricBuilder b = FabricBuilder.copyOf(f);
        b.unlink(f.nodeByName("T0_0").orElseThrow(), 1);
        b.unlink(f.nodeByName("T2_2").orElseThrow(), 1);
        b.link(f.nodeByName("T0_0").orElseThrow(), 1, f.nodeByName("T2_2").orElseThrow(), 1);
        e = assertThrows(IllegalArgumentException.class, () -> Torus.of(b.build()));
        assertTrue(e.getMessage().contains("T0_0[1] -> T2_2") && e.getMessage().contains("not torus neighbours"), e.getMessage());
    }

    private static void theoremOne(Torus t) {
        RoutingGraph g = RoutingGraph.of(t);
        for (int u = 0; u < t.nodes(); u++) {
            BitSet byGraph = reachableInGraph(g, u);
            BitSet byRules = reachableByRules(t, u);
            assertEquals(byRules, byGraph, "from " + t.name(u) + ": nodes reachable by the rules vs by the routing graph");
        }
    }

    private static BitSet reachableInGraph(RoutingGraph g, int u) {
        boolean[] seen = new boolean[g.vertexCount()];
        ArrayDeque<Integer> q = new ArrayDeque<>();
        q.add(g.begin(u));
        seen[g.begin(u)] = true;
        BitSet out = new BitSet();
        while (!q.isEmpty()) {
            int v = q.poll();
            if (v == g.end(g.node(v))) {
                out.set(g.node(v));
            }
            for (int e = g.firstEdge(v); e < g.firstEdge(v + 1); e++) {
                int w = g.edgeTarget(e);
                if (!seen[w]) {
                    seen[w] = true;
                    q.add(w);
                }
            }
        }
        return out;
    }

    /** Every route the rules allow from u, by counts of steps per direction, walked link by link. */
    private static BitSet reachableByRules(Torus t, int u) {
        int n = t.dimensions();
        BitSet out = new BitSet();
        out.set(u); // the empty route
        int[] counts = new int[2 * n];
        enumerate(t, u, 0, counts, out);
        return out;
    }

    /** Chooses the count of direction d's run (0 if the other sign of its dimension has steps), then the next. */
    private static void enumerate(Torus t, int u, int d, int[] counts, BitSet out) {
        int n = t.dimensions();
        if (d == 2 * n) {
            for (int fs = -1; fs < n; fs++) {
                for (int ls = -1; ls < 2 * n; ls++) {
                    if (ls >= 0 && ls < n) {
                        continue;
                    }
                    walk(t, u, counts, fs, ls, out);
                }
            }
            return;
        }
        int opposite = d < n ? d + n : d - n;
        // a run as long as its ring comes back where it began: longer runs reach nothing new
        int max = d >= n && counts[opposite] > 0 ? 0 : t.size(d % n) - 1;
        for (int c = 0; c <= max; c++) {
            counts[d] = c;
            enumerate(t, u, d + 1, counts, out);
        }
        counts[d] = 0;
    }

    private static void walk(Torus t, int u, int[] counts, int fs, int ls, BitSet out) {
        int first = -1;
        int last = -1;
        for (int d = 0; d < counts.length; d++) {
            if (counts[d] > 0) {
                first = first < 0 ? d : first;
                last = d;
            }
        }
        if (fs >= 0 && first >= 0 && first <= fs) {
            return; // the runs after a first step must begin above it
        }
        if (ls >= 0 && (last < 0 || ls <= last)) {
            return; // a last step follows a run and lies above it
        }
        int at = u;
        if (fs >= 0) {
            at = t.next(t.channel(at, fs));
        }
        for (int d = 0; d < counts.length && at >= 0; d++) {
            for (int i = 0; i < counts[d] && at >= 0; i++) {
                at = t.next(t.channel(at, d));
            }
        }
        if (at >= 0 && ls >= 0) {
            at = t.next(t.channel(at, ls));
        }
        if (at >= 0) {
            out.set(at);
        }
    }
}
