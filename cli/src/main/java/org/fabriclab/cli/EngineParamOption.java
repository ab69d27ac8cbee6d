package org.fabriclab.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.registry.RoutingEngines;
import picocli.CommandLine.Option;

/**
 * {@code --engine-param NAME=VALUE}, repeatable: a parameter of an engine of the chain (the
 * Dragonfly engines' {@code alpha}, {@code ugal_threshold}, ...), in every main that routes. A
 * name no engine of the chain reads is refused before anything starts ({@link #checked}), naming
 * the ones they do read, and so is a value an engine would refuse when it routes.
 */
public final class EngineParamOption {
    @Option(names = "--engine-param", paramLabel = "NAME=VALUE",
            description = "A parameter of an engine of the chain, repeatable (q-adaptive's alpha=0.3, df-ugalg's ugal_threshold=2; "
                    + "'fabricctl engines' lists each engine's with its default)")
    public Map<String, String> params = new LinkedHashMap<>();

    /**
     * The parameters given, each read by some engine of {@code chainSpec} (the chain in force), with
     * a value that engine takes.
     *
     * @throws IllegalArgumentException naming a parameter no engine of the chain reads, and the ones
     *                                  they do; or a value an engine refuses, and why
     */
    public static Map<String, String> checked(Map<String, String> params, String chainSpec) {
        Set<String> known = readBy(chainSpec);
        for (String name : params.keySet()) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException("--engine-param " + name + ": no engine of the chain " + chainSpec + " reads it"
                        + (known.isEmpty() ? " (they take no parameters)" : "; they read " + String.join(", ", known)));
            }
        }
        for (String name : EngineChain.parse(chainSpec).names()) {
            try {
                RoutingEngines.create(name).checkParameters(params);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--engine-param for " + name + ": " + e.getMessage(), e);
            }
        }
        return Map.copyOf(params);
    }

    /** The parameters the engines of {@code chainSpec} read, sorted. */
    public static Set<String> readBy(String chainSpec) {
        Set<String> known = new TreeSet<>();
        for (String name : EngineChain.parse(chainSpec).names()) {
            known.addAll(RoutingEngines.create(name).parameters().keySet());
        }
        return known;
    }
}
