package org.fabriclab.routing.engine;

import java.util.Map;

/**
 * A unicast routing engine, in the manner of OpenSM's {@code osm_routing_engine}: an engine
 * implements the phases it changes and takes the defaults for the rest. Here the phases are
 * computing the forwarding tables (required) and choosing a virtual lane per path (returned with
 * the tables through {@link ForwardingTables.Builder#lanes}, single-lane by default).
 *
 * <p>Engines are pure functions of their request: no I/O, no clock, no static state, randomness
 * only from {@link RoutingOptions#seed()}; the same request gives the same tables. A fabric an
 * engine cannot route is a {@link RoutingException} with the reason, so that a chain can fall back.
 */
public interface RoutingEngine {
    /** The key the engine is configured by ({@code minhop}, {@code updn}, ...), as OpenSM names it. */
    String name();

    /**
     * What the engine promises about its tables (deadlock freedom, the lanes they need, source
     * routes); {@link EngineGuarantees#NONE} unless the engine says more. The daemon validates
     * the tables against it before any switch is written.
     */
    default EngineGuarantees guarantees() {
        return EngineGuarantees.NONE;
    }

    /**
     * The engine-specific parameters it reads from {@link RoutingOptions#params()}, by name, with
     * their defaults as text; the command lines refuse any other name given for this engine. None
     * by default.
     */
    default Map<String, String> parameters() {
        return Map.of();
    }

    /**
     * Checks the values of the parameters in {@code params} that this engine reads (other names
     * are left alone), so that a command line refuses a bad value before it starts anything
     * rather than when it first routes. Nothing to check by default.
     *
     * @throws IllegalArgumentException naming the parameter, its value and what it may be
     */
    default void checkParameters(Map<String, String> params) {
    }

    /** Computes the forwarding tables of every switch for every LID. */
    ForwardingTables route(RoutingRequest request) throws RoutingException;
}
