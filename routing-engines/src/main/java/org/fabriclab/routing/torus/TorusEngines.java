package org.fabriclab.routing.torus;

import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.fabriclab.routing.fabric.Fabric;

/** The torus engines by name. */
public final class TorusEngines {
    private static final Map<String, Supplier<TorusEngine>> ENGINES = Map.of(TorusBfsEngine.NAME, TorusBfsEngine::new,
            TorusSsspEngine.NAME, TorusSsspEngine::new, TorusGeneticEngine.NAME, TorusGeneticEngine::new);

    private TorusEngines() {
    }

    /** True if {@code name} is a torus engine. */
    public static boolean isTorusEngine(String name) {
        return ENGINES.containsKey(name);
    }

    /** @throws IllegalArgumentException naming the torus engines */
    public static TorusEngine create(String name) {
        Supplier<TorusEngine> s = ENGINES.get(name);
        if (s == null) {
            throw new IllegalArgumentException("unknown torus engine '" + name + "'; known: " + String.join(", ", names()));
        }
        return s.get();
    }

    public static List<String> names() {
        return ENGINES.keySet().stream().sorted().toList();
    }

    /**
     * Routes among the switches of {@code endpoints} (the hosts of a job; all switches when null)
     * on {@code fabric}'s torus, in the routing graph with the deadlock-free turns of section 3.2.
     *
     * @throws IllegalArgumentException if the fabric is no torus (the reason named) or the engine is unknown
     */
    public static SourceRoutes route(Fabric fabric, String engine, BitSet endpoints, long seed) {
        return route(fabric, Map.of(), engine, endpoints, seed);
    }

    /** The same, with switch coordinates from a coordinates file (by switch name) before the fabric's own. */
    public static SourceRoutes route(Fabric fabric, Map<String, int[]> coordinates, String engine,
                                     BitSet endpoints, long seed) {
        TorusEngine e = create(engine);
        Torus t = Torus.of(fabric, coordinates);
        int[] nodes;
        if (endpoints == null) {
            nodes = IntStream.range(0, t.nodes()).filter(t::present).toArray(); // not the failed nodes
        } else {
            nodes = endpoints.stream().map(x -> t.torusNode(fabric.endpointSwitch(x))).filter(u -> u >= 0).distinct().sorted().toArray();
        }
        return e.route(RoutingGraph.withDeadlockFreeTurns(t), nodes, seed);
    }
}
