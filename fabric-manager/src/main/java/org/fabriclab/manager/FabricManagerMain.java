package org.fabriclab.manager;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.cli.Cli;
import org.fabriclab.cli.DeprecatedSpelling;
import org.fabriclab.cli.EngineOption;
import org.fabriclab.cli.EngineParamOption;
import org.fabriclab.cli.LaneOptions;
import org.fabriclab.cli.LinkOptions;
import org.fabriclab.cli.TimeDilationOption;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.cli.TopologyArg;
import org.fabriclab.cli.VersionProvider;
import org.fabriclab.emulator.cli.TrafficOptions;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.registry.RoutingEngines;
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

    @Option(names = "--admin-port", defaultValue = "50051", description = "Admin gRPC port (0 picks one). Default: ${DEFAULT-VALUE}")
    int adminPort;

    @Option(names = "--metrics-port", defaultValue = "9464", description = "Prometheus /metrics port (0 picks one). Default: ${DEFAULT-VALUE}")
    int metricsPort;

    @Option(names = "--state-dir", defaultValue = "${user.home}/.fabriclab", paramLabel = "DIR",
            description = "Where the LIDs are kept across restarts (guid2lid). Default: ${DEFAULT-VALUE}")
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

    @Option(names = "--metrics-address", defaultValue = "127.0.0.1", paramLabel = "ADDRESS",
            description = "Address the /metrics server binds (0.0.0.0: every interface, for a Prometheus on another machine). "
                    + "Default: ${DEFAULT-VALUE}")
    String metricsAddress;

    /** Embedded mode: the hosts' traffic once the fabric is up. */
    @Mixin
    TrafficOptions traffic;

    /** Embedded mode: the links. */
    @Mixin
    LinkOptions link;

    /** Embedded mode: the emulated fabric's time dilation. */
    @Mixin
    TimeDilationOption dilation;

    /** Embedded mode: the switches' lanes and buffers. */
    @Mixin
    LaneOptions lanes;

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

    @Option(names = "--m-key", paramLabel = "HEX", description = "M_Key to set on every node and write with; every manager of the fabric needs it. Default: none")
    String mKey;

    @Option(names = "--exit-after", defaultValue = "0", paramLabel = "TIME", converter = TimeSpan.BareSeconds.class,
            description = "Stop after this long (ms, s; 0: run until interrupted). For scripted runs. Default: ${DEFAULT-VALUE}")
    TimeSpan exitAfter;

    /** Payload bytes of the emulated hosts' packets. */
    private static final int TRAFFIC_PAYLOAD = 2048;

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

    private static long hex(String s) {
        return Long.parseUnsignedLong(s.startsWith("0x") ? s.substring(2) : s, 16);
    }

    public static void main(String[] args) {
        Cli.exit(new FabricManagerMain(), args);
    }

    @Override
    public Integer call() throws Exception {
        if ((emulate == null) == (connect == null)) {
            throw new IllegalArgumentException("give exactly one of --emulate SPEC (embedded fabric) or --connect HOST:PORT");
        }
        if (smPriority < 0 || smPriority > 15) {
            throw new IllegalArgumentException("--sm-priority must be 0..15, not " + smPriority);
        }
        for (String[] hex : new String[][] {{"--sm-guid", smGuid}, {"--m-key", mKey}}) {
            if (hex[1] != null && !hex[1].matches("(0x)?[0-9a-fA-F]{1,16}")) {
                throw new IllegalArgumentException(hex[0] + " must be up to 16 hex digits, not '" + hex[1] + "'");
            }
        }
        if (topFlows < 0) {
            throw new IllegalArgumentException("--top-flows must be 0 or more, not " + topFlows);
        }
        InetAddress metricsBind;
        try {
            metricsBind = InetAddress.getByName(metricsAddress);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("--metrics-address '" + metricsAddress + "' is not an address of this machine (" + e.getMessage() + ")");
        }
        Map<String, String> engineParams = new LinkedHashMap<>(EngineParamOption.checked(engineParam.params, engine.chain));
        if (outputBuffer < 0 || outputBuffer > SwitchCore.MAX_OUTPUT_BUFFER) {
            throw new IllegalArgumentException("--output-buffer must be 0.." + SwitchCore.MAX_OUTPUT_BUFFER + ", not " + outputBuffer);
        }
        // the emulated switches get the lanes the chain needs (Dragonfly engines up to 5) unless --vls says
        int vls = spec.commandLine().getParseResult().hasMatchedOption("--vls") ? lanes.vls : Math.max(lanes.vls, lanesNeeded(engine.chain));
        long sweepSeconds = sweepInterval.wholeSeconds("--sweep-interval");
        TrafficPattern pattern = emulate == null ? traffic.pattern("uniform") : traffic.pattern("uniform", emulate.fabric());
        PrometheusMeterRegistry registry = MetricsServer.newRegistry();
        EmulatedFabric fabric = null;
        String endpoint = connect;
        if (emulate != null) {
            Fabric topology = emulate.fabric();
            fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS.withLinkGbps(link.linkGbps).withLinkLatencyNs(link.latencyNs(0))
                    .withTimeDilation(dilation.timeDilation).withLanes(vls, lanes.buffer, outputBuffer));
            // a Q-table seed is the no-congestion time of the emulated links and the hosts' packets unless told otherwise
            engineParams.putIfAbsent("link_gbps", Double.toString(link.linkGbps));
            engineParams.putIfAbsent("packet_bytes", Integer.toString(FrameSizes.DATA_HEADER + TRAFFIC_PAYLOAD));
            engineParams.keySet().retainAll(EngineParamOption.readBy(engine.chain));
            endpoint = fabric.endpoint(topology.name(topology.nodeCount() - 1));
        }
        try (EmulatedFabric emulated = fabric;
             FabricManager manager = new FabricManager(endpoint, engine.chain, stateDir.resolve("guid2lid"), registry,
                     new Mastership.Config(smGuid == null ? FabricManager.smGuid(stateDir.resolve("guid2lid")) : hex(smGuid),
                             smPriority, mKey == null ? 0 : hex(mKey)));
             PerfManager perf = new PerfManager(manager, registry, perfInterval.millis(), topFlows);
             EmulationMonitor emulation = new EmulationMonitor(manager, registry, perfInterval.millis());
             MetricsServer metrics = new MetricsServer(registry, metricsBind, metricsPort)) {
            manager.engineParams(engineParams);
            metrics.serve("/", FabricViewSource.view(manager, perf));
            HealthStatusManager health = new HealthStatusManager();
            Server admin = NettyServerBuilder.forAddress(new InetSocketAddress(adminPort)).addService(new AdminService(manager, perf, emulation))
                    .addService(health.getHealthService()).addService(ProtoReflectionServiceV1.newInstance()).build().start();
            LOG.info("admin gRPC on port {}, metrics on http://{}:{}/metrics, the fabric view on http://{}:{}/",
                    admin.getPort(), metricsAddress, metrics.port(), metricsAddress, metrics.port());
            FabricManager.Snapshot s = manager.sweep().get();
            if (s.state() != FabricManager.State.UP) {
                LOG.error("the first heavy sweep failed: {}; the manager keeps running and retries on traps, sweeps and requests", s.lastError());
            } else if (emulated != null && pattern != null) {
                emulated.startTraffic(pattern, traffic.gbps, TRAFFIC_PAYLOAD, 0, s.outcome().tables()); // fits the fabric: checked before it started
                LOG.info("traffic started: {} at {} Gbps per host", traffic.name("uniform"), traffic.gbps);
            }
            if (sweepSeconds > 0) {
                manager.startPeriodicSweeps(sweepSeconds);
            }
            perf.start();
            emulation.start();
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "shutdown"));
            onStarted.accept(new Running(admin.getPort(), metrics.port(), emulated, manager, stop::countDown));
            if (exitAfter.nanos() > 0) {
                stop.await(exitAfter.nanos(), TimeUnit.NANOSECONDS);
            } else {
                stop.await();
            }
            admin.shutdown().awaitTermination(5, TimeUnit.SECONDS);
        }
        return 0;
    }
}
