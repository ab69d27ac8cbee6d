package org.fabriclab.routing.registry;

import java.util.ArrayList;
import java.util.List;
import org.fabriclab.routing.engine.EngineGuarantees;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingEngine;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.minhop.MinHopEngine;
import org.fabriclab.routing.text.Excerpt;

/**
 * A configured chain of engines, as OpenSM's {@code -R updn,minhop}: each is tried in turn until
 * one routes the fabric; {@code minhop} is appended as the fallback unless the chain already ends
 * with it or the spec ends with {@code no_fallback}. Which engine produced the tables is part of
 * the result, never hidden.
 */
public final class EngineChain {
    private final List<RoutingEngine> engines;
    /** The last engine is the {@code minhop} this chain appended, not one its spec named. */
    private final boolean appendedFallback;

    /** The chain as written back: its keys in the order given, without empty entries. */
    private final String spec;

    private EngineChain(List<RoutingEngine> engines, boolean appendedFallback, String spec) {
        this.engines = List.copyOf(engines);
        this.appendedFallback = appendedFallback;
        this.spec = spec;
    }

    /**
     * Parses a chain spec: engine keys separated by commas, optionally ending with {@code no_fallback}.
     * Empty entries ({@code updn,,minhop}, a trailing comma) are passed over, as OpenSM's
     * {@code routing_engine} list is read (strtok_r on {@code ", \t\n"}, which runs separators
     * together); {@link #spec()} gives the chain without them. An engine named twice is refused:
     * OpenSM would set it up and try it twice, and a second try of the same engine on the same
     * fabric cannot succeed where the first failed.
     *
     * @throws IllegalArgumentException for an empty spec, an unknown engine key or a key named twice
     */
    public static EngineChain parse(String spec) {
        List<RoutingEngine> list = new ArrayList<>();
        List<String> keys = new ArrayList<>();
        boolean fallback = true;
        for (String part : spec.split(",")) {
            String key = part.strip();
            if (key.isEmpty()) {
                continue;
            }
            if (keys.contains(key)) {
                throw new IllegalArgumentException("routing engine chain '" + Excerpt.bare(spec) + "' names " + Excerpt.bare(key)
                        + " twice; name each engine once (the chain tries them in order, and the same engine fails the same way twice)");
            }
            keys.add(key);
            if (key.equals("no_fallback")) {
                fallback = false;
                continue;
            }
            list.add(RoutingEngines.create(key));
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException("empty routing engine chain '" + Excerpt.bare(spec) + "'; name at least one engine");
        }
        boolean append = fallback && !list.get(list.size() - 1).name().equals(MinHopEngine.NAME);
        if (append) {
            list.add(new MinHopEngine());
        }
        return new EngineChain(list, append, String.join(",", keys));
    }

    /** The chain's spec as parsed, without empty entries or spaces ({@code updn, ,minhop} gives {@code updn,minhop}). */
    public String spec() {
        return spec;
    }

    /** The engine keys in order, fallback included. */
    public List<String> names() {
        return engines.stream().map(RoutingEngine::name).toList();
    }

    /** The tables of the first engine that succeeded, what that engine promises, and why each before it failed. */
    public record Result(ForwardingTables tables, EngineGuarantees guarantees, List<RoutingException> failures) {
        public Result {
            failures = List.copyOf(failures);
        }

        /** The engine that produced the tables. */
        public String engine() {
            return tables.engine();
        }
    }

    /**
     * True if {@code r}'s tables come from the {@code minhop} fallback this chain appended itself,
     * every engine its spec named having failed: a request to use those engines was not met
     * ({@code fabricctl engine set torus-sssp} on a fat tree).
     */
    public boolean onlyTheAppendedFallbackRouted(Result r) {
        return appendedFallback && r.failures().size() == engines.size() - 1;
    }

    /**
     * Routes with the first engine that can.
     *
     * @throws RoutingException the last engine's failure when none succeeds; earlier ones are suppressed in it
     */
    public Result route(RoutingRequest request) throws RoutingException {
        List<RoutingException> failures = new ArrayList<>();
        for (RoutingEngine e : engines) {
            try {
                return new Result(e.route(request), e.guarantees(), failures);
            } catch (RoutingException x) {
                failures.add(x);
            }
        }
        RoutingException last = failures.get(failures.size() - 1);
        for (int i = 0; i < failures.size() - 1; i++) {
            last.addSuppressed(failures.get(i));
        }
        throw last;
    }
}
