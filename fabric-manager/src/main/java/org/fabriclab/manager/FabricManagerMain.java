package org.fabriclab.manager;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.emulator.EmulatedFabric;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/fabric-manager}: the daemon. With {@code --emulate SPEC} it first starts an emulated
 * fabric in this JVM (the embedded default) and manages it; with {@code --seed HOST:PORT} it
 * manages a fabric already running elsewhere.
 */
@Command(name = "fabric-manager", mixinStandardHelpOptions = true, version = "fabric-manager 0.1.0",
        description = "The fabric manager daemon: discovers, routes and watches a fabric; admin gRPC and Prometheus metrics.")
public final class FabricManagerMain implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(FabricManagerMain.class);

    @Option(names = "--emulate", paramLabel = "SPEC", description = "Start an emulated fabric in this JVM (any topology spec) and manage it")
    String emulate;

    @Option(names = "--seed", paramLabel = "ENDPOINT", description = "Management endpoint of one node of a running fabric (HOST:PORT)")
    String seed;

    @Option(names = "--engine", defaultValue = "minhop", paramLabel = "CHAIN", description = "Routing-engine chain. Default: ${DEFAULT-VALUE}")
    String engine;

    @Option(names = "--admin-port", defaultValue = "50051", description = "Admin gRPC port (0 picks one). Default: ${DEFAULT-VALUE}")
    int adminPort;

    @Option(names = "--metrics-port", defaultValue = "9464", description = "Prometheus /metrics port (0 picks one). Default: ${DEFAULT-VALUE}")
    int metricsPort;

    @Option(names = "--state-dir", defaultValue = "${user.home}/.fabriclab", paramLabel = "DIR",
            description = "Where the LIDs are kept across restarts (guid2lid). Default: ${DEFAULT-VALUE}")
    Path stateDir;

    @Option(names = "--sweep-interval", defaultValue = "10", paramLabel = "SECONDS",
            description = "Periodic sweep interval; 0 sweeps only on traps and requests. Default: ${DEFAULT-VALUE}")
    long sweepInterval;

    @Option(names = "--perf-interval", defaultValue = "1000", paramLabel = "MS", description = "Port counter polling interval. Default: ${DEFAULT-VALUE}")
    long perfInterval;

    @Option(names = "--max-flow-metrics", defaultValue = "" + PerfManager.DEFAULT_MAX_FLOWS, paramLabel = "N",
            description = "Most flows (source, destination) exported with their own series; the first seen. Default: ${DEFAULT-VALUE}")
    int maxFlowMetrics;

    @Option(names = "--traffic", defaultValue = "uniform", paramLabel = "PATTERN",
            description = "Embedded mode: traffic once the fabric is up: uniform, permutation, all-to-all, group-shift or none. Default: ${DEFAULT-VALUE}")
    String traffic;

    @Option(names = "--traffic-gbps", defaultValue = "0.2", description = "Embedded mode: offered rate per host in Gbps. Default: ${DEFAULT-VALUE}")
    double trafficGbps;

    @Option(names = "--link-gbps", defaultValue = "100", description = "Embedded mode: link rate in Gbps. Default: ${DEFAULT-VALUE}")
    double linkGbps;

    @Option(names = "--link-latency-ns", defaultValue = "0", description = "Propagation delay of every link in ns (the live plane honours tens of microseconds and more). Default: ${DEFAULT-VALUE}")
    long linkLatencyNs;

    @Option(names = "--sm-priority", defaultValue = "0", paramLabel = "0..15",
            description = "Priority in the election of the master manager (IBA SMInfo): the highest configures the fabric, "
                    + "the others stand by. Default: ${DEFAULT-VALUE}")
    int smPriority;

    @Option(names = "--sm-guid", paramLabel = "HEX", description = "This manager's GUID in SMInfo. Default: made up once and kept in the state dir")
    String smGuid;

    @Option(names = "--m-key", paramLabel = "HEX", description = "M_Key to set on every node and write with; every manager of the fabric needs it. Default: none")
    String mKey;

    @Option(names = "--exit-after", defaultValue = "0", paramLabel = "SECONDS",
            description = "Stop after this long (0: run until interrupted). For scripted runs.")
    long exitAfter;

    private static long hex(String s) {
        return Long.parseUnsignedLong(s.startsWith("0x") ? s.substring(2) : s, 16);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new FabricManagerMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        if ((emulate == null) == (seed == null)) {
            System.err.println("fabric-manager: give exactly one of --emulate SPEC (embedded fabric) or --seed HOST:PORT");
            return 2;
        }
        if (smPriority < 0 || smPriority > 15) {
            System.err.println("fabric-manager: --sm-priority must be 0..15, not " + smPriority);
            return 2;
        }
        for (String[] hex : new String[][] {{"--sm-guid", smGuid}, {"--m-key", mKey}}) {
            if (hex[1] != null && !hex[1].matches("(0x)?[0-9a-fA-F]{1,16}")) {
                System.err.println("fabric-manager: " + hex[0] + " must be up to 16 hex digits, not '" + hex[1] + "'");
                return 2;
            }
        }
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new JvmMemoryMetrics().bindTo(registry);
        EmulatedFabric fabric = null;
        String seedEndpoint = seed;
        if (emulate != null) {
            Fabric topology;
            try {
                topology = Topologies.load(emulate, p -> java.nio.file.Files.newBufferedReader(Path.of(p)));
            } catch (IllegalArgumentException | java.io.IOException e) {
                System.err.println("fabric-manager: " + e.getMessage());
                return 2;
            }
            fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS.withLinkGbps(linkGbps).withLinkLatencyNs(linkLatencyNs));
            seedEndpoint = fabric.endpoint(topology.name(topology.nodeCount() - 1));
        }
        try (EmulatedFabric emulated = fabric;
             FabricManager manager = new FabricManager(seedEndpoint, engine, stateDir.resolve("guid2lid"), registry,
                     new Mastership.Config(smGuid == null ? FabricManager.smGuid(stateDir.resolve("guid2lid")) : hex(smGuid),
                             smPriority, mKey == null ? 0 : hex(mKey)));
             PerfManager perf = new PerfManager(manager, registry, perfInterval, maxFlowMetrics);
             MetricsServer metrics = new MetricsServer(registry, metricsPort)) {
            HealthStatusManager health = new HealthStatusManager();
            Server admin = NettyServerBuilder.forAddress(new InetSocketAddress(adminPort)).addService(new AdminService(manager, perf))
                    .addService(health.getHealthService()).addService(ProtoReflectionServiceV1.newInstance()).build().start();
            LOG.info("admin gRPC on port {}, metrics on http://localhost:{}/metrics", admin.getPort(), metrics.port());
            FabricManager.Snapshot s = manager.sweep().get();
            if (s.state() != FabricManager.State.UP) {
                LOG.error("the first heavy sweep failed: {}; the manager keeps running and retries on traps, sweeps and requests", s.lastError());
            } else if (emulated != null && !traffic.equals("none")) {
                TrafficPattern p;
                try {
                    p = TrafficPattern.parse(traffic);
                } catch (IllegalArgumentException e) {
                    throw new CommandLine.ParameterException(new CommandLine(this), "--traffic must be " + TrafficPattern.NAMES + " or none");
                }
                try {
                    emulated.startTraffic(p, trafficGbps, 2048, 0, s.outcome().tables());
                    LOG.info("traffic started: {} at {} Gbps per host", traffic, trafficGbps);
                } catch (IllegalArgumentException e) { // the pattern does not fit the fabric (group-shift without groups)
                    LOG.error("no traffic started: {}", e.getMessage());
                }
            }
            if (sweepInterval > 0) {
                manager.startPeriodicSweeps(sweepInterval);
            }
            perf.start();
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "shutdown"));
            if (exitAfter > 0) {
                stop.await(exitAfter, TimeUnit.SECONDS);
            } else {
                stop.await();
            }
            admin.shutdown().awaitTermination(5, TimeUnit.SECONDS);
        }
        return 0;
    }
}
