package org.fabriclab.routing.torus;

/**
 * An engine of the Angara paper: source routes among a set of torus nodes, searched in the
 * routing graph (so every route keeps the Angara rules).
 */
public interface TorusEngine {
    String name();

    /**
     * Routes every ordered pair of {@code nodes} (torus nodes). Randomised engines draw from
     * {@code seed}; the same seed gives the same routes.
     */
    SourceRoutes route(RoutingGraph graph, int[] nodes, long seed);
}
