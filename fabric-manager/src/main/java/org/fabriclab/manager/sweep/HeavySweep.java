package org.fabriclab.manager.sweep;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.fabriclab.manager.channel.FanOut;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.proto.v1.PortInfo;
import org.fabriclab.proto.v1.SetSmInfoRequest;
import org.fabriclab.proto.v1.SmState;
import org.fabriclab.routing.analysis.RouteAnalyzer;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.DragonflySwitch;
import org.fabriclab.routing.dragonfly.DragonflyTables;
import org.fabriclab.routing.dragonfly.QSeeds;
import org.fabriclab.routing.analysis.RouteReport;
import org.fabriclab.routing.engine.EngineGuarantees;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.NodeSet;
import org.fabriclab.routing.format.QTableSnapshotException;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.lid.LidAssignment;
import org.fabriclab.routing.registry.EngineChain;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One heavy sweep after discovery, as OpenSM's: assign LIDs (keeping remembered ones), route with
 * the engine chain, validate the routes before any switch is touched ({@link RouteValidation}),
 * then push. The push has two phases: first every switch gets its new tables ({@link TablePush},
 * each switch swapping its own whole in a versioned all-or-nothing write) and every channel
 * adapter its source routes ({@link SourceRoutePush}); only then are ports armed and activated
 * ({@link Activation}), so no host sends before every table is in. Every phase talks to the nodes
 * through one {@link FanOut}.
 *
 * <p>Thread-safety: one sweep at a time, on the manager's sweep thread.
 */
public final class HeavySweep {
    private static final Logger LOG = LoggerFactory.getLogger(HeavySweep.class);
    /** The engine parameter naming Q-adaptive's seed policy or snapshot. */
    public static final String QTABLE_SEED = "qtable_seed";

    private final FanOut fanOut;
    private final long mKey;
    private final TablePush tables;
    private final SourceRoutePush sourceRoutes;
    private final Activation activation;

    /** {@code mKey}: carried by every write (0 while the nodes have none). */
    /** The engines' parameters ({@code --engine-param}), read by every sweep. */
    private volatile Map<String, String> engineParams = Map.of();

    /** Where {@code qtable_seed=snapshot:NAME} finds the snapshot's values (none: no state directory). */
    private volatile SnapshotSeeds snapshotSeeds = (name, t) -> {
        throw new IOException("this manager has no state directory (--state-dir) to keep snapshots in");
    };

    /**
     * Where the engines' {@code qtable_seed=snapshot:NAME} finds its values: the snapshots the
     * manager keeps in its state directory.
     */
    public interface SnapshotSeeds {
        /**
         * {@code t} with stored snapshot {@code name}'s values as every router's seed.
         *
         * @throws IOException             if the snapshot cannot be read ({@link java.nio.file.NoSuchFileException}: none of that name)
         * @throws QTableSnapshotException if it is corrupt or of another fabric
         */
        DragonflyTables seed(String name, DragonflyTables t) throws IOException, QTableSnapshotException;
    }

    /** Sets where {@code qtable_seed=snapshot:NAME} finds its values. */
    public void snapshotSeeds(SnapshotSeeds s) {
        snapshotSeeds = s;
    }

    /** Sets the engines' parameters the next sweeps route with. */
    public void engineParams(Map<String, String> params) {
        engineParams = Map.copyOf(params);
    }

    /** The engines' parameters sweeps route with. */
    public Map<String, String> engineParams() {
        return engineParams;
    }

    public HeavySweep(FanOut fanOut, long mKey) {
        this.fanOut = fanOut;
        this.mKey = mKey;
        tables = new TablePush(fanOut, mKey);
        sourceRoutes = new SourceRoutePush(fanOut, mKey);
        activation = new Activation(fanOut, mKey);
    }

    /**
     * Claims every node for this manager (IBA SMInfo: GUID, priority, MASTER, activity count) and
     * sets the M_Key, before anything else is written.
     *
     * @throws SweepException naming a node that refuses, e.g. guarded by another manager's M_Key
     */
    public void claim(List<DiscoveredNode> nodes, long smGuid, int priority, int actCount) throws SweepException, InterruptedException {
        SetSmInfoRequest claim = SetSmInfoRequest.newBuilder().setMKey(mKey).setSmGuid(smGuid).setPriority(priority)
                .setState(SmState.SM_STATE_MASTER).setNewMKey(mKey).setActCount(actCount).build();
        requireAll(fanOut.run(nodes, FanOut.Retry.NONE, dn -> fanOut.stub(dn.endpoint()).setSmInfo(claim)),
                "claiming the node for this manager (SMInfo)");
    }

