package org.fabriclab.emulator.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.agent.core.CrossbarArbitration;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.SourceQueue;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.cli.EngineParamOption;
import org.fabriclab.cli.LaneOptions;
import org.fabriclab.cli.LinkOptions;
import org.fabriclab.cli.NamedValues;
import org.fabriclab.cli.SeedOption;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.cli.TopologyArg;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.DragonflyFabric;
import org.fabriclab.routing.dragonfly.QSeeds;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.format.QTableSnapshot;
import org.fabriclab.routing.format.QTableSnapshotException;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.text.Excerpt;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The options {@code emulator sim} and {@code emulator sweep} share: the fabric, its traffic and
 * the simulator's settings, everything but the engine and the load. {@link #config} is the one
 * place they become a {@link Simulation.Config}, {@link #check} the one place they are checked
 * against each other and the fabric before anything starts.
 */
public final class SimOptions {
    /** The engine parameter of Q-adaptive's seed policy, which {@code --qtable-seed} sets. */
    static final String SEED_POLICY = "qtable_seed";
    /** {@code --qtable-seed}'s prefix of a snapshot file. */
    static final String SNAPSHOT = "snapshot:";
    /** The simulated links' propagation delay unless {@code --link-latency} says otherwise. */
    static final long DEFAULT_LATENCY_NS = 100;
    /** The payload unless {@code --payload} or {@code --packet-bytes} says otherwise. */
    static final int DEFAULT_PAYLOAD = 256;

    @Option(names = "--topology", required = true, paramLabel = "SPEC", converter = TopologyArg.Converter.class,
            description = "Topology spec or file:PATH")
    TopologyArg topology;

    @Option(names = "--pattern", defaultValue = "uniform", paramLabel = "NAME", converter = SimPatterns.class, completionCandidates = SimPatterns.class,
            description = "${COMPLETION-CANDIDATES} (group-shift: every host to a random host of the next group, Dragonfly's "
                    + "adversarial traffic; adv+N: of the group N after its own, adv+1 being group-shift). Default: ${DEFAULT-VALUE}")
    TrafficPattern pattern;

    @Option(names = "--duration", defaultValue = "100us", paramLabel = "TIME", converter = TimeSpan.BareNanos.class,
            description = "Virtual time to simulate (ns, us, ms, s). Default: ${DEFAULT-VALUE}")
    TimeSpan duration;

    @Option(names = "--warmup", paramLabel = "TIME", converter = TimeSpan.BareNanos.class,
            description = "Virtual time before measuring (ns, us, ms, s). Default: a fifth of the duration")
    TimeSpan warmup;

    @Mixin
    SeedOption seed;

    @Mixin
    LinkOptions link;

    @Option(names = "--payload", paramLabel = "BYTES", description = "Payload bytes per packet. Default: " + DEFAULT_PAYLOAD)
    Integer payload;

    @Option(names = "--packet-bytes", paramLabel = "BYTES",
            description = "Bytes per packet on the wire, header (" + FrameSizes.DATA_HEADER + ") and payload: the whole frame, "
                    + "as papers give packet sizes (128 for 128-byte packets). Instead of --payload")
    Integer packetBytes;

    @Mixin
    LaneOptions lanes;

    @Option(names = "--output-buffer", defaultValue = "0", paramLabel = "PACKETS",
            description = "Output buffer per switch port and lane, in packets: 0 models input-queued switches (InfiniBand's); "
                    + "more, input-output queued ones (SST/Merlin's router, as the Q-adaptive paper simulates). Default: ${DEFAULT-VALUE}")
    int outputBuffer;

    @Option(names = "--arbitration", defaultValue = "round-robin", paramLabel = "NAME", converter = Arbitrations.class,
            completionCandidates = Arbitrations.class,
            description = "How a switch's outputs choose among the input buffers whose heads wait for them: ${COMPLETION-CANDIDATES} "
                    + "(round-robin: per output, from the one after the last it took; lru: the buffer any output took least "
                    + "recently, as SST/Merlin's crossbar, merlin.xbar_arb_lru). Default: ${DEFAULT-VALUE}")
    CrossbarArbitration arbitration;

    @Mixin
    EngineParamOption engineParams;

    @Option(names = "--qtable-seed", paramLabel = "minimal|hops|zero|snapshot:FILE",
            description = "Where q-adaptive's learning starts: a seed policy (minimal, the paper's; hops; zero), or the tables of a "
                    + "Q-table snapshot file (fabricctl qtable snapshot save writes them in the daemon's STATE_DIR/qtables/; "
                    + "--save-qtables here), which must be of this fabric. Default: the engine's qtable_seed, minimal")
    String qtableSeed;

    /**
     * {@code --qtable-seed snapshot:FILE}'s snapshot, read and checked against the fabric by {@link
     * #checkEngineParams} (against the routing's tables by {@link #route}); null for a policy or none.
     */
    private QTableSnapshot seedSnapshot;

    @Option(names = "--source-queue", defaultValue = "" + SourceQueue.PACKETS, paramLabel = "PACKETS",
            description = "Each host's source queue: packets created and not yet taken by its NIC; a full one refuses new packets "
                    + "(counted as refused). Large: an application that queues what the fabric does not take yet; small: one held "
                    + "back by its NIC, as traffic generators in packet simulators are. Default: ${DEFAULT-VALUE}")
    int sourceQueue;

    @Option(names = "--routing-mode", defaultValue = "DEFAULT", paramLabel = "MODE", converter = RoutingModes.class,
            completionCandidates = RoutingModes.class,
            description = "The routing mode every host's packets ask for, as Aries hosts choose it: ${COMPLETION-CANDIDATES}. "
                    + "Honoured by a Dragonfly's adaptive routing (ADAPTIVE_N: bias towards minimal added to UGAL's and PAR's "
                    + "non-minimal estimate; MIN_HASH, IN_ORDER minimal; NMIN_HASH non-minimal by a hash of the addresses); "
                    + "DEFAULT: none, the routing as configured. Default: ${DEFAULT-VALUE}")
    RoutingMode routingMode;

    /** The hosts' congestion control; with it the report adds cc, ccParams, networkLatencyMeanNs, controlPackets and controlShare. */
    @Mixin
    CcOptions cc;

    /** {@code --cc} and {@code --cc-param} as settings, checked by {@link #check} (null: none). */
    private CongestionControl.Settings ccSettings;

    @Option(names = "--until-steady", arity = "0..1", fallbackValue = "" + Simulation.Steady.DEFAULT_TOLERANCE, paramLabel = "TOL",
            description = "End the warm-up when the run is steady instead of after --warmup, which becomes its cap: from the start, "
                    + "in windows of --steady-window, the run is steady at the end of the first window after which the last "
                    + Simulation.Steady.WINDOWS + " windows' mean latencies and throughputs each lie within TOL of their mean "
                    + "(default " + Simulation.Steady.DEFAULT_TOLERANCE + ") and, over the last half of the run so far, the "
                    + "least-squares drift of the windows' mean latency and throughput within --steady-drift of its mean; it is then "
                    + "measured for --duration less --warmup and ends. Not steady by the cap: measured after it, as without. Adds "
                    + "steady, warmupNs (the warm-up used) and steadyAtNs to the report. Default: off")
    Double untilSteady;

    @Option(names = "--until-precise", arity = "0..1", fallbackValue = "" + Simulation.Precise.DEFAULT_REL, paramLabel = "REL",
            description = "End the measured window once its estimates are precise instead of after --duration less --warmup, which "
                    + "becomes its cap: after the warm-up (fixed, or --until-steady's), in batches (the steady window, or a "
                    + (2 * Simulation.Precise.MIN_BATCHES) + "th of the window if narrower), the run ends at the first batch's end at "
                    + "which the 95%% confidence intervals of the mean latency and of the throughput by batch means (at least "
                    + Simulation.Precise.MIN_BATCHES + " batches, doubled while their lag-1 autocorrelation is significant) are each "
                    + "within REL of the mean (default " + Simulation.Precise.DEFAULT_REL + "), and the report's mean latency (of the "
                    + "packets created in the window) within REL of the batches'. Adds precise, latencyMeanCi95Ns, "
                    + "throughputCi95, batches and batchNs to the report. Default: off")
    Double untilPrecise;

    @Option(names = "--scheduler", defaultValue = "global", paramLabel = "NAME", converter = Schedulers.class,
            description = "Experimental: how a run takes its events: global (every event in time order, every documented result's) "
                    + "or windowed (each switch with its hosts runs its events of a lookahead window together; pattern traffic only; "
                    + "a report differs from global's within the run-to-run noise; emulator sim writes the windows' counts to stderr; "
                    + "a fabric of one logical process, without delay between its switches, runs by the global loop, saying so on "
                    + "stderr). Default: ${DEFAULT-VALUE}")
    Simulation.Scheduler scheduler;

    @Option(names = "--steady-drift", paramLabel = "D",
            description = "With --until-steady: the drift its test allows over the run's last half, a fraction of the mean (0 turns "
                    + "the drift test off: the ten windows' band alone, the test before 2026-11-27's fix, which calls slow drifts "
                    + "steady). Default: " + Simulation.Steady.DEFAULT_DRIFT)
    Double steadyDrift;

    @Option(names = "--steady-window", paramLabel = "TIME", converter = TimeSpan.BareNanos.class,
            description = "With --until-steady: the width of its windows (" + 2 * Simulation.Steady.WINDOWS + " of them, "
                    + Simulation.Steady.WINDOWS + " with --steady-drift 0, must fit in the warm-up's cap). Default: a tenth of --duration "
                    + "less --warmup, or the width at which they fill --warmup if that is shorter")
    TimeSpan steadyWindow;

    @Option(names = "--adaptive", defaultValue = "on", converter = OnOff.class, paramLabel = "on|off",
            description = "on: switches choose among the AR groups of an ar-* engine (AR); off: static routing by its LFT (DR). "
                    + "Default: ${DEFAULT-VALUE}")
    OnOff.Setting adaptive;

    /**
     * Refuses what parsing alone could not: {@code --payload} with {@code --packet-bytes}, a packet
     * smaller than its header or larger than a frame, a pattern the fabric's groups cannot run.
     *
     * @throws IllegalArgumentException one line naming the option and the value
     */
    void check() {
        if (payload != null && packetBytes != null) {
            throw new IllegalArgumentException("--payload and --packet-bytes both give the packet's size; give one (--packet-bytes "
                    + packetBytes + " is --payload " + (packetBytes - FrameSizes.DATA_HEADER) + ")");
        }
        if (packetBytes != null && (packetBytes < FrameSizes.DATA_HEADER || packetBytes > FrameSizes.MAX_FRAME)) {
            throw new IllegalArgumentException("Invalid value for option '--packet-bytes': " + packetBytes + " is outside "
                    + FrameSizes.DATA_HEADER + ".." + FrameSizes.MAX_FRAME + " (a frame's header is " + FrameSizes.DATA_HEADER
                    + " bytes, its payload at most " + FrameSizes.MAX_PAYLOAD + ")");
        }
        if (payload != null && (payload < 0 || payload > FrameSizes.MAX_PAYLOAD)) {
            throw new IllegalArgumentException("Invalid value for option '--payload': " + payload + " is outside 0.." + FrameSizes.MAX_PAYLOAD);
        }
        SimPatterns.checkFits("--pattern", pattern, topology.fabric());
        ccSettings = cc.settings(link.linkGbps);
        if (untilSteady != null && !(untilSteady > 0 && untilSteady < 1)) {
            throw new IllegalArgumentException("Invalid value for option '--until-steady': " + untilSteady + " is not a tolerance in (0, 1) "
                    + "(a fraction of the mean: 0.05 is within 5%)");
        }
        if (untilPrecise != null && !(untilPrecise > 0 && untilPrecise < 1)) {
            throw new IllegalArgumentException("Invalid value for option '--until-precise': " + untilPrecise + " is not a precision in (0, 1) "
                    + "(the confidence interval's half-width over the mean: 0.01 is within 1%)");
        }
        if (steadyDrift != null && untilSteady == null) {
            throw new IllegalArgumentException("--steady-drift is a tolerance of --until-steady's test: give --until-steady too");
        }
        if (steadyDrift != null && !(steadyDrift >= 0 && steadyDrift < 1)) {
            throw new IllegalArgumentException("Invalid value for option '--steady-drift': " + steadyDrift + " is not a tolerance in [0, 1) "
                    + "(a fraction of the mean: 0.02 is a drift within 2% over the run's last half; 0 turns the drift test off)");
        }
        if (steadyWindow != null && untilSteady == null) {
            throw new IllegalArgumentException("--steady-window is the width of --until-steady's windows: give --until-steady too");
        }
        if (steadyWindow != null && steadyWindow.nanos() <= 0) {
            throw new IllegalArgumentException("Invalid value for option '--steady-window': '" + steadyWindow.text() + "' is not a width "
                    + "above 0 (e.g. 10us)");
        }
    }

    /** Payload bytes per packet: {@code --payload}, or {@code --packet-bytes} less the header, or the default. */
    int payloadBytes() {
        return packetBytes != null ? packetBytes - FrameSizes.DATA_HEADER : payload != null ? payload : DEFAULT_PAYLOAD;
    }

    /**
     * Refuses an {@code --engine-param} that no engine of {@code chains} (a chain, or the engines a
     * sweep compares, joined by commas) reads, naming those they do.
     */
    void checkEngineParams(String chains) {
        EngineParamOption.checked(engineParams.params, chains);
        if (qtableSeed == null) {
            return;
        }
        String option = "Invalid value for option '--qtable-seed': ";
        requireLearning("--qtable-seed", chains);
        if (engineParams.params.containsKey(SEED_POLICY)) {
            throw new IllegalArgumentException("--qtable-seed and --engine-param " + SEED_POLICY + " both say where learning starts; "
                    + "give one");
        }
        if (!qtableSeed.startsWith(SNAPSHOT)) {
            try {
                QSeeds.Policy.of(qtableSeed);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(option + Excerpt.quote(qtableSeed) + " is no seed; give minimal (the paper's), hops, "
                        + "zero or " + SNAPSHOT + "FILE");
            }
            return;
        }
        String file = qtableSeed.substring(SNAPSHOT.length());
        if (file.isBlank()) {
            throw new IllegalArgumentException(option + "'" + SNAPSHOT + "' names no file; give " + SNAPSHOT + "FILE");
        }
        try {
            seedSnapshot = QTableSnapshot.read(Path.of(file), file);
            DragonflyFabric df = dragonfly(topology.fabric());
            if (df != null) { // else the engine refuses the fabric, saying why
                seedSnapshot.checkFabric(df, file);
            }
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(option + file + ": no such file");
        } catch (QTableSnapshotException e) {
            throw new IllegalArgumentException(option + e.getMessage());
        } catch (IOException | InvalidPathException e) {
            throw new IllegalArgumentException(option + file + " cannot be read (" + e.getMessage() + ")");
        }
    }

    /**
     * Refuses {@code option}, a Q-table option, unless an engine of {@code chains} learns Q-tables
     * (reads {@code qtable_seed}: q-adaptive).
     */
    static void requireLearning(String option, String chains) {
        if (!EngineParamOption.readBy(chains).contains(SEED_POLICY)) {
            throw new IllegalArgumentException(option + ": " + chains + " learns no Q-tables; they are q-adaptive's (--engine q-adaptive)");
        }
    }

    /**
     * Refuses {@code option} unless {@code file} can be written: its directory exists and is
     * writable, and it is no directory.
     */
    static void requireWritable(String option, Path file) {
        if (file == null) {
            return;
        }
        Path dir = file.toAbsolutePath().getParent();
        if (Files.isDirectory(file) || dir == null || !Files.isDirectory(dir) || !Files.isWritable(dir)
                || Files.exists(file) && !Files.isWritable(file) || !creatable(file)) {
            throw new IllegalArgumentException("Invalid value for option '" + option + "': " + file + " cannot be written (its directory "
                    + "must exist and be writable)");
        }
    }

    /**
     * True if {@code file} exists or can be created (and is then removed again): the permission bits
     * do not tell, for root or on a file system such as /proc, whether a write at the end of a long
     * run would succeed.
     */
    private static boolean creatable(Path file) {
        if (Files.exists(file)) {
            return true;
        }
        try {
            Files.createFile(file);
            Files.delete(file);
            return true;
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }

    /**
     * The engine chain's tables for the fabric, seeded with {@code --seed}, with the parameters of
     * {@code --engine-param} that its engines read ({@link #checkEngineParams} first; a Q-table
     * seed is the no-congestion time of the simulated links and packets unless they say otherwise).
     */
    ForwardingTables route(String chain) throws RoutingException {
        Fabric f = topology.fabric();
        Map<String, String> params = new LinkedHashMap<>(engineParams.params);
        params.putIfAbsent("link_gbps", Double.toString(link.linkGbps));
        params.putIfAbsent("packet_bytes", Integer.toString(FrameSizes.DATA_HEADER + payloadBytes()));
        if (qtableSeed != null && seedSnapshot == null) {
            params.put(SEED_POLICY, qtableSeed);
        }
        params.keySet().retainAll(EngineParamOption.readBy(chain));
        ForwardingTables t = EngineChain.parse(chain).route(new RoutingRequest(f, LidAssigner.assign(f),
                RoutingOptions.DEFAULTS.withSeed(seed.seed).withParams(params))).tables();
        if (seedSnapshot == null || !learnsQTables(t)) {
            return t;
        }
        try {
            return t.withDragonfly(seedSnapshot.seed(t.dragonfly(), qtableSeed.substring(SNAPSHOT.length())), t.engine());
        } catch (QTableSnapshotException e) {
            throw new IllegalArgumentException("Invalid value for option '--qtable-seed': " + e.getMessage());
        }
    }

    /** {@code f} read as a Dragonfly, or null if it is none. */
    private static DragonflyFabric dragonfly(Fabric f) {
        try {
            return DragonflyFabric.of(f);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /** The tables are Q-adaptive's: each switch learns a Q-table. */
    static boolean learnsQTables(ForwardingTables t) {
        return t.dragonfly() != null && t.dragonfly().algorithm() == DragonflyAlgorithm.Q_ADAPTIVE;
    }

    /** The simulation the options describe, with {@code tables}, at the builder's default load: every option's way into the simulator. */
    Simulation.Builder config(ForwardingTables tables) {
        long durationNs = duration.nanos();
        long warmupNs = warmup == null ? durationNs / 5 : warmup.nanos();
        return Simulation.Config.builder(topology.fabric(), tables).pattern(pattern).linkGbps(link.linkGbps)
                .latencyNs(link.latencyNs(DEFAULT_LATENCY_NS)).vls(lanes.vls).bufferPackets(lanes.buffer).outputBufferPackets(outputBuffer).sourceQueuePackets(sourceQueue).payloadBytes(payloadBytes())
                .durationNs(durationNs).warmupNs(warmupNs).seed(seed.seed).adaptive(adaptive.on()).routingMode(routingMode).cc(ccSettings).arbitration(arbitration)
                .steady(untilSteady == null ? null : steady(steadyWindow == null ? 0 : steadyWindow.nanos()))
                .precise(untilPrecise == null ? null : new Simulation.Precise(untilPrecise));
    }

    /**
     * Refuses {@code --until-precise} where it has nothing to stop: flows (each phase measured over
     * its last four fifths, no one window) and a window of {@code measuredNs} too short for its
     * batches ({@code who}: the engine, in a sweep; null in {@code sim}). Before routing.
     */
    void checkPrecise(boolean flows, long measuredNs, String who) {
        if (untilPrecise == null) {
            return;
        }
        if (flows) {
            throw new IllegalArgumentException("--until-precise ends one measured window, and flows (--many-to-one, --all-to-all, "
                    + "--long-short) are measured per phase: measure them without it");
        }
        if (measuredNs > 0 && measuredNs < Simulation.Precise.MIN_BATCHES) { // not above 0: the duration's own refusal
            throw new IllegalArgumentException("--until-precise needs " + Simulation.Precise.MIN_BATCHES + " batches within the measured "
                    + "window" + (who == null ? "" : " of " + who) + " (" + measuredNs + " ns, --duration less --warmup): measure longer");
        }
    }

    /**
     * Refuses {@code --scheduler windowed} with traffic it cannot run: flows or jobs ({@code
     * flows}, {@code jobs}: whether there are any), whose state is shared between hosts of
     * different switches (as {@link Simulation#runLearning} would, but before routing).
     */
    void checkScheduler(boolean flows, boolean jobs) {
        if (scheduler == Simulation.Scheduler.WINDOWED && (flows || jobs)) {
            throw new IllegalArgumentException("--scheduler windowed (experimental) runs --pattern traffic only: " + (jobs ? "jobs" : "flows")
                    + " share state between hosts of different switches; drop --scheduler or give --scheduler global");
        }
    }

    /** {@code --scheduler}: the simulator's event loop by its lower-case name. */
    public static final class Schedulers extends NamedValues<Simulation.Scheduler> {
        public Schedulers() {
            super("scheduler", names());
        }

        private static Map<String, Simulation.Scheduler> names() {
            Map<String, Simulation.Scheduler> m = new LinkedHashMap<>();
            for (Simulation.Scheduler s : Simulation.Scheduler.values()) {
                m.put(s.name().toLowerCase(Locale.ROOT), s);
            }
            return m;
        }
    }

    /** {@code --until-steady}'s test in windows of {@code windowNs} (0: the configuration's default), with {@code --steady-drift}. */
    Simulation.Steady steady(long windowNs) {
        return new Simulation.Steady(untilSteady, windowNs, steadyDrift == null ? Simulation.Steady.DEFAULT_DRIFT : steadyDrift);
    }

    /** The pattern's name as reports write it ({@code group-shift} for adv+1: one pattern, one name). */
    String patternName() {
        return new SimPatterns().nameOf(pattern);
    }

    /**
     * A run's report, field by field as the command-line contract and the baseline reports have
     * them: {@code emulator sim}'s, and each point of {@code emulator sweep}'s. A run that measured
     * no packet (none created after the warm-up arrived) reports latency and hops as null, not 0.
     */
    Map<String, Object> report(Simulation.Config config, Simulation.Report r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("topology", topology.spec());
        m.put("routing", config.tables().engine());
        m.put("adaptive", config.adaptive() && config.tables().ar() != null
                || config.tables().dragonfly() != null && config.tables().dragonfly().algorithm().adaptive());
        m.put("pattern", patternName());
        m.put("hosts", config.fabric().endpointCount());
        m.put("switches", config.fabric().switchCount());
        m.put("seed", seed.seed);
        if (config.routingMode() != RoutingMode.DEFAULT) {
            m.put("routingMode", config.routingMode().name()); // absent by default: the reports' fields stay as they were
        }
        if (config.arbitration() != CrossbarArbitration.ROUND_ROBIN) {
            m.put("arbitration", config.arbitration().label()); // absent by default, as routingMode
        }
        m.put("offeredLoad", r.offeredLoad());
        m.put("throughput", r.throughput());
        boolean measured = r.packetsDelivered() > 0;
        m.put("latencyMeanNs", measured ? r.latencyMeanNs() : null);
        m.put("latencyP95Ns", measured ? r.latencyP95Ns() : null);
        m.put("latencyP99Ns", measured ? r.latencyP99Ns() : null);
        m.put("meanHops", measured ? r.meanHops() : null);
        m.put("packetsDelivered", r.packetsDelivered());
        m.put("packetsDropped", r.packetsDropped());
        m.put("packetsRefused", r.packetsRefused());
        m.put("outOfOrder", r.outOfOrder());
        m.put("packetHops", r.packetHops());
        m.put("events", r.events());
        m.put("simulatedNs", r.simulatedNs());
        if (config.steady() != null) { // only when asked for: the reports without --until-steady stay as they were
            m.put("steady", r.steady());
            m.put("warmupNs", r.warmupNs());
            m.put("steadyAtNs", r.steady() ? r.steadyAtNs() : null);
        }
        if (r.precision() != null) { // the same: only with --until-precise
            Simulation.Precision p = r.precision();
            m.put("precise", p.precise());
            m.put("latencyMeanCi95Ns", measured && Double.isFinite(p.latencyHalfWidthNs()) ? p.latencyHalfWidthNs() : null);
            m.put("throughputCi95", Double.isFinite(p.throughputHalfWidth()) ? p.throughputHalfWidth() : null);
            m.put("batches", p.batches());
            m.put("batchNs", p.batchNs());
        }
        m.put("wallMillis", r.wallMillis());
        m.put("eventsPerSecond", r.eventsPerSecond());
        m.put("packetHopsPerSecond", r.packetHopsPerSecond());
        m.put("cpuMillis", r.cpuMillis());
        m.put("packetHopsPerCpuSecond", r.packetHopsPerCpuSecond());
        if (cc.name != null) { // only when asked for: the reports without --cc stay as they were
            m.put("cc", cc.name);
            m.put("ccParams", ccSettings == null ? Map.of() : ccSettings.values());
            m.put("networkLatencyMeanNs", measured ? r.networkLatencyMeanNs() : null);
            m.put("controlPackets", r.controlPackets());
            m.put("controlShare", r.hostPackets() == 0 ? 0.0 : (double) r.controlPackets() / r.hostPackets());
        }
        return m;
    }
}
