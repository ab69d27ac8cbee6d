package org.fabriclab.cli;

import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.registry.RoutingEngines;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code --engine CHAIN}: the routing-engine chain, in every main that routes (the daemon, the
 * simulator, offline {@code fabricctl route}); an unknown engine is refused while parsing. Its
 * engines' parameters are {@link EngineParamOption}.
 */
public final class EngineOption {
    @Option(names = "--engine", defaultValue = "minhop", paramLabel = "CHAIN", converter = ChainConverter.class,
            description = "Routing-engine chain, e.g. updn or updn,minhop; minhop is the fallback unless 'no_fallback' ends the chain "
                    + "('fabricctl engines' lists them). Default: ${DEFAULT-VALUE}")
    public String chain;

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

    /** Keeps the key of one engine that exists (not a chain: for options that list engines side by side). */
    public static final class NameConverter implements ITypeConverter<String> {
        @Override
        public String convert(String name) {
            try {
                RoutingEngines.create(name.strip());
                return name.strip();
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }
}
