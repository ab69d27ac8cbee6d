package org.fabriclab.manager;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.cli.BindAddress;
import org.fabriclab.cli.Cli;
import org.fabriclab.cli.DeprecatedSpelling;
import org.fabriclab.cli.EngineOption;
import org.fabriclab.cli.EngineParamOption;
import org.fabriclab.cli.LaneOptions;
import org.fabriclab.cli.LinkOptions;
import org.fabriclab.cli.Pem;
import org.fabriclab.cli.Ports;
import org.fabriclab.cli.TimeDilationOption;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.cli.TopologyArg;
import org.fabriclab.cli.VersionProvider;
import org.fabriclab.emulator.cli.CcOptions;
import org.fabriclab.emulator.cli.JobOptions;
import org.fabriclab.emulator.cli.TrafficOptions;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.sweep.HeavySweep;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.registry.RoutingEngines;
import org.fabriclab.routing.text.Excerpt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bin/fabric-manager}: the daemon. With {@code --emulate SPEC} it first starts an emulated
 * fabric in this JVM (the embedded default) and manages it; with {@code --connect HOST:PORT} it
 * manages a fabric already running elsewhere.
 */
@Command(name = "fabric-manager", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "The fabric manager daemon: discovers, routes and watches a fabric; admin gRPC and Prometheus metrics.")
public final class FabricManagerMain implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(FabricManagerMain.class);

    @Option(names = "--emulate", paramLabel = "SPEC", converter = TopologyArg.Converter.class,
            description = "Start an emulated fabric in this JVM (any topology spec) and manage it")
    TopologyArg emulate;

    @DeprecatedSpelling(names = "--seed", use = "--connect ENDPOINT")
    @Option(names = {"--connect", "--seed"}, paramLabel = "ENDPOINT",
            description = "Manage a running fabric through the management endpoint of one of its nodes (HOST:PORT or HOST:PORT/GUID, "
                    + "as 'emulator up' prints it). --seed is its old, deprecated spelling")
    String connect;

    @Mixin
    EngineOption engine;

    @Mixin
    EngineParamOption engineParam;

    @Option(names = "--admin-port", defaultValue = "50051", paramLabel = "PORT", description = "Admin gRPC port (0 picks one). Default: ${DEFAULT-VALUE}")
    int adminPort;

    @Option(names = "--admin-address", defaultValue = "127.0.0.1", paramLabel = "ADDRESS",
            description = "Address the admin gRPC server binds (0.0.0.0: every interface; then give it TLS and a token). "
                    + "Default: ${DEFAULT-VALUE}")
    String adminAddress;

    @Option(names = "--admin-tls-cert", paramLabel = "FILE",
            description = "PEM certificate chain of the admin server: with --admin-tls-key it speaks TLS only")
    Path adminTlsCert;

    @Option(names = "--admin-tls-key", paramLabel = "FILE", description = "PEM PKCS#8 private key (BEGIN PRIVATE KEY) of --admin-tls-cert")
    Path adminTlsKey;

    @Option(names = "--admin-tls-client-ca", paramLabel = "FILE",
            description = "PEM CA certificates: the admin server then takes only callers with a client certificate one of them signed")
    Path adminTlsClientCa;

    @Option(names = "--admin-token-file", paramLabel = "FILE",
            description = "File holding the admin token (its first line, 16 characters or more): calls that change the fabric "
                    + "(sweep, engine set, job route, job clear, qtable snapshot save and restore, qtable reseed), and every call "
                    + "from another machine, then need it "
                    + "(fabricctl --token-file). Without one, such calls are taken from this machine only")
    Path adminTokenFile;

    @Option(names = "--admin-reflection", description = "Serve gRPC server reflection on the admin port (off by default: it lists every call)")
    boolean adminReflection;

    @Option(names = "--metrics-port", defaultValue = "9464", paramLabel = "PORT", description = "Prometheus /metrics port (0 picks one). Default: ${DEFAULT-VALUE}")
    int metricsPort;

    @Option(names = "--state-dir", defaultValue = "${user.home}/.fabriclab", paramLabel = "DIR",
            description = "Where the LIDs (guid2lid), the table version, the SM GUID, the M_Key and Q-table snapshots (qtables/) "
                    + "are kept across restarts. Default: ${DEFAULT-VALUE}")
    Path stateDir;

    @Option(names = "--sweep-interval", defaultValue = "10s", paramLabel = "TIME", converter = TimeSpan.BareSeconds.class,
            description = "Periodic light-sweep interval, whole seconds (e.g. 10s); 0 sweeps only on traps and requests. Default: ${DEFAULT-VALUE}")
    TimeSpan sweepInterval;

    @Option(names = "--perf-interval", defaultValue = "1s", paramLabel = "TIME", converter = TimeSpan.BareMillis.class,
            description = "Port counter polling interval (ms, s). Default: ${DEFAULT-VALUE}")
    TimeSpan perfInterval;

    @DeprecatedSpelling(names = "--max-flow-metrics", use = "--top-flows K")
    @Option(names = {"--top-flows", "--max-flow-metrics"}, defaultValue = "" + PerfManager.DEFAULT_TOP_FLOWS, paramLabel = "K",
            description = "Flows exported with their own series: the K of the highest throughput over the last poll (every host's "
                    + "received total and fairness are exported whatever K). --max-flow-metrics is its old, deprecated spelling. "
                    + "Default: ${DEFAULT-VALUE}")
    int topFlows;

    @Option(names = "--metrics-address", defaultValue = BindAddress.LOOPBACK, paramLabel = "ADDRESS",
            description = "Address the /metrics server binds (0.0.0.0: every interface, for a Prometheus on another machine). "
                    + "Default: ${DEFAULT-VALUE}")
    String metricsAddress;

    /** Embedded mode: the hosts' traffic once the fabric is up. */
    @Mixin
    TrafficOptions traffic;

    /** Embedded mode: the seed of the jobs' random placement ({@code --seed} is still {@code --connect}'s old spelling here). */
    @Option(names = "--job-seed", defaultValue = "" + JobOptions.LIVE_SEED, paramLabel = "N",
            description = "Embedded mode: seed of the --job placement=random choice of hosts (the same seed places a job on the same "
                    + "hosts as emulator sim --seed and emulator up --seed). Default: ${DEFAULT-VALUE}")
    long jobSeed;

    /** Embedded mode: the hosts' jobs once the fabric is up, instead of the traffic. */
    @Mixin
    JobOptions jobOptions;

    /** Embedded mode: the links. */
    @Mixin
    LinkOptions link;

    /** Embedded mode: the emulated fabric's time dilation. */
    @Mixin
    TimeDilationOption dilation;

    /** Embedded mode: the switches' lanes and buffers. */
    @Mixin
    LaneOptions lanes;

    /** Embedded mode: the hosts' NIC congestion control. */
    @Mixin
    CcOptions cc;

    @Option(names = "--output-buffer", defaultValue = "0", paramLabel = "PACKETS",
            description = "Embedded mode: output buffer per switch port and lane, in packets (0: input-queued switches). "
                    + "Default: ${DEFAULT-VALUE}")
    int outputBuffer;

    @Spec
    CommandSpec spec;

    @Option(names = "--sm-priority", defaultValue = "0", paramLabel = "0..15",
            description = "Priority in the election of the master manager (IBA SMInfo): the highest configures the fabric, "
                    + "the others stand by. Default: ${DEFAULT-VALUE}")
    int smPriority;

    @Option(names = "--sm-guid", paramLabel = "HEX", description = "This manager's GUID in SMInfo. Default: made up once and kept in the state dir")
    String smGuid;

    @Option(names = "--m-key", paramLabel = "HEX|none",
            description = "M_Key to set on every node and write with (every manager of the fabric needs the same), or 'none' to run "
                    + "without one; 0 is refused. Default: a random key made once and kept in the state dir (m-key, mode 0600)")
    String mKey;

    @Option(names = "--m-key-file", paramLabel = "FILE",
            description = "File holding the M_Key in hex (its first line): a key shared by a primary and its standbys")
    Path mKeyFile;

    @Option(names = "--exit-after", defaultValue = "0", paramLabel = "TIME", converter = TimeSpan.BareSeconds.class,
            description = "Stop after this long (ms, s; 0: run until interrupted). For scripted runs. Default: ${DEFAULT-VALUE}")
    TimeSpan exitAfter;

    /** Payload bytes of the emulated hosts' packets. */
    private static final int TRAFFIC_PAYLOAD = FrameSizes.LIVE_PAYLOAD;

    /**
     * A daemon that is up, for a caller in this JVM (a test): the ports it serves on, its emulated
     * fabric (null with {@code --connect}), its manager, and {@code stop}, which ends it as Ctrl-C
     * does.
     */
    public record Running(int adminPort, int metricsPort, EmulatedFabric fabric, FabricManager manager, Runnable stop) {
    }

    private Consumer<Running> onStarted = r -> { };

    /** {@code c} is told once the daemon is up (first sweep done, traffic started, metrics served), on the daemon's thread. */
    public FabricManagerMain onStarted(Consumer<Running> c) {
        onStarted = c;
        return this;
    }

    /** The most data VLs any engine of the chain declares it needs. */
    private static int lanesNeeded(String chain) {
        int n = 1;
        for (String name : EngineChain.parse(chain).names()) {
            n = Math.max(n, RoutingEngines.create(name).guarantees().lanes());
        }
        return n;
    }

    /** A server started on {@code at}, or the one-line refusal of its port if another process took it since it was checked. */
    private static <T> T listening(String option, InetSocketAddress at, Callable<T> start) throws Exception {
        try {
            return start.call();
        } catch (IOException e) {
            throw Ports.inUse(option, at, e);
        }
    }

    /**
     * {@code --connect HOST:PORT[/GUID]}: its form, its port and that its host resolves, before
     * anything starts (an unresolvable host was a warning with a stack trace from gRPC's resolver,
     * every sweep). {@code inproc:} endpoints are for tests in one JVM.
     */
    static void checkEndpoint(String endpoint) {
        if (endpoint.startsWith("inproc:")) {
            return;
        }
        int slash = endpoint.indexOf('/');
        String target = slash < 0 ? endpoint : endpoint.substring(0, slash);
        int colon = target.lastIndexOf(':');
        String host = colon <= 0 ? "" : target.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(target.substring(colon + 1));
        } catch (NumberFormatException | IndexOutOfBoundsException e) {
            port = -1;
        }
        if (host.isEmpty() || port < 1 || port > 65535 || (slash >= 0 && !endpoint.substring(slash + 1).matches("[0-9a-fA-F]{1,16}"))) {
            throw new IllegalArgumentException("--connect '" + Excerpt.bare(endpoint) + "' is not HOST:PORT or HOST:PORT/GUID (a port 1..65535, "
                    + "a GUID in hex), as 'emulator up' prints it");
        }
        Ports.resolve("--connect", host);
    }

    private static long hex(String s) {
        return Long.parseUnsignedLong(s.startsWith("0x") ? s.substring(2) : s, 16);
    }

    public static void main(String[] args) {
        Cli.exit(new FabricManagerMain(), args);
    }

    /**
     * The state directory made if missing and written to once (a file created and deleted: root
     * passes every permission check, /proc refuses all the same), before anything starts: one it
     * cannot keep state in was found only by warnings after the fabric started, the M_Key's named
     * and not the option, and the LIDs, table version and SM GUID then lived for one run only.
     */
    static void checkStateDir(Path dir) {
        try {
            Files.createDirectories(dir);
            Files.delete(Files.createTempFile(dir, ".check", ""));
        } catch (IOException e) {
            String why = e instanceof FileAlreadyExistsException ? "a file, not a directory"
                    : e instanceof NoSuchFileException ? "it cannot be made there" : Pem.why(e);
            throw new IllegalArgumentException("--state-dir " + dir + ": cannot keep state there (" + why + "); give a directory "
                    + "this user can write (it keeps guid2lid, the table version, the SM GUID, the M_Key and Q-table snapshots)");
        }
    }

    @Override
    public Integer call() throws Exception {
        if ((emulate == null) == (connect == null)) {
            throw new IllegalArgumentException("give exactly one of --emulate SPEC (embedded fabric) or --connect HOST:PORT");
        }
        if (smPriority < 0 || smPriority > 15) {
            throw new IllegalArgumentException("--sm-priority must be 0..15, not " + smPriority);
        }
        if (smGuid != null && !smGuid.matches("(0x)?[0-9a-fA-F]{1,16}")) {
            throw new IllegalArgumentException("--sm-guid must be up to 16 hex digits, not '" + smGuid + "'");
        }
        if (smGuid != null && hex(smGuid) == 0) { // InfiniBand reserves GUID 0: no node has it, and the net files refuse it
            throw new IllegalArgumentException("--sm-guid 0 is no GUID (0 is reserved); give a non-zero one, or leave the option out");
        }
        Ports.check("--admin-port", adminPort);
        Ports.check("--metrics-port", metricsPort);
        if (topFlows < 0) {
            throw new IllegalArgumentException("--top-flows must be 0 or more, not " + topFlows);
        }
        InetAddress metricsBind = BindAddress.parse("--metrics-address", metricsAddress);
        InetAddress adminBind = BindAddress.parse("--admin-address", adminAddress);
        AdminServer.Config adminConfig = new AdminServer.Config(adminBind, adminPort, adminTlsCert, adminTlsKey, adminTlsClientCa,
                adminTokenFile, adminReflection);
        AdminServer.check(adminConfig); // every file read and checked before anything starts
        if (!adminBind.isLoopbackAddress() && (adminTlsCert == null || adminTokenFile == null)) {
            LOG.warn("the admin server listens on {} {}: {}", adminAddress, adminTlsCert == null ? "in plain text" : "without a token",
                    adminTlsCert == null ? "anyone on the network can read the fabric, and tokens travel unencrypted; give --admin-tls-cert "
                            + "and --admin-tls-key" : "calls that change the fabric are taken from this machine only; give --admin-token-file");
        }
        Map<String, String> engineParams = new LinkedHashMap<>(EngineParamOption.checked(engineParam.params, engine.chain));
        if (outputBuffer < 0 || outputBuffer > SwitchCore.MAX_OUTPUT_BUFFER) {
            throw new IllegalArgumentException("--output-buffer must be 0.." + SwitchCore.MAX_OUTPUT_BUFFER + ", not " + outputBuffer);
        }
        // the emulated switches get the lanes the chain needs (Dragonfly engines up to 5) unless --vls says
        int vls = spec.commandLine().getParseResult().hasMatchedOption("--vls") ? lanes.vls : Math.max(lanes.vls, lanesNeeded(engine.chain));
        long sweepSeconds = sweepInterval.wholeSeconds("--sweep-interval");
        if (perfInterval.positive("--perf-interval").millis() < 1) { // the pollers count in milliseconds
            throw new IllegalArgumentException("--perf-interval must be 1ms or more, not " + perfInterval);
        }
        long latencyNs = link.liveLatencyNs(0);
        if (connect != null) {
            checkEndpoint(connect);
        }
        // every port checked before the fabric is built: a busy one is one line, not a stack trace after the start
        InetSocketAddress adminAt = new InetSocketAddress(adminBind, adminPort);
        Ports.freeBoth("--admin-port", adminAt, "--metrics-port", new InetSocketAddress(metricsBind, metricsPort));
        if (jobOptions.given() && emulate == null) {
            throw new IllegalArgumentException("--job runs on the embedded fabric's hosts (--emulate); a fabric reached by --connect runs "
                    + "its jobs itself (emulator up --job)");
        }
        List<Simulation.Job> jobs = emulate == null ? List.of() : jobOptions.placeLive(emulate.fabric(), traffic, link.linkGbps, TRAFFIC_PAYLOAD, jobSeed);
        TrafficPattern pattern = !jobs.isEmpty() ? null
                : emulate == null ? traffic.pattern("uniform") : traffic.pattern("uniform", emulate.fabric(), link.linkGbps);
        CongestionControl.Settings ccSettings = cc.settings(link.linkGbps);
        if (ccSettings != null && emulate == null) {
            throw new IllegalArgumentException("--cc sets the embedded fabric's hosts (--emulate); a fabric reached by --connect runs "
                    + "its hosts' congestion control itself (emulator up --cc)");
        }
        // the state directory last of the checks, as it is made here: a command refused for another reason leaves none behind
        checkStateDir(stateDir);
        QTables.checkSeedSnapshot(stateDir, engineParams.get(HeavySweep.QTABLE_SEED));
        long key = MKeys.resolve(mKey, mKeyFile, stateDir);
        if (key == 0) {
            LOG.warn("--m-key none: no M_Key guards the nodes; any process that reaches their management endpoints can rewrite "
                    + "their tables and SMInfo (this manager repairs tables at its next light sweep, but cannot take back a node "
                    + "on which another party has set a key)");
        }
        PrometheusMeterRegistry registry = MetricsServer.newRegistry();
        EmulatedFabric fabric = null;
        String endpoint = connect;
        if (emulate != null) {
            Fabric topology = emulate.fabric();
            fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS.withLinkGbps(link.linkGbps).withLinkLatencyNs(latencyNs)
                    .withTimeDilation(dilation.timeDilation).withLanes(vls, lanes.buffer, outputBuffer).withCongestionControl(ccSettings)
                    .withSourceQueuePackets(traffic.sourceQueuePackets()).withPacketBytes(FrameSizes.DATA_HEADER + TRAFFIC_PAYLOAD));
            // a Q-table seed is the no-congestion time of the emulated links and the hosts' packets unless told otherwise
            engineParams.putIfAbsent("link_gbps", Double.toString(link.linkGbps));
            engineParams.putIfAbsent("packet_bytes", Integer.toString(FrameSizes.DATA_HEADER + TRAFFIC_PAYLOAD));
            engineParams.keySet().retainAll(EngineParamOption.readBy(engine.chain));
            endpoint = fabric.endpoint(topology.name(topology.nodeCount() - 1));
        }
        try (EmulatedFabric emulated = fabric;
             FabricManager manager = new FabricManager(endpoint, engine.chain, stateDir.resolve("guid2lid"), registry,
                     new Mastership.Config(smGuid == null ? FabricManager.smGuid(stateDir.resolve("guid2lid")) : hex(smGuid),
                             smPriority, key));
             PerfManager perf = new PerfManager(manager, registry, perfInterval.millis(), topFlows);
             EmulationMonitor emulation = new EmulationMonitor(manager, registry, perfInterval.millis());
             MetricsServer metrics = listening("--metrics-port", new InetSocketAddress(metricsBind, metricsPort),
                     () -> new MetricsServer(registry, metricsBind, metricsPort))) {
            manager.engineParams(engineParams);
            metrics.serve("/", FabricViewSource.view(manager, perf));
            ManagerHealth health = new ManagerHealth(manager);
            AdminServer admin = listening("--admin-port", adminAt,
                    () -> AdminServer.start(adminConfig, new AdminService(manager, perf, emulation), health.service()));
            LOG.info("admin gRPC on {}:{} ({}{}{}), metrics on http://{}:{}/metrics, the fabric view on http://{}:{}/", adminAddress,
                    admin.port(), adminTlsCert == null ? "plain text" : adminTlsClientCa == null ? "TLS" : "TLS with client certificates",
                    adminTokenFile == null ? ", no token" : ", token", adminReflection ? ", reflection" : "",
                    metricsAddress, metrics.port(), metricsAddress, metrics.port());
            FabricManager.Snapshot s = manager.sweep().get();
            if (s.state() != FabricManager.State.UP) {
                LOG.error("the first heavy sweep failed: {}; the manager keeps running and retries on traps, sweeps and requests", s.lastError());
            } else if (emulated != null && !jobs.isEmpty()) {
                emulated.startJobs(jobs, TRAFFIC_PAYLOAD, s.outcome().tables()); // placed: checked before the fabric started
                LOG.info("jobs started: {}", jobs.stream().map(Simulation.Job::name).collect(Collectors.joining(", ")));
            } else if (emulated != null && pattern != null) {
                emulated.startTraffic(pattern, traffic.gbps, TRAFFIC_PAYLOAD, 0, s.outcome().tables(), traffic.routingMode); // fits the fabric: checked before it started
                LOG.info("traffic started: {} at {} Gbps per host", traffic.name("uniform"), traffic.gbps);
            }
            if (sweepSeconds > 0) {
                manager.startPeriodicSweeps(sweepSeconds);
            }
            perf.start();
            emulation.start();
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "shutdown"));
            onStarted.accept(new Running(admin.port(), metrics.port(), emulated, manager, stop::countDown));
            if (exitAfter.nanos() > 0) {
                stop.await(exitAfter.nanos(), TimeUnit.NANOSECONDS);
            } else {
                stop.await();
            }
            health.shutdown();
            admin.shutdown(5);
        }
        return 0;
    }
}
