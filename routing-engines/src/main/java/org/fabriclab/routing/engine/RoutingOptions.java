package org.fabriclab.routing.engine;

import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.fabriclab.routing.format.LftDump;

/**
 * What a routing run may be told besides the fabric. Every engine reads only what it documents
 * and ignores the rest; the defaults route the whole fabric.
 *
 * @param seed      the only source of randomness an engine may use (default 1)
 * @param rootGuids up/down root switches by node GUID; empty = detect automatically
 * @param endpoints the job's endpoints (a per-job node set, as Angara's manager routes per job):
 *                  engines balance for traffic among these, analysis traces pairs among these;
 *                  empty = every endpoint. Every LID is routed either way.
 * @param lftDump   the tables the {@code file} engine replays
 * @param params    engine-specific settings, {@code name=value}
 */
public record RoutingOptions(long seed, List<Long> rootGuids, Optional<BitSet> endpoints,
                             Optional<LftDump> lftDump, Map<String, String> params) {
    public static final RoutingOptions DEFAULTS =
            new RoutingOptions(1, List.of(), Optional.empty(), Optional.empty(), Map.of());

    public RoutingOptions {
        rootGuids = List.copyOf(rootGuids);
        endpoints = endpoints.map(b -> (BitSet) b.clone());
        params = Map.copyOf(params);
    }

    public RoutingOptions withSeed(long s) {
        return new RoutingOptions(s, rootGuids, endpoints, lftDump, params);
    }

    public RoutingOptions withRoots(List<Long> roots) {
        return new RoutingOptions(seed, roots, endpoints, lftDump, params);
    }

    public RoutingOptions withEndpoints(BitSet set) {
        return new RoutingOptions(seed, rootGuids, Optional.of(set), lftDump, params);
    }

    public RoutingOptions withLftDump(LftDump dump) {
        return new RoutingOptions(seed, rootGuids, endpoints, Optional.of(dump), params);
    }

    public RoutingOptions withParams(Map<String, String> p) {
        return new RoutingOptions(seed, rootGuids, endpoints, lftDump, p);
    }

    /** True if endpoint {@code e} is in the job's set (always, when no set was given). */
    public boolean includes(int e) {
        return endpoints.isEmpty() || endpoints.get().get(e);
    }
}
