package org.fabriclab.routing.engine.dragonfly;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.DragonflyFabric;
import org.fabriclab.routing.dragonfly.DragonflyLids;
import org.fabriclab.routing.dragonfly.DragonflyParams;
import org.fabriclab.routing.dragonfly.DragonflyRules;
import org.fabriclab.routing.dragonfly.DragonflySwitch;
import org.fabriclab.routing.dragonfly.DragonflyTables;
import org.fabriclab.routing.dragonfly.QSeeds;
import org.fabriclab.routing.engine.EngineGuarantees;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingEngine;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssignment;

/**
 * The Dragonfly engines, one per {@link DragonflyAlgorithm} ({@code df-min}, {@code df-valg},
 * {@code df-valn}, {@code df-ugalg}, {@code df-ugaln}, {@code df-par}, {@code q-adaptive}): what
 * every router needs to route by {@link DragonflyRules} in the switch core (its place in the
 * Dragonfly, its ports' kinds, its group's gateways, where every LID is, the algorithm and its
 * parameters, the seed of its random choices, and for Q-adaptive the Q-table it starts from),
 * beside LFTs of the minimal routes (a switch delivers to its hosts by them, and a tool that reads
 * LFTs alone sees the minimal paths). The adaptive choices are made per packet by the switches.
 *
 * <p>Parameters ({@code --engine-param NAME=VALUE}): those of {@link DragonflyParams} the algorithm
 * reads ({@link DragonflyParams#names(DragonflyAlgorithm)}: Q-adaptive's learning rates, epsilon and
 * thresholds; UGAL's and PAR's threshold and bias; none for MIN and Valiant), and for Q-adaptive's
 * Q-table seed {@code link_gbps} (default 32, the paper's 4 GB/s) and {@code packet_bytes} (128),
 * the local and global cables' delays coming from the fabric ({@link Fabric#linkDelayNs}), else
 * {@code local_latency_ns} (30) and {@code global_latency_ns} (300). {@code q-adaptive} also reads
 * {@code qtable_seed}, the seed policy ({@link QSeeds.Policy}: {@code minimal}, the default and the
 * paper's; {@code hops}; {@code zero}; or {@code snapshot:NAME}, seeded {@code minimal} here and given
 * the values of the daemon's stored snapshot NAME by the daemon), and {@code hop_ns}, the nominal hop time of {@code hops}
 * ({@code mean}, the default: the mean of a local and a global hop as the parameters above make
 * them; or a time in ns). A fabric that is no Dragonfly is refused with the reason, so a chain
 * falls back.
 */
public final class DragonflyEngine implements RoutingEngine {
    /** The Q-table seed's parameters (the time of a hop without congestion), with their defaults. */
    private static final Map<String, String> SEED_PARAMETERS = Map.of("link_gbps", "32", "packet_bytes", "128", "local_latency_ns", "30",
            "global_latency_ns", "300");
    /** Q-adaptive's seed policy and the nominal hop time of {@code hops}, with their defaults. */
    static final String SEED_POLICY = "qtable_seed";
    static final String HOP_NS = "hop_ns";
    private static final String MEAN_HOP = "mean";

    private final DragonflyAlgorithm algorithm;

    public DragonflyEngine(DragonflyAlgorithm algorithm) {
        this.algorithm = algorithm;
    }

    @Override
    public String name() {
        return algorithm.key();
    }

    /** Deadlock-free on the algorithm's VCs (proven by the route analysis on every path its rules allow). */
    @Override
    public EngineGuarantees guarantees() {
        return new EngineGuarantees(true, algorithm.vcs(), false);
    }

    @Override
    public Map<String, String> parameters() {
        Map<String, String> m = new LinkedHashMap<>(DragonflyParams.names(algorithm));
        if (algorithm == DragonflyAlgorithm.Q_ADAPTIVE) {
            for (String name : List.of("link_gbps", "packet_bytes", "local_latency_ns", "global_latency_ns")) {
                m.put(name, SEED_PARAMETERS.get(name));
            }
            m.put(SEED_POLICY, QSeeds.Policy.MINIMAL.key());
            m.put(HOP_NS, MEAN_HOP);
        }
        return m;
    }

    @Override
    public void checkParameters(Map<String, String> params) {
        DragonflyParams.of(params);
        for (String name : SEED_PARAMETERS.keySet()) {
            positive(params, name);
        }
        if (algorithm == DragonflyAlgorithm.Q_ADAPTIVE) {
            seedPolicy(params);
            hopNs(params, 1, 1);
        }
    }

    /** The seed policy {@code params} names, else {@code minimal}; {@code minimal} too in place of a snapshot's values. */
    private static QSeeds.Policy seedPolicy(Map<String, String> params) {
        String v = params.get(SEED_POLICY);
        return v == null || QSeeds.snapshotName(v) != null ? QSeeds.Policy.MINIMAL : QSeeds.Policy.of(v);
    }

