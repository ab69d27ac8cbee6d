package org.fabriclab.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.fabriclab.routing.analysis.Connectivity;
import org.fabriclab.routing.analysis.PathTracer;
import org.fabriclab.routing.analysis.RouteAnalyzer;
import org.fabriclab.routing.analysis.RouteReport;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.SwitchGraph;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.lid.LidAssignment;
import org.fabriclab.routing.registry.RoutingEngines;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Properties every engine must have on generated fabrics, intact and with random links removed:
 * every connected pair routed, no loops, minimal routes for minhop (cross-checked against BFS),
 * an acyclic channel dependency graph for updn, and the same tables for the same request.
 */
class EnginePropertiesTest {
    private static final List<String> TOPOLOGIES = List.of(
            "fat-tree:k=4,levels=3", "xgft:m=3x4,w=1x3", "rlft:leaves=5,spines=3,hosts=2,parallel=2",
            "torus:4x4,hosts=2", "torus:3x3x3", "torus:4x2x2x2", "mesh:4x3,hosts=2",
            "dragonfly:p=2,a=4,h=2", "dragonfly-plus:p=2,leaves=3,spines=2,h=2",
            "random:switches=16,degree=4,hosts=2,seed=1", "random:switches=24,degree=5,hosts=1,seed=7",
            "paper:ib-ar-c1", "paper:ib-ar-c2");

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (String engine : List.of("minhop", "updn")) {
            for (String t : TOPOLOGIES) {
                out.add(Arguments.of(engine, t, 0));
                out.add(Arguments.of(engine, t, 3));
            }
        }
        return out.stream();
    }

    @ParameterizedTest(name = "{0} on {1} minus {2} links")
    @MethodSource("cases")
    void routesEveryConnectedPairWithoutLoops(String engine, String topology, int removed) throws RoutingException {
        long seed = topology.hashCode() * 31L + removed;
        Fabric f = withoutRandomLinks(Topologies.generate(topology), removed, seed);
        LidAssignment lids = LidAssigner.assign(f);
        RoutingRequest req = new RoutingRequest(f, lids, RoutingOptions.DEFAULTS);
        ForwardingTables t;
        try {
            t = RoutingEngines.create(engine).route(req);
        } catch (RoutingException e) {
            // up/down may legitimately refuse a damaged fabric; it must say so, never return bad tables
            assertTrue(engine.equals("updn") && removed > 0, "unexpected failure (seed " + seed + "): " + e.getMessage());
            return;
        }
        RouteReport r = RouteAnalyzer.analyze(t);
        String where = engine + " on " + f + " (seed " + seed + ")";
        assertEquals(disconnectedPairs(f), r.unreachablePairs(), "unreachable pairs " + r.unreachableExamples() + " " + where);
        assertEquals(disconnectedPairs(f), Connectivity.disconnectedPairs(f), where);
        assertFalse(r.unreachableReasons().containsKey("routing loop"), where);
        if (engine.equals("updn")) {
            assertTrue(r.deadlockFree(), "updn must have an acyclic CDG: " + r.cdgCycle() + " " + where);
        }
        if (engine.equals("minhop")) {
            assertEquals(0, r.nonMinimalPairs(), where);
            crossCheckHopsAgainstBfs(t, seed);
        }
        ForwardingTables again = RoutingEngines.create(engine).route(req);
        assertTrue(t.sameEntries(again), "same request must give the same tables: " + where);
    }

    /** Every traced minhop route is as long as the plain BFS distance between its switches. */
    private static void crossCheckHopsAgainstBfs(ForwardingTables t, long seed) {
        Fabric f = t.fabric();
        SwitchGraph g = new SwitchGraph(f);
        int[] dist = new int[g.switchCount()];
        int[] queue = new int[g.switchCount()];
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int k = 0; k < 200; k++) {
            int src = rnd.nextInt(f.endpointCount());
            int dst = rnd.nextInt(f.endpointCount());
            if (src == dst) {
                continue;
            }
            g.bfs(f.switchIndex(f.endpointSwitch(dst)), dist, queue);
            int d = dist[f.switchIndex(f.endpointSwitch(src))];
            PathTracer.Path p = PathTracer.trace(t, src, dst);
            if (d == SwitchGraph.UNREACHABLE) {
                assertFalse(p.delivered());
            } else {
                assertTrue(p.delivered(), p.failure());
                assertEquals(d + 1, p.hops().size() - 1, "switch hops of " + f.endpointName(src) + " -> " + f.endpointName(dst));
            }
        }
    }

    static Fabric withoutRandomLinks(Fabric f, int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Integer> isl = new ArrayList<>();
        for (int gp = 0; gp < f.globalPortCount(); gp++) {
            if (f.isInterSwitch(gp) && f.peerGlobalPort(gp) > gp) {
                isl.add(gp);
            }
        }
        int[] remove = new int[Math.min(count, isl.size())];
        for (int i = 0; i < remove.length; i++) {
            remove[i] = isl.remove(rnd.nextInt(isl.size()));
        }
        return f.withoutLinks(remove);
    }

    static long disconnectedPairs(Fabric f) {
        SwitchGraph g = new SwitchGraph(f);
        int[] comp = new int[g.switchCount()];
        Arrays.fill(comp, -1);
        int[] dist = new int[g.switchCount()];
        int[] queue = new int[g.switchCount()];
        int c = 0;
        for (int s = 0; s < g.switchCount(); s++) {
            if (comp[s] < 0) {
                g.bfs(s, dist, queue);
                for (int x = 0; x < dist.length; x++) {
                    if (dist[x] != SwitchGraph.UNREACHABLE) {
                        comp[x] = c;
                    }
                }
                c++;
            }
        }
        long[] hostsIn = new long[c];
        for (int e = 0; e < f.endpointCount(); e++) {
            hostsIn[comp[f.switchIndex(f.endpointSwitch(e))]]++;
        }
        long n = f.endpointCount();
        long connected = 0;
        for (long h : hostsIn) {
            connected += h * (h - 1);
        }
        return n * (n - 1) - connected;
    }
}
