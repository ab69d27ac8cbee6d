package org.fabriclab.routing.engine.torus;

import org.fabriclab.routing.engine.EngineGuarantees;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingEngine;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.minhop.MinHopEngine;
import org.fabriclab.routing.torus.SourceRoutes;
import org.fabriclab.routing.torus.TorusEngines;

/**
 * A torus engine in the engine framework, for the daemon and the simulator: minhop's LFTs (each
 * switch delivers to its own hosts by them) carrying the engine's source routes among the
 * switches of the request's endpoints (all switches without a node set), which hosts write into
 * their packets. A fabric that is no torus is refused with the reason (a chain then falls back).
 */
public final class TorusRoutingEngine implements RoutingEngine {
    private final String name;

    public TorusRoutingEngine(String name) {
        TorusEngines.create(name); // refuses an unknown name
        this.name = name;
    }

    @Override
    public String name() {
        return name;
    }

    /** Angara's source routes keep to its turn rules, deadlock-free on one lane (checked on the routes' channel dependencies). */
    @Override
    public EngineGuarantees guarantees() {
        return new EngineGuarantees(true, 1, true);
    }

    @Override
    public ForwardingTables route(RoutingRequest request) throws RoutingException {
        SourceRoutes routes;
        try {
            routes = TorusEngines.route(request.fabric(), name, request.options().endpoints().orElse(null), request.options().seed());
        } catch (IllegalArgumentException e) {
            throw new RoutingException(name, e.getMessage());
        }
        if (routes.unroutableCount() > 0) {
            throw new RoutingException(name, routes.unroutableCount() + " pairs of switches have no route the Angara rules allow with the "
                    + "links there are");
        }
        return new MinHopEngine().route(request).withSourceRoutes(routes, name);
    }
}
