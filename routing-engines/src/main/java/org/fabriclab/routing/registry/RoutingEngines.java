package org.fabriclab.routing.registry;

import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.engine.EngineGuarantees;
import org.fabriclab.routing.engine.RoutingEngine;
import org.fabriclab.routing.engine.ar.AdaptiveEngines;
import org.fabriclab.routing.engine.dragonfly.DragonflyEngine;
import org.fabriclab.routing.engine.file.FileEngine;
import org.fabriclab.routing.engine.minhop.MinHopEngine;
import org.fabriclab.routing.engine.torus.TorusRoutingEngine;
import org.fabriclab.routing.engine.updn.UpDownEngine;
import org.fabriclab.routing.text.Excerpt;
import org.fabriclab.routing.torus.TorusBfsEngine;
import org.fabriclab.routing.torus.TorusGeneticEngine;
import org.fabriclab.routing.torus.TorusSsspEngine;

/** The registry of routing engines: every engine by its key, in one list. */
public final class RoutingEngines {
    /** An engine's key, what it does, and how to make one. */
    public record Info(String name, String description, Supplier<RoutingEngine> factory) {
        /** What the engine promises (see {@link RoutingEngine#guarantees()}). */
        public EngineGuarantees guarantees() {
            return factory.get().guarantees();
        }
    }

    private static final List<Info> ENGINES = List.of(
            new Info(MinHopEngine.NAME, "least hops; equal-cost ports balanced by routes per channel", MinHopEngine::new),
            new Info(UpDownEngine.NAME, "up*/down* from root switches; deadlock-free with one lane", UpDownEngine::new),
            new Info(FileEngine.NAME, "replays an OpenSM opensm-lfts.dump (--lfts FILE)", FileEngine::new),
            new Info(AdaptiveEngines.Lag.NAME, "minhop LFT + adaptive-routing groups of parallel links (AR LAG)", AdaptiveEngines.Lag::new),
            new Info(AdaptiveEngines.Tree.NAME, "minhop LFT + adaptive-routing groups of all least-hop ports, fat trees (AR TREE)",
                    AdaptiveEngines.Tree::new),
            new Info(TorusBfsEngine.NAME, "Angara source routes (torus): breadth-first search of the routing graph",
                    () -> new TorusRoutingEngine(TorusBfsEngine.NAME)),
            new Info(TorusSsspEngine.NAME, "Angara source routes (torus): unique routes, then weighted shortest paths",
                    () -> new TorusRoutingEngine(TorusSsspEngine.NAME)),
            new Info(TorusGeneticEngine.NAME, "Angara source routes (torus): genetic search, seeded (slow)",
                    () -> new TorusRoutingEngine(TorusGeneticEngine.NAME)),
            new Info(AdaptiveEngines.DragonflyPlus.NAME, "minhop LFT + adaptive-routing groups on Dragonfly+: minimal ports and detours "
                    + "through an intermediate group (on lane 1), deadlock freedom proven on their channel dependencies (AR DFP)",
                    AdaptiveEngines.DragonflyPlus::new),
            new Info(AdaptiveEngines.DragonflyPlus.MINIMAL, "ar-dfp without the detours: the minimal ports only, to compare",
                    () -> new AdaptiveEngines.DragonflyPlus(false)),
            dragonfly(DragonflyAlgorithm.MIN), dragonfly(DragonflyAlgorithm.VALG), dragonfly(DragonflyAlgorithm.VALN),
            dragonfly(DragonflyAlgorithm.UGALG), dragonfly(DragonflyAlgorithm.UGALN), dragonfly(DragonflyAlgorithm.PAR),
            dragonfly(DragonflyAlgorithm.Q_ADAPTIVE));

    private static Info dragonfly(DragonflyAlgorithm a) {
        return new Info(a.key(), a.description(), () -> new DragonflyEngine(a));
    }

    private RoutingEngines() {
    }

    public static List<Info> all() {
        return ENGINES;
    }

    /**
     * A new engine by key.
     *
     * @throws IllegalArgumentException naming the known engines if there is none by that key
     */
    public static RoutingEngine create(String name) {
        for (Info i : ENGINES) {
            if (i.name().equals(name)) {
                return i.factory().get();
            }
        }
        throw new IllegalArgumentException("unknown routing engine '" + Excerpt.bare(name) + "'; known engines: "
                + ENGINES.stream().map(Info::name).collect(Collectors.joining(", ")));
    }
}
