package org.fabriclab.manager;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.fabriclab.cli.VersionProvider;
import org.fabriclab.manager.channel.FanOut;
import org.fabriclab.manager.channel.NodeChannels;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.manager.discovery.DiscoveryException;
import org.fabriclab.manager.sweep.HeavySweep;
import org.fabriclab.manager.sweep.SweepException;
import org.fabriclab.manager.sweep.Drift;
import org.fabriclab.proto.v1.Event;
import org.fabriclab.proto.v1.GetNodeRecordRequest;
import org.fabriclab.proto.v1.GetSmInfoRequest;
import org.fabriclab.proto.v1.MKeyViolation;
import org.fabriclab.proto.v1.SmInfo;
import org.fabriclab.proto.v1.SubscribeEventsRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.NodeSet;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.lid.LidAssignment;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.text.Excerpt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fabric manager: discovers the fabric from a seed endpoint, runs heavy sweeps, listens to
 * traps, and keeps the status the admin service and metrics report.
 *
 * <p>Threads, by role: heavy sweeps run one at a time on the {@code manager-sweep} thread (the
 * serial executor that owns the sweep state, so nothing else locks it); discovery, light sweeps and
 * pushes fan out through one {@link FanOut} on the {@code manager-io} pool (at most
 * {@link #IO_THREADS} management requests in flight, each with a deadline); traps
 * arrive on gRPC threads and only schedule a sweep. A flood of traps is damped as OpenSM does: a
 * trap while a sweep is already pending adds nothing, and a sweep waits {@link #TRAP_DELAY_MS} so
 * that the traps of one event (both ends of a link) fold into one sweep.
 */
public final class FabricManager implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(FabricManager.class);
    static final long TRAP_DELAY_MS = 200;
    static final int IO_THREADS = 16;

    /** The manager's state, as {@code fabricctl status} shows it. */
    public enum State { DISCOVERING, ROUTING, UP, FAILED, STANDBY }

    /**
     * A consistent snapshot of what the manager knows; changed through {@link #toBuilder()}.
     *
     * @param discovered      the fabric as last discovered (kept while a later discovery fails: the
     *                        view, the perf manager and traces still work on it)
     * @param discoveryFailed the last heavy sweep could not discover the fabric: {@link #discoveredNow()} is then null
     */
    public record Snapshot(State state, Discovery.Result discovered, HeavySweep.Outcome outcome, String engineChain,
                           long tableVersion, long lastHeavySweepMillis, long upSinceEpochMillis, String lastError,
                           long heavySweeps, long traps, boolean discoveryFailed) {
        /** The snapshot of a manager that has not swept yet. */
        static Snapshot initial(String engineChain) {
            return new Snapshot(State.DISCOVERING, null, null, engineChain, 0, 0, 0, "", 0, 0, false);
        }

        /**
         * The fabric as the last sweep found it, what the status counts: null before the first
         * discovery and after a sweep whose discovery failed (the fabric is not known now; an earlier
         * sweep's counts would say it is).
         */
        public Discovery.Result discoveredNow() {
            return discoveryFailed ? null : discovered;
        }

        /** A builder starting from this snapshot. */
        Builder toBuilder() {
            return new Builder(this);
        }

        /** The same, in another state; a null error keeps the last one. */
        Snapshot withState(State to, String error) {
            return toBuilder().state(to).lastError(error == null ? lastError : error).build();
        }

        /** Discovery done, routing next: the new fabric, no error. */
        Snapshot routing(Discovery.Result d) {
            return toBuilder().state(State.ROUTING).discovered(d).discoveryFailed(false).lastError("").build();
        }

        /** Standing by: the fabric as discovered, {@code note} saying which manager is master. */
        Snapshot standby(Discovery.Result d, String note) {
            return toBuilder().state(State.STANDBY).discovered(d).discoveryFailed(false).lastError(note).build();
        }

        Snapshot withEngineChain(String chain) {
            return toBuilder().engineChain(chain).build();
        }

        Snapshot withOneMoreTrap() {
            return toBuilder().traps(traps + 1).build();
        }

        /** A snapshot's fields, changed one by one; not thread-safe (the sweep thread builds them). */
        static final class Builder {
            private State state;
            private Discovery.Result discovered;
            private HeavySweep.Outcome outcome;
            private String engineChain;
            private long tableVersion;
            private long lastHeavySweepMillis;
            private long upSinceEpochMillis;
            private String lastError;
            private long heavySweeps;
            private long traps;
            private boolean discoveryFailed;

            private Builder(Snapshot s) {
                state = s.state;
                discovered = s.discovered;
                outcome = s.outcome;
                engineChain = s.engineChain;
                tableVersion = s.tableVersion;
                lastHeavySweepMillis = s.lastHeavySweepMillis;
                upSinceEpochMillis = s.upSinceEpochMillis;
                lastError = s.lastError;
                heavySweeps = s.heavySweeps;
                traps = s.traps;
                discoveryFailed = s.discoveryFailed;
            }

            Builder state(State v) {
                state = v;
                return this;
            }

            Builder discovered(Discovery.Result v) {
                discovered = v;
                return this;
            }

            Builder outcome(HeavySweep.Outcome v) {
                outcome = v;
                return this;
            }

            Builder engineChain(String v) {
                engineChain = v;
                return this;
            }

            Builder tableVersion(long v) {
                tableVersion = v;
                return this;
            }

            Builder lastHeavySweepMillis(long v) {
                lastHeavySweepMillis = v;
                return this;
            }

            Builder upSinceEpochMillis(long v) {
                upSinceEpochMillis = v;
                return this;
            }

            Builder lastError(String v) {
                lastError = v;
                return this;
            }

            Builder heavySweeps(long v) {
                heavySweeps = v;
                return this;
            }

            Builder traps(long v) {
                traps = v;
                return this;
            }

            Builder discoveryFailed(boolean v) {
                discoveryFailed = v;
                return this;
            }

            Snapshot build() {
                return new Snapshot(state, discovered, outcome, engineChain, tableVersion, lastHeavySweepMillis, upSinceEpochMillis,
                        lastError, heavySweeps, traps, discoveryFailed);
            }
        }
    }

    private final String seed;
    private final Path lidFile;
    /** The remembered LIDs ({@code guid2lid}); sweep thread only. */
    private final LidStore lidStore;
    /** Where the table version is kept across restarts ({@code table-version} beside the LID file), or null. */
    private final Path versionFile;
    private final NodeChannels channels = new NodeChannels();
    private final ScheduledExecutorService sweeper = Executors.newSingleThreadScheduledExecutor(r -> thread(r, "manager-sweep"));
    private final ExecutorService io = Executors.newFixedThreadPool(IO_THREADS, r -> thread(r, "manager-io"));
    /** Every fan-out of management calls: discovery, light sweeps, the heavy sweep's pushes. */
    private final FanOut fanOut = new FanOut(channels, io, IO_THREADS);
    private final Discovery discovery = new Discovery(fanOut);
    private final HeavySweep heavySweep;
    private final Mastership mastership;
    private final AtomicBoolean sweepPending = new AtomicBoolean();
    private final Set<Long> subscribed = new HashSet<>();
    private final Timer sweepTimer;
    private final Timer routingTimer;
    private final Timer pushTimer;
    private final Counter sweepErrors;
    private final Counter trapCounter;
    private final Counter lightSweepCounter;
    private final MultiGauge managerInfo;
    private final MeterRegistry registry;
    private final QTables qtables;
    private volatile Snapshot snapshot;
    private final List<Consumer<State>> stateListeners = new CopyOnWriteArrayList<>();
    private EngineChain chain;

    /** A manager of priority 0 without an M_Key, its SM GUID kept beside {@code lidFile} (see {@link #smGuid}). */
    /** The job's node set the sweeps balance for (empty: every host); written on the sweep thread. */
    private volatile String jobNodes = "";

    public FabricManager(String seed, String engineChain, Path lidFile, MeterRegistry registry) {
        this(seed, engineChain, lidFile, registry, new Mastership.Config(smGuid(lidFile), 0, 0));
    }

    FabricManager(String seed, String engineChain, Path lidFile, MeterRegistry registry, Mastership.Config sm) {
        this.seed = seed;
        this.lidFile = lidFile;
        this.lidStore = new LidStore(lidFile);
        this.versionFile = lidFile == null ? null : lidFile.resolveSibling("table-version");
        this.mastership = new Mastership(sm, channels);
        this.heavySweep = new HeavySweep(fanOut, sm.mKey());
        this.chain = EngineChain.parse(engineChain);
        this.registry = registry;
        this.qtables = new QTables(this, fanOut, heavySweep, lidFile == null ? null : lidFile.toAbsolutePath().getParent());
        snapshot = Snapshot.initial(chain.spec()).toBuilder().tableVersion(TableVersionFile.read(versionFile)).build();
        sweepTimer = Timer.builder("fabric.sweep.duration").description("heavy sweep: discovery, LIDs, routing, validation, push, activation").register(registry);
        routingTimer = Timer.builder("fabric.routing.duration").description("routing-engine chain").register(registry);
        pushTimer = Timer.builder("fabric.push.duration").description("table push and port activation").register(registry);
        sweepErrors = Counter.builder("fabric.sweep.errors").description("heavy sweeps that failed").register(registry);
        trapCounter = Counter.builder("fabric.traps").description("traps received from nodes").register(registry);
        lightSweepCounter = Counter.builder("fabric.light.sweeps").description("light sweeps (port state polls)").register(registry);
        Gauge.builder("fabric.switches", this, m -> count(m, true)).description("switches discovered").register(registry);
        Gauge.builder("fabric.hosts", this, m -> count(m, false)).description("channel adapters discovered").register(registry);
        Gauge.builder("fabric.links", this, m -> {
                    Discovery.Result d = m.snapshot.discoveredNow();
                    return d == null ? 0 : d.fabric().linkCount();
                })
                .description("links discovered").register(registry);
        Gauge.builder("fabric.table.version", this, m -> m.snapshot.tableVersion()).description("table version").register(registry);
        for (State st : State.values()) {
            Gauge.builder("fabric.state", this, m -> m.snapshot.state() == st ? 1 : 0).tag("state", st.name())
                    .description("1 for the state the manager is in, 0 for the others").register(registry);
        }
        Gauge.builder("fabric.up.since", this, m -> m.snapshot.upSinceEpochMillis() / 1000.0).baseUnit("seconds")
                .description("epoch seconds since which the fabric has been UP without a failed sweep (0: not up)").register(registry);
        managerInfo = MultiGauge.builder("fabric.manager.info").description("1; the engine whose tables are in the switches, the daemon's version")
                .register(registry);
        managerInfo("");
    }

    /** {@code fabric_manager_info}'s one series, for the engine whose tables are in the switches now. */
    private void managerInfo(String engine) {
        managerInfo.register(List.of(MultiGauge.Row.of(Tags.of("engine", engine, "version", VersionProvider.version()), 1)), true);
    }

    /**
     * This manager's SM GUID: kept in {@code sm-guid} beside the LID file, made up (random, non-zero)
     * the first time, so that a restarted manager is the same manager to the fabric; random
     * without a LID file.
     */
    static long smGuid(Path lidFile) {
        long fresh = 0;
        while (fresh == 0) {
            fresh = new SecureRandom().nextLong();
        }
        if (lidFile == null) {
            return fresh;
        }
        Path file = lidFile.resolveSibling("sm-guid");
        try {
            if (Files.exists(file)) {
                return Long.parseUnsignedLong(Files.readString(file, StandardCharsets.UTF_8).trim(), 16);
            }
            if (file.getParent() != null) {
                Files.createDirectories(file.getParent());
            }
            Files.writeString(file, Long.toHexString(fresh) + "\n", StandardCharsets.UTF_8);
        } catch (IOException | NumberFormatException e) {
            LOG.warn("cannot keep the SM GUID in {} ({}); using {} for this run only", file, e.getMessage(), Long.toHexString(fresh));
        }
        return fresh;
    }

    private static double count(FabricManager m, boolean switches) {
        Discovery.Result d = m.snapshot.discoveredNow();
        return d == null ? 0 : switches ? d.fabric().switchCount() : d.fabric().caCount();
    }

    private static Thread thread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    public Snapshot snapshot() {
        return snapshot;
    }

    /**
     * Calls {@code listener} with each new state the manager enters, on the sweep thread, in order
     * (the health service follows it); a listener must not block.
     */
    public void onStateChange(Consumer<State> listener) {
        stateListeners.add(listener);
    }

    /** Publishes a new snapshot (on the sweep thread) and tells the listeners when the state changed. */
    private void publish(Snapshot next) {
        State before = snapshot.state();
        snapshot = next;
        if (next.state() != before) {
            stateListeners.forEach(l -> l.accept(next.state()));
        }
    }

    public NodeChannels channels() {
        return channels;
    }

    /** Runs a heavy sweep now (after any sweep in progress); completes with the snapshot after it. */
    public CompletableFuture<Snapshot> sweep() {
        CompletableFuture<Snapshot> done = new CompletableFuture<>();
        sweeper.execute(() -> done.complete(heavySweep()));
        return done;
    }

    /**
     * Routes for a job's hosts (node-set syntax; empty: every host again) and pushes the tables,
     * as ANSU does before each job: validated against the fabric now, then a heavy sweep on the
     * sweep thread balances the routes for the job's pairs. Later sweeps keep the job's set until
     * it is changed.
     *
     * @throws IllegalArgumentException naming an unknown host or a bad range (nothing changes)
     */
    public CompletableFuture<Snapshot> routeJob(String nodes) {
        String set = nodes == null ? "" : nodes.strip();
        Snapshot s = snapshot;
        if (!set.isEmpty()) {
            if (s.discovered() == null) {
                throw new IllegalArgumentException("the fabric has not been discovered yet; sweep first, then route a job");
            }
            NodeSet.parse(s.discovered().fabric(), set);
        }
        CompletableFuture<Snapshot> done = new CompletableFuture<>();
        sweeper.execute(() -> {
            jobNodes = set;
            done.complete(heavySweep());
        });
        return done;
    }

    /** Sets the engines' parameters ({@code --engine-param}) the sweeps route with from now on. */
    public void engineParams(Map<String, String> params) {
        heavySweep.engineParams(params);
    }

    /** The engines' parameters the sweeps route with. */
    public Map<String, String> engineParams() {
        return heavySweep.engineParams();
    }

    /** The switches' Q-adaptive tables: read, snapshots in the state directory, restore, reseed. */
    public QTables qtables() {
        return qtables;
    }

    /** Work for the sweep thread. */
    interface SweepTask<T> {
        T call() throws Exception;
    }

    /**
     * Runs {@code task} on the sweep thread, after any sweep in progress and before the next (what
     * writes the switches' tables besides a sweep must not race its push); completes with its value
     * or what it threw.
     */
    <T> CompletableFuture<T> onSweepThread(SweepTask<T> task) {
        CompletableFuture<T> done = new CompletableFuture<>();
        try {
            sweeper.execute(() -> {
                try {
                    done.complete(task.call());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    done.completeExceptionally(e);
                } catch (Exception e) {
                    done.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException e) {
            done.completeExceptionally(Status.UNAVAILABLE.withDescription("the manager is shutting down").asRuntimeException());
        }
        return done;
    }


    /**
     * A request refused because of the fabric's state, not its form ({@code FAILED_PRECONDITION}):
     * nothing was changed.
     */
    public static final class RefusedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RefusedException(String message) {
            super(message);
        }
    }

    /**
     * Sets the engine chain and sweeps with it, once one of the engines it names has routed the
     * fabric as last discovered (on the sweep thread, before anything changes): a chain whose
     * named engines all fail here is refused with their reasons ({@link RefusedException}, the
     * chain and the tables as they were) instead of being set and silently falling back to the
     * {@code minhop} the chain appends. A chain that names its fallback ({@code torus-sssp,minhop})
     * asks for it and is set. Before the first discovery there is nothing to try: the chain is set
     * and the sweep says how it went. Later sweeps fall back along the chain as before when the
     * fabric changes under it; {@code status} names the engine whose tables are in the switches.
     *
     * @throws IllegalArgumentException an unknown engine or an empty chain (nothing changes)
     */
    public CompletableFuture<Snapshot> setEngine(String spec) {
        EngineChain parsed = EngineChain.parse(spec);
        CompletableFuture<Snapshot> done = new CompletableFuture<>();
        sweeper.execute(() -> {
            String refusal = refusal(parsed, spec);
            if (refusal != null) {
                LOG.warn(refusal);
                done.completeExceptionally(new RefusedException(refusal));
                return;
            }
            chain = parsed;
            publish(snapshot.withEngineChain(parsed.spec()));
            done.complete(heavySweep());
        });
        return done;
    }

    /** Why {@code candidate} cannot be set now (its named engines fail on the fabric as discovered), or null. */
    private String refusal(EngineChain candidate, String spec) {
        Snapshot s = snapshot;
        Discovery.Result d = s.discovered();
        if (d == null) {
            return null;
        }
        Fabric f = d.fabric();
        LidAssignment lids = s.outcome() != null && s.outcome().fabric() == f ? s.outcome().lids() : LidAssigner.assign(f, lidStore.remembered());
        String keep = "; the chain stays '" + Excerpt.bare(s.engineChain()) + "' and nothing was changed";
        try {
            EngineChain.Result r = HeavySweep.route(f, lids, candidate, jobNodes, heavySweep.engineParams());
            if (!candidate.onlyTheAppendedFallbackRouted(r)) {
                return null;
            }
            StringBuilder why = new StringBuilder("engine chain '" + Excerpt.bare(spec) + "' cannot route this fabric: ");
            for (int i = 0; i < r.failures().size(); i++) {
                why.append(i == 0 ? "" : "; ").append(r.failures().get(i).getMessage());
            }
            return why + keep + " (name minhop in the chain, e.g. '" + Excerpt.bare(spec) + ",minhop', to accept its fallback)";
        } catch (SweepException e) {
            return "engine chain '" + Excerpt.bare(spec) + "' cannot route this fabric: " + e.getMessage() + keep;
        }
    }

    /**
     * Light sweeps every {@code seconds}: each known node's record is read (one call per node,
     * fanned out) and compared with the last heavy sweep's fabric and this manager's writes
     * ({@link Drift}): a link up, down or elsewhere, a port not ACTIVE with its LID, a switch at a
     * table version this manager did not write, SMInfo naming another manager or a changed M_Key,
     * a node that stopped answering. Any of them starts a heavy sweep, which takes back what
     * someone else wrote; so a stranger's blackhole lasts at most one interval. A failed last sweep
     * is retried by a heavy sweep directly.
     */
    public void startPeriodicSweeps(long seconds) {
        sweeper.scheduleWithFixedDelay(this::lightSweep, seconds, seconds, TimeUnit.SECONDS);
    }

    /** One light sweep, on the sweep thread; returns true if it started a heavy sweep. */
    boolean lightSweep() {
        Snapshot s = snapshot;
        lightSweepCounter.increment();
        try {
            if (s.state() == State.STANDBY && s.discovered() != null) {
                if (masterGone(s.discovered())) {
                    heavySweep();
                    return true;
                }
                return false;
            }
            if (s.state() != State.UP || s.discovered() == null || s.outcome() == null) {
                heavySweep();
                return true;
            }
            var over = mastership.heartbeat(Mastership.anchor(s.discovered()));
            if (over.isPresent()) {
                standBy(s.discovered(), over.get());
                return false;
            }
            Drift.Owner owner = new Drift.Owner(mastership.config().guid(), mastership.config().mKey() != 0);
            List<String> drift = new ArrayList<>();
            for (var r : fanOut.run(s.discovered().nodes(), FanOut.Retry.NONE, n -> Drift.of(n,
                    fanOut.stub(n.endpoint()).getNodeRecord(GetNodeRecordRequest.getDefaultInstance()), s.outcome(),
                    heavySweep.writtenVersion(n.info().getNodeGuid()), owner))) {
                if (r.ok()) {
                    drift.addAll(r.value());
                } else { // a node that does not answer counts as a change
                    drift.add(r.item().info().getDescription() + " does not answer (" + FanOut.describe(r.failure()) + ")");
                }
            }
            if (drift.isEmpty()) {
                return false;
            }
            LOG.warn("light sweep: {}{}; starting a heavy sweep", String.join("; ", drift.subList(0, Math.min(3, drift.size()))),
                    drift.size() > 3 ? " and " + (drift.size() - 3) + " more" : "");
            heavySweep();
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** A standby's check of the master: every node's SMInfo, the anchor's among them (see {@link Mastership#masterGone}). */
    private boolean masterGone(Discovery.Result d) throws InterruptedException {
        DiscoveredNode anchor = Mastership.anchor(d);
        List<SmInfo> infos = new ArrayList<>();
        SmInfo anchorNow = null;
        for (var r : fanOut.run(d.nodes(), FanOut.Retry.IDEMPOTENT,
                n -> fanOut.stub(n.endpoint()).getSmInfo(GetSmInfoRequest.getDefaultInstance()))) {
            infos.add(r.ok() ? r.value() : null);
            if (r.item() == anchor && r.ok()) {
                anchorNow = r.value();
            }
        }
        return mastership.masterGone(anchor, anchorNow, infos);
    }

    private Snapshot heavySweep() {
        sweepPending.set(false);
        long t0 = System.nanoTime();
        publish(snapshot.withState(State.DISCOVERING, null));
        try {
            Discovery.Result d = discovery.discover(seed);
            long discoveryMillis = (System.nanoTime() - t0) / 1_000_000;
            var rival = mastership.rival(d);
            if (rival.isPresent()) {
                standBy(d, rival.get());
                return snapshot;
            }
            publish(snapshot.routing(d));
            Mastership.Config sm = mastership.config();
            long c0 = System.nanoTime();
            heavySweep.claim(d.nodes(), sm.guid(), sm.priority(), mastership.nextActCount());
            mastership.claimed();
            long claimMillis = (System.nanoTime() - c0) / 1_000_000;
            Map<Long, Integer> remembered = lidStore.remembered();
            HeavySweep.Outcome o = heavySweep.run(d, chain, remembered, jobNodes);
            lidStore.keep(o.lids().byPortGuidRemembering(o.fabric(), remembered));
            routingTimer.record(o.routingMillis(), TimeUnit.MILLISECONDS);
            pushTimer.record(o.pushMillis() + o.activationMillis(), TimeUnit.MILLISECONDS);
            long millis = (System.nanoTime() - t0) / 1_000_000;
            sweepTimer.record(millis, TimeUnit.MILLISECONDS);
            Snapshot before = snapshot;
            boolean changed = o.changedBlocks() > 0 || before.tableVersion() == 0;
            // up since the first sweep after the last failure: the sweep's own DISCOVERING and ROUTING do not end it
            publish(before.toBuilder().state(State.UP).discovered(d).outcome(o).tableVersion(before.tableVersion() + (changed ? 1 : 0))
                    .lastHeavySweepMillis(millis).upSinceEpochMillis(before.upSinceEpochMillis() > 0
                            ? before.upSinceEpochMillis() : System.currentTimeMillis())
                    .lastError("").heavySweeps(before.heavySweeps() + 1).build());
            if (changed) {
                TableVersionFile.write(versionFile, snapshot.tableVersion());
            }
            LOG.info("heavy sweep done in {} ms (discovery {}, claim {}, routing {}, validation {}, push {}, activation {}): {} switches, "
                    + "{} hosts, {} links; engine {}; {} LFT blocks changed, {} ports activated", millis, discoveryMillis, claimMillis,
                    o.routingMillis(), o.validationMillis(), o.pushMillis(), o.activationMillis(), d.fabric().switchCount(),
                    d.fabric().caCount(), d.fabric().linkCount(), o.tables().engine(), o.changedBlocks(), o.activatedPorts());
            managerInfo(o.tables().engine());
            subscribeTraps(d);
        } catch (DiscoveryException | SweepException | RuntimeException e) {
            sweepErrors.increment();
            LOG.error("heavy sweep failed: {}", e.getMessage());
            publish(snapshot.withState(State.FAILED, e.getMessage()).toBuilder().upSinceEpochMillis(0)
                    .discoveryFailed(e instanceof DiscoveryException).build());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return snapshot;
    }

    /** Another manager outranks this one and holds the fabric: write nothing, watch it. */
    private void standBy(Discovery.Result d, Mastership.Claim master) {
        mastership.standBy(master);
        String note = "standing by: " + master.describe() + " is master of this fabric; this manager (priority "
                + mastership.config().priority() + ") writes nothing and takes over if it stops";
        if (snapshot.state() != State.STANDBY) {
            LOG.warn(note);
        }
        publish(snapshot.standby(d, note).toBuilder().upSinceEpochMillis(0).build());
    }

    /** Subscribes to the traps of every node not yet subscribed to. */
    private void subscribeTraps(Discovery.Result d) {
        for (DiscoveredNode n : d.nodes()) {
            if (!subscribed.add(n.info().getNodeGuid())) {
                continue;
            }
            channels.async(n.endpoint()).subscribeEvents(SubscribeEventsRequest.getDefaultInstance(), new StreamObserver<>() {
                @Override
                public void onNext(Event e) {
                    trap(e);
                }

                @Override
                public void onError(Throwable t) {
                    forget(n.info().getNodeGuid());
                }

                @Override
                public void onCompleted() {
                    forget(n.info().getNodeGuid());
                }
            });
        }
    }

    /** A node's trap stream ended (the node went away, or we are closing): subscribe again at the next sweep. */
    private void forget(long guid) {
        if (!sweeper.isShutdown()) {
            sweeper.execute(() -> subscribed.remove(guid));
        }
    }

    private void trap(Event e) {
        trapCounter.increment();
        if (sweeper.isShutdown()) {
            return;
        }
        sweeper.execute(() -> publish(snapshot.withOneMoreTrap()));
        if (e.hasMKeyViolation()) {
            mKeyViolation(e.getNodeGuid(), e.getMKeyViolation());
            return;
        }
        LOG.info("trap from {}: port {} is {}", Long.toHexString(e.getNodeGuid()), e.getPortStateChange().getPortNumber(),
                e.getPortStateChange().getState());
        if (sweepPending.compareAndSet(false, true)) {
            sweeper.schedule(this::heavySweep, TRAP_DELAY_MS, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Trap 256: a node refused writes for a wrong or missing M_Key. Counted per node and logged
     * (the node sends at most 10 such traps a second, folding the rest into the next one's count);
     * nothing in the fabric changed, so no sweep follows.
     */
    private void mKeyViolation(long guid, MKeyViolation v) {
        Discovery.Result d = snapshot.discovered();
        DiscoveredNode node = d == null ? null : d.byGuid().get(guid);
        String name = node == null ? Long.toHexString(guid) : node.info().getDescription();
        Counter.builder("fabric.m_key.violations").description("writes nodes refused for a wrong or missing M_Key (IBA trap 256)")
                .tag("node", name).register(registry).increment(v.getCoalesced());
        LOG.warn("M_Key violation at {}: {} from {} refused ({} in this trap, {} at the node so far); someone without this "
                + "manager's key tried to change the node", name, v.getMethod(), v.getPeer(), v.getCoalesced(), v.getTotal());
    }

    @Override
    public void close() {
        sweeper.shutdownNow();
        io.shutdownNow();
        try {
            // a sweep interrupted mid-way may still be writing the state files (guid2lid, the table version):
            // return once it has stopped, so that whoever closed the manager may move or remove them
            if (!sweeper.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("the manager's sweep did not stop within 10 s of its close; its state files may still change");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        channels.close();
    }
}