    /**
     * {@code hop_ns} as given, else (or given as {@code mean}) the mean of a local and a global hop.
     *
     * @throws IllegalArgumentException if it is neither {@code mean} nor a positive number below 10^9
     */
    private static double hopNs(Map<String, String> params, double localHop, double globalHop) {
        String v = params.getOrDefault(HOP_NS, MEAN_HOP);
        if (v.strip().equals(MEAN_HOP)) {
            return (localHop + globalHop) / 2;
        }
        return positive(HOP_NS, v, "is neither 'mean' nor a positive number of ns");
    }

    @Override
    public ForwardingTables route(RoutingRequest request) throws RoutingException {
        Fabric f = request.fabric();
        DragonflyFabric df;
        DragonflyParams params;
        double frameNs;
        double localHop;
        double globalHop;
        QSeeds.Policy policy;
        double hopNs;
        try {
            df = DragonflyFabric.of(f);
            Map<String, String> given = request.options().params();
            params = DragonflyParams.of(given);
            frameNs = positive(given, "packet_bytes") * 8 / positive(given, "link_gbps");
            localHop = frameNs + delay(f, df, true, positive(given, "local_latency_ns"));
            globalHop = frameNs + delay(f, df, false, positive(given, "global_latency_ns"));
            policy = seedPolicy(given);
            hopNs = hopNs(given, localHop, globalHop);
        } catch (IllegalArgumentException e) {
            throw new RoutingException(name(), e.getMessage());
        }
        LidAssignment lids = request.lids();
        DragonflyLids where = lidMap(df, lids);
        DragonflySwitch[] routers = new DragonflySwitch[f.switchCount()];
        ForwardingTables.Builder out = ForwardingTables.builder(f, lids);
        for (int s = 0; s < f.switchCount(); s++) {
            try {
                routers[s] = router(df, s, params, request.options().seed(), where);
            } catch (IllegalArgumentException e) {
                throw new RoutingException(name(), "switch " + f.name(f.switchNode(s)) + ": " + e.getMessage());
            }
        }
        // the seeds once every router is known (hops looks at the routers beyond each port)
        DragonflySwitch[] seeded = routers.clone();
        for (int s = 0; s < f.switchCount(); s++) {
            if (algorithm == DragonflyAlgorithm.Q_ADAPTIVE) {
                DragonflySwitch r = routers[s];
                float[] seed = switch (policy) {
                    case MINIMAL -> QSeeds.minimal(r, localHop, globalHop);
                    case HOPS -> QSeeds.hops(r, beyond(f, s, routers), hopNs);
                    case ZERO -> QSeeds.zero(r);
                };
                seeded[s] = r.withQSeed(seed);
            }
            minimalLft(df, s, seeded[s], lids, out);
        }
        return out.build(name()).withDragonfly(new DragonflyTables(df, algorithm, seeded), name());
    }

    /**
     * Seed parameter {@code name} as given, else its default.
     *
     * @throws IllegalArgumentException if it is not a positive number below 10^9
     */
    private static double positive(Map<String, String> params, String name) {
        return positive(name, params.getOrDefault(name, SEED_PARAMETERS.get(name)), "is not a positive number");
    }

