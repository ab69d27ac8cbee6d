package org.fabriclab.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.registry.RoutingEngines;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --engine CHAIN}: the routing-engine chain, in every main that routes (the daemon, the
 * simulator, offline {@code fabricctl route}), and {@code --engine-param NAME=VALUE}, its engines'
 * parameters. An unknown engine is refused while parsing, a parameter no engine of the chain
 * reads before anything starts ({@link #checked}).
 */
public final class EngineOption {
    @Option(names = "--engine", defaultValue = "minhop", paramLabel = "CHAIN", converter = ChainConverter.class,
            description = "Routing-engine chain, e.g. updn or updn,minhop; minhop is the fallback unless 'no_fallback' ends the chain "
                    + "('fabricctl engines' lists them). Default: ${DEFAULT-VALUE}")
    public String chain;

    @Option(names = "--engine-param", paramLabel = "NAME=VALUE",
            description = "A parameter of an engine of the chain, repeatable (q-adaptive's alpha=0.3, df-ugalg's ugal_threshold=2; "
                    + "'fabricctl engines' lists each engine's with its default)")
    public Map<String, String> params = new LinkedHashMap<>();

    /**
     * The parameters given, each read by some engine of {@code chainSpec} (the chain in force).
     *
     * @throws IllegalArgumentException naming a parameter no engine of the chain reads, and the ones they do
     */
    public static Map<String, String> checked(Map<String, String> params, String chainSpec) {
        Set<String> known = readBy(chainSpec);
        for (String name : params.keySet()) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException("--engine-param " + name + ": no engine of the chain " + chainSpec + " reads it"
                        + (known.isEmpty() ? " (they take no parameters)" : "; they read " + String.join(", ", known)));
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

    /** {@link #checked} for this option's chain. */
    public Map<String, String> checkedParams() {
        return checked(params, chain);
    }

    /** Keeps a chain spec whose every engine exists. */
    public static final class ChainConverter implements ITypeConverter<String> {
        @Override
        public String convert(String chain) {
            try {
                EngineChain.parse(chain);
                return chain;
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
