package org.fabriclab.routing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fabriclab.routing.analysis.RouteAnalyzer;
import org.fabriclab.routing.analysis.RouteReport;
import org.fabriclab.routing.graph.ChannelDependencyGraph;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.RoutingEngines;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/** The CDG check is iterative and handles a million channels; cycles are found and reported. */
class ChannelDependencyGraphTest {
    private static final int MILLION = 1_000_000;

    @Test
    void millionChannelChainIsAcyclicAndRingIsNot() {
        ChannelDependencyGraph.Builder chain = ChannelDependencyGraph.builder(MILLION);
        ChannelDependencyGraph.Builder ring = ChannelDependencyGraph.builder(MILLION);
        for (int c = 0; c + 1 < MILLION; c++) {
            chain.add(c, c + 1);
            ring.add(c, c + 1);
        }
        ring.add(MILLION - 1, 0);
        ChannelDependencyGraph acyclic = chain.build();
        assertTrue(acyclic.isAcyclic());
        assertTrue(acyclic.findCycle().isEmpty());
        ChannelDependencyGraph cyclic = ring.build();
        assertFalse(cyclic.isAcyclic());
        assertEquals(MILLION, cyclic.findCycle().orElseThrow().length);
    }

    @Test
    void witnessCycleFollowsDependencies() {
        ChannelDependencyGraph g = ChannelDependencyGraph.builder(6)
                .add(0, 1).add(1, 2).add(2, 3).add(3, 1).add(3, 4).add(4, 5).add(2, 3).build();
        assertEquals(6, g.dependencyCount());
        int[] cycle = g.findCycle().orElseThrow();
        assertEquals(3, cycle.length);
        int start = cycle[0] == 1 ? 0 : cycle[1] == 1 ? 1 : 2;
        assertArrayEquals(new int[] {1, 2, 3}, new int[] {cycle[start], cycle[(start + 1) % 3], cycle[(start + 2) % 3]});
    }

    @Test
    void minhopOnARingHasACycleAndUpDownHasNone() throws Exception {
        Fabric ring = Topologies.generate("torus:6,hosts=1");
        RoutingRequest req = new RoutingRequest(ring, LidAssigner.assign(ring), RoutingOptions.DEFAULTS);
        RouteReport minhop = RouteAnalyzer.analyze(RoutingEngines.create("minhop").route(req));
        assertFalse(minhop.deadlockFree(), "shortest paths around a ring of 6 close a dependency cycle");
        assertFalse(minhop.cdgCycle().isEmpty());
        RouteReport updn = RouteAnalyzer.analyze(RoutingEngines.create("updn").route(req));
        assertTrue(updn.deadlockFree());
        assertEquals(0, updn.unreachablePairs());
    }
}