    /** The version this manager last moved switch {@code guid}'s tables to, or -1 if it has not written that switch. */
    public long writtenVersion(long guid) {
        return tables.writtenVersion(guid);
    }

    /** What a sweep produced. */
    public record Outcome(Fabric fabric, LidAssignment lids, ForwardingTables tables, EngineGuarantees guarantees, RouteReport report,
                          int changedBlocks, int activatedPorts, long routingMillis, long validationMillis,
                          long pushMillis, long activationMillis, String jobNodes) {
    }

    /**
     * Runs the sweep on a discovered fabric.
     *
     * @param previousLids remembered LIDs by port GUID (a restart keeps them)
     */
    public Outcome run(Discovery.Result d, EngineChain chain, Map<Long, Integer> previousLids)
            throws SweepException, InterruptedException {
        return run(d, chain, previousLids, "");
    }

    /**
     * The same, balancing the routes for a job's hosts ({@code jobNodes} in node-set syntax; empty
     * for every host): the engines count loads for the job's pairs only, as ANSU routes before a
     * job; every LID is still routed.
     */
    public Outcome run(Discovery.Result d, EngineChain chain, Map<Long, Integer> previousLids, String jobNodes)
            throws SweepException, InterruptedException {
        Fabric f = d.fabric();
        LidAssignment lids = LidAssigner.assign(f, previousLids, heldLids(d));
        long t0 = System.nanoTime();
        EngineChain.Result routed = seededBySnapshot(route(f, lids, chain, jobNodes, engineParams));
        long routingMillis = (System.nanoTime() - t0) / 1_000_000;
        for (RoutingException x : routed.failures()) {
            LOG.warn("routing engine fell back: {}", x.getMessage());
        }
        long tv = System.nanoTime();
        // the analysis shares the destinations among the cores on the sweep's pool (the caller runs any share not started)
        RouteReport report = RouteAnalyzer.analyze(routed.tables(), Optional.empty(), fanOut.executor(), Runtime.getRuntime().availableProcessors());
        RouteValidation.validate(d, routed, report);
        long t1 = System.nanoTime();
        int changed = tables.push(d, routed.tables());
        logCarriedOver(tables.carriedOver());
        sourceRoutes.push(d, routed.tables());
        long t2 = System.nanoTime();
        int activated = activation.activate(d, lids);
        long t3 = System.nanoTime();
        return new Outcome(f, lids, routed.tables(), routed.guarantees(), report, changed, activated, routingMillis, (t1 - tv) / 1_000_000,
                (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000, jobNodes);
    }

    /**
     * {@code routed} with the values of the snapshot the engines' {@code qtable_seed=snapshot:NAME}
     * names as Q-adaptive's seeds (a switch that already learns this routing keeps what it learnt
     * all the same: {@link TablePush}). A snapshot that is gone, corrupt or of another fabric leaves
     * the engine's {@code minimal} seed in its place, with a warning saying why: the fabric is
     * routed all the same.
     */
    private EngineChain.Result seededBySnapshot(EngineChain.Result routed) {
        DragonflyTables t = routed.tables().dragonfly();
        String name = QSeeds.snapshotName(engineParams.get(QTABLE_SEED));
        if (name == null || t == null || t.algorithm() != DragonflyAlgorithm.Q_ADAPTIVE) {
            return routed;
        }
        String instead = "; routers that start learning now start from the minimal seed instead (fabricctl qtable snapshot list shows "
                + "the snapshots kept and whether each fits)";
        try {
            DragonflyTables seeded = snapshotSeeds.seed(name, t);
            return new EngineChain.Result(routed.tables().withDragonfly(seeded, routed.tables().engine()), routed.guarantees(),
                    routed.failures());
        } catch (NoSuchFileException e) {
            LOG.warn("qtable_seed={}{}: there is no snapshot of that name ({}){}", QSeeds.SNAPSHOT, name, e.getFile(), instead);
        } catch (QTableSnapshotException e) {
            LOG.warn("qtable_seed={}{}: snapshot {}{}", QSeeds.SNAPSHOT, name, e.getMessage(), instead);
        } catch (IOException e) {
            LOG.warn("qtable_seed={}{}: the snapshot cannot be read ({}){}", QSeeds.SNAPSHOT, name, e.getMessage(), instead);
        }
        return routed;
    }

    /** Says which switches kept what they learnt over a routing change, and how much of it. */
    private static void logCarriedOver(List<TablePush.Carried> carried) {
        if (carried.isEmpty()) {
            return;
        }
        int kept = 0;
        int reseeded = 0;
        StringBuilder reseededAt = new StringBuilder();
        for (TablePush.Carried c : carried) {
            kept += c.rowsKept();
            reseeded += c.rowsReseeded();
            if (c.rowsReseeded() > 0 && reseededAt.length() < 200) {
                reseededAt.append(reseededAt.length() == 0 ? "" : ", ").append(c.name()).append(' ').append(c.rowsReseeded());
            }
        }
        LOG.info("Q-adaptive routing changed on {} switch(es): they keep what they learnt in {} Q-table rows; {} rows whose minimal "
                + "way changed start again from the seed{}", carried.size(), kept, reseeded, reseeded == 0 ? "" : " (" + reseededAt + ")");
    }

    /**
     * The LIDs the fabric's ports hold now, by port GUID (a switch's on its port 0, by its node
     * GUID): what a sweep keeps where the remembered LIDs say nothing, so that a manager without
     * its {@code guid2lid} (lost, unreadable) renumbers no running port.
     */
    static Map<Long, Integer> heldLids(Discovery.Result d) {
        Map<Long, Integer> held = new HashMap<>();
        Fabric f = d.fabric();
        for (DiscoveredNode dn : d.nodes()) {
            int n = f.nodeByGuid(dn.info().getNodeGuid()).orElse(Fabric.NONE);
            if (n == Fabric.NONE) {
                continue;
            }
            for (PortInfo p : dn.ports()) {
                int port = p.getPortNumber();
                if (p.getLid() == 0 || port < 1 || port > f.portCount(n)) {
                    continue;
                }
                held.putIfAbsent(f.isSwitch(n) ? f.nodeGuid(n) : f.portGuid(n, port), p.getLid());
            }
        }
        return held;
    }

    /**
     * Writes Q-adaptive routing {@code want} (per switch number: the routing it holds, with the
     * seed to learn from now) to every switch with learning restarted, or to none ({@link
     * TablePush#restartLearning}); a reseed's and a snapshot restore's write.
     *
     * @return the switches written
     * @throws SweepException why nothing was written, or which switch refused and that the others were put back
     */
    public int restartLearning(Discovery.Result d, DragonflySwitch[] want) throws SweepException, InterruptedException {
        return tables.restartLearning(d, d.fabric(), want);
    }

    /**
     * Pushes {@code routed}'s tables as a sweep does (validation, tables, source routes; no
     * activation): for tools and tests that route themselves.
     */
    public int push(Discovery.Result d, EngineChain.Result routed) throws SweepException, InterruptedException {
        RouteValidation.validate(d, routed, RouteAnalyzer.analyze(routed.tables()));
        int changed = tables.push(d, routed.tables());
        sourceRoutes.push(d, routed.tables());
        return changed;
    }

    /**
     * Routes {@code f} with {@code chain} for the job's hosts ({@code jobNodes}, empty: every host),
     * with the engines' parameters {@code params}, as a sweep does; every engine's failure is a
     * {@link SweepException} with the reasons.
     */
    public static EngineChain.Result route(Fabric f, LidAssignment lids, EngineChain chain, String jobNodes, Map<String, String> params)
            throws SweepException {
        RoutingOptions options = RoutingOptions.DEFAULTS.withParams(params);
        if (!jobNodes.isEmpty()) {
            try {
                options = options.withEndpoints(NodeSet.parse(f, jobNodes));
            } catch (IllegalArgumentException e) {
                throw new SweepException("the job's node set no longer fits the fabric: " + e.getMessage() + "; no switch was changed");
            }
        }
        try {
            return chain.route(new RoutingRequest(f, lids, options));
        } catch (RoutingException e) {
            throw new SweepException("no engine of the chain " + chain.names() + " could route the fabric: " + e.getMessage());
        }
    }

    /**
     * Every node's call must have succeeded; the first failure, in the nodes' order, names the node
     * and what was being done (with a hint where another manager's M_Key guards it).
     */
    static void requireAll(List<? extends FanOut.Result<DiscoveredNode, ?>> results, String what) throws SweepException {
        for (FanOut.Result<DiscoveredNode, ?> r : results) {
            if (!r.ok()) {
                Throwable c = r.failure();
                String hint = c instanceof StatusRuntimeException s && s.getStatus().getCode() == Status.Code.PERMISSION_DENIED
                        ? "; another manager's M_Key guards it: give this manager the fabric's key (--m-key)" : "";
                throw new SweepException(what + " failed at " + r.item().info().getDescription() + ": " + FanOut.describe(c) + hint);
            }
        }
    }
}