    /** Value {@code v} of parameter {@code name} if it is a positive number below 10^9, else refused: "NAME=V {@code what}". */
    private static double positive(String name, String v, String what) {
        try {
            double x = Double.parseDouble(v.strip());
            if (x > 0 && x < 1e9) {
                return x;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException(name + "=" + v + " " + what);
    }

    /** Per port of switch {@code s}, the router at its other end (null for a host port or none). */
    private static DragonflySwitch[] beyond(Fabric f, int s, DragonflySwitch[] routers) {
        int node = f.switchNode(s);
        DragonflySwitch[] next = new DragonflySwitch[f.portCount(node) + 1];
        for (int p = 1; p <= f.portCount(node); p++) {
            int other = f.peerNode(f.globalPort(node, p));
            if (other != Fabric.NONE && f.isSwitch(other)) {
                next[p] = routers[f.switchIndex(other)];
            }
        }
        return next;
    }

    /** The delay of the fabric's first local (or global) link where it gives one, else {@code def}. */
    private static double delay(Fabric f, DragonflyFabric df, boolean local, double def) {
        for (int g = 0; g < f.globalPortCount(); g++) {
            if (f.isInterSwitch(g) && f.linkDelayNs(g) >= 0) {
                int a = f.switchIndex(f.nodeOfGlobalPort(g));
                int b = f.switchIndex(f.peerNode(g));
                if ((df.group(a) == df.group(b)) == local) {
                    return f.linkDelayNs(g);
                }
            }
        }
        return def;
    }

    /** Per LID: the group and router index of the switch it is on (or is), and a host's slot. */
    static DragonflyLids lidMap(DragonflyFabric df, LidAssignment lids) {
        Fabric f = df.fabric();
        int[] entries = new int[lids.maxLid() + 1];
        Arrays.fill(entries, -1);
        for (int s = 0; s < f.switchCount(); s++) {
            int lid = lids.switchLid(s);
            if (lid > 0) {
                entries[lid] = DragonflyLids.pack(df.group(s), df.index(s), 0);
            }
        }
        for (int e = 0; e < f.endpointCount(); e++) {
            int lid = lids.endpointLid(e);
            int sw = f.endpointSwitch(e);
            if (lid > 0 && sw != Fabric.NONE) {
                int s = f.switchIndex(sw);
                entries[lid] = DragonflyLids.pack(df.group(s), df.index(s), df.slot(e));
            }
        }
        return DragonflyLids.of(entries);
    }

    /** Switch {@code s} as its router description, without a Q seed. */
    private DragonflySwitch router(DragonflyFabric df, int s, DragonflyParams params, long seed, DragonflyLids lids) {
        Fabric f = df.fabric();
        int node = f.switchNode(s);
        int ports = f.portCount(node);
        byte[] kind = new byte[ports + 1];
        int[] peer = new int[ports + 1];
        Arrays.fill(peer, -1);
        for (int p = 1; p <= ports; p++) {
            int other = f.peerNode(f.globalPort(node, p));
            if (other == Fabric.NONE) {
                continue;
            }
            if (!f.isSwitch(other)) {
                kind[p] = DragonflySwitch.HOST;
                continue;
            }
            int t = f.switchIndex(other);
            if (df.group(t) == df.group(s)) {
                kind[p] = DragonflySwitch.LOCAL;
                peer[p] = df.index(t);
            } else {
                kind[p] = DragonflySwitch.GLOBAL;
                peer[p] = df.group(t);
            }
        }
        // per other group, the links of this group to it by the router holding each, ascending (a router with several
        // links to the group appears once per link); the routers holding none take them in turn (the j-th such router, by
        // index, goes by the router of the (j mod k)-th of the k links), so that the group's traffic to that group spreads
        // over its links instead of all crossing the lowest holder's, and a router holding two links takes twice the
        // others' share (one link per pair: the one holder, as before; a holder goes by its own links whatever its gateway)
        int[][] links = new int[df.groups()][];
        int[] count = new int[df.groups()];
        boolean[][] holds = new boolean[df.groups()][df.routers()];
        for (int i = 0; i < df.routers(); i++) {
            int rn = f.switchNode(df.router(df.group(s), i));
            for (int p = 1; p <= f.portCount(rn); p++) {
                int other = f.peerNode(f.globalPort(rn, p));
                if (other != Fabric.NONE && f.isSwitch(other) && df.group(f.switchIndex(other)) != df.group(s)) {
                    int t = df.group(f.switchIndex(other));
                    if (links[t] == null) {
                        links[t] = new int[df.routers()];
                    }
                    if (count[t] == links[t].length) {
                        links[t] = Arrays.copyOf(links[t], 2 * count[t]);
                    }
                    links[t][count[t]++] = i;
                    holds[t][i] = true;
                }
            }
        }
        int[] gateway = new int[df.groups()];
        Arrays.fill(gateway, -1);
        for (int t = 0; t < df.groups(); t++) {
            if (count[t] > 0) {
                int rank = 0; // the routers before s holding no link to t
                for (int i = 0; i < df.index(s); i++) {
                    rank += holds[t][i] ? 0 : 1;
                }
                gateway[t] = links[t][rank % count[t]];
            }
        }
        // the seed of each router's random choices: the run's, told apart by switch
        long routerSeed = seed * 0x9E3779B97F4A7C15L + s;
        return new DragonflySwitch(algorithm, params, routerSeed, df.group(s), df.index(s), df.groups(), df.routers(),
                df.hostsPerRouter(), kind, peer, gateway, lids, algorithm == DragonflyAlgorithm.Q_ADAPTIVE ? placeholderSeed(df, kind) : null);
    }

    /** A zero Q-table of the router's shape, replaced by the real seed once the router's columns are known. */
    private static float[] placeholderSeed(DragonflyFabric df, byte[] kind) {
        int cols = 0;
        for (byte k : kind) {
            cols += k == DragonflySwitch.LOCAL || k == DragonflySwitch.GLOBAL ? 1 : 0;
        }
        return new float[df.groups() * df.hostsPerRouter() * cols];
    }

    /** Switch {@code s}'s LFT: the minimal port to every LID by the rules, the host's port on its own router. */
    private static void minimalLft(DragonflyFabric df, int s, DragonflySwitch r, LidAssignment lids, ForwardingTables.Builder out) {
        Fabric f = df.fabric();
        DragonflyLids where = r.lids();
        for (int lid = 1; lid <= lids.maxLid(); lid++) {
            int e = where.entry(lid);
            if (e < 0) {
                continue;
            }
            // where the way there has parallel links, destinations take them in turn by LID
            int port = DragonflyRules.minimal(r, DragonflyLids.group(e), DragonflyLids.router(e));
            if (port > 0 && r.parallels(port) > 1) {
                port = r.parallel(port, lid % r.parallels(port));
            }
            if (port == 0) {
                int endpoint = lids.endpointOfLid(lid);
                port = endpoint < 0 ? 0 : f.peerPort(f.endpointPort(endpoint));
            }
            out.set(s, lid, port);
        }
    }

    /** The engines' keys. */
    public static Set<String> keys() {
        Set<String> out = new LinkedHashSet<>();
        for (DragonflyAlgorithm a : DragonflyAlgorithm.values()) {
            out.add(a.key());
        }
        return out;
    }
}
