package org.fabriclab.routing.engine.minhop;

import org.fabriclab.routing.engine.BalancedRouter;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingEngine;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.SwitchGraph;

/**
 * OpenSM's {@code minhop}: every route takes the least number of hops; among a switch's
 * equal-cost ports, a destination goes over the port that already carries the fewest routes
 * ({@link BalancedRouter}). Routes any connected fabric; makes no promise about deadlock freedom
 * (on a torus its channel dependency graph has cycles). The fallback of every engine chain.
 */
public final class MinHopEngine implements RoutingEngine {
    public static final String NAME = "minhop";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public ForwardingTables route(RoutingRequest request) {
        SwitchGraph graph = new SwitchGraph(request.fabric());
        int[] queue = new int[graph.switchCount()];
        BalancedRouter router = new BalancedRouter(graph, request.lids(), request.options());
        ForwardingTables.Builder out = ForwardingTables.builder(request.fabric(), request.lids());
        router.route(new BalancedRouter.Policy() {
            @Override
            public void distances(int destination, int[] dist) {
                graph.bfs(destination, dist, queue);
            }

            @Override
            public boolean allowed(int s, int i) {
                return true;
            }
        }, out);
        return out.build(NAME);
    }
}
