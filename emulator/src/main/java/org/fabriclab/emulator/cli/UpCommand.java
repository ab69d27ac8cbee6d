package org.fabriclab.emulator.cli;

import com.sun.management.OperatingSystemMXBean;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.fabriclab.agent.SwitchCabling;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.cli.BindAddress;
import org.fabriclab.cli.LinkOptions;
import org.fabriclab.cli.Ports;
import org.fabriclab.cli.TimeDilationOption;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.cli.TopologyArg;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.routing.fabric.Fabric;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code emulator up}: a fabric in this JVM, its management endpoints on one TCP port. */
@Command(name = "up", mixinStandardHelpOptions = true,
        description = "Start a fabric in this JVM; every node's management endpoint is served on one TCP port as HOST:PORT/GUID.")
public final class UpCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--topology", required = true, paramLabel = "SPEC", converter = TopologyArg.Converter.class,
            description = "Topology spec or file:PATH")
    TopologyArg topology;

    /** Payload bytes of the live hosts' packets. */
    static final int PAYLOAD_BYTES = FrameSizes.LIVE_PAYLOAD;

    /** EmulatedFabric's "TCP on a free port" (its 0 means in-process only, which this command cannot serve). */
    private static final int ANY_TCP_PORT = -1;

    @Option(names = "--management-port", defaultValue = "50100", paramLabel = "PORT", description = "TCP port of the management server (0: any free port, printed). Default: ${DEFAULT-VALUE}")
    int port;

    @Mixin
    LinkOptions link;

    @Mixin
    TimeDilationOption dilation;

    @Option(names = "--threads", defaultValue = "2", description = "Event loops for the data plane. Default: ${DEFAULT-VALUE}")
    int threads;

    @Mixin
    TrafficOptions traffic;

    @Mixin
    JobOptions jobOptions;

    /** The seed of the jobs' random placement (placement=random); the simulator's default. */
    @Option(names = "--seed", defaultValue = "" + JobOptions.LIVE_SEED, paramLabel = "N",
            description = "Seed of the --job placement=random choice of hosts (the same seed places a job on the same hosts as "
                    + "emulator sim --seed). Default: ${DEFAULT-VALUE}")
    long seed;

    @Option(names = "--processes", description = "Run every switch as a switch-agent process of its own, data links over TCP")
    boolean processes;

    @Option(names = "--management-address", defaultValue = BindAddress.LOOPBACK, paramLabel = "ADDRESS",
            description = "Address the management server binds (0.0.0.0: every interface, for a manager on another machine). "
                    + "Default: ${DEFAULT-VALUE}")
    String managementAddress;

    @Option(names = "--advertise-host", paramLabel = "HOST",
            description = "Host name in every node's management endpoint (what a manager elsewhere dials). "
                    + "Default: localhost on loopback, else the --management-address (needed with 0.0.0.0)")
    String advertiseHost;

    @Option(names = "--switch-agents", paramLabel = "HOST_PATTERN:MGMT_PORT:DATA_PORT",
            description = "The switches run elsewhere, each a 'switch-agent --topology SPEC --switch-index K' (one pod per switch): "
                    + "switch K at HOST_PATTERN with " + SwitchCabling.INDEX + " replaced by K; this JVM runs the hosts only")
    String switchAgents;

    /** The hosts' congestion control. */
    @Mixin
    CcOptions cc;

    @Option(names = "--exit-after", defaultValue = "0", paramLabel = "TIME", converter = TimeSpan.BareSeconds.class,
            description = "Stop after this long (ms, s; 0: until interrupted). Default: ${DEFAULT-VALUE}")
    TimeSpan exitAfter;

    /**
     * What one switch process holds resident, idle: 96 MB measured (8 switch processes of
     * fat-tree:k=4,levels=2, 21:31 UTC 2026-11-27, load 5; each JVM is started with -Xmx256m and
     * grows under traffic).
     */
    static final long SWITCH_PROCESS_BYTES = 96L << 20;

    /**
     * Refuses {@code --processes} for more switch processes than the machine's memory holds even
     * idle: each is a JVM, and fat-tree:k=16,levels=3's 768 would need about 72 GB, swapping or
     * killing what else runs long before the fabric is up.
     */
    static void checkProcessesFit(int switches, long physicalBytes) {
        long need = switches * SWITCH_PROCESS_BYTES;
        if (physicalBytes > 0 && need > physicalBytes) {
            throw new IllegalArgumentException(String.format("--processes starts a JVM for each of the %,d switches, about %.1f GB idle "
                    + "(%d MB each), more than this machine's %.1f GB of memory; run the switches in this JVM (without --processes) or "
                    + "give a smaller topology", switches, need / 1e9, SWITCH_PROCESS_BYTES >> 20, physicalBytes / 1e9));
        }
    }

    /** The machine's physical memory, or 0 where the JVM cannot tell. */
    private static long physicalMemoryBytes() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof OperatingSystemMXBean os
                ? os.getTotalMemorySize() : 0;
    }

    @Override
    public Integer call() throws Exception {
        InetAddress bind = BindAddress.parse("--management-address", managementAddress);
        BindAddress.checkReachable("--management-address", bind, "--advertise-host", advertiseHost);
        EmulatedFabric.Network network = new EmulatedFabric.Network(bind,
                BindAddress.advertised("--management-address", bind, "--advertise-host", advertiseHost),
                switchAgents == null ? null : EmulatedFabric.RemoteSwitches.parse("--switch-agents", switchAgents));
        if (processes && switchAgents != null) {
            throw new IllegalArgumentException("give --processes (this emulator starts the switches) or --switch-agents (they run elsewhere), not both");
        }
        Fabric f = topology.fabric();
        int sourceQueue = traffic.sourceQueuePackets();
        List<Simulation.Job> jobs = jobOptions.placeLive(f, traffic, link.linkGbps, PAYLOAD_BYTES, seed);
        TrafficPattern pattern = traffic.pattern("none", f, link.linkGbps);
        CongestionControl.Settings ccSettings = cc.settings(link.linkGbps);
        if (ccSettings != null && ccSettings.marking() != null && switchAgents != null) {
            spec.commandLine().getErr().println("emulator up: warning: " + ccSettings.name() + " needs the switches to mark ECN; switches run "
                    + "elsewhere (--switch-agents) mark only if started with --ecn " + ccSettings.marking().spec());
            spec.commandLine().getErr().flush();
        }
        if (threads < 1 || threads > 256) {
            throw new IllegalArgumentException("--threads must be 1..256, not " + threads);
        }
        if (processes) {
            checkProcessesFit(f.switchCount(), physicalMemoryBytes());
        }
        long latencyNs = link.liveLatencyNs(0);
        Ports.check("--management-port", port);
        Ports.free("--management-port", new InetSocketAddress(network.bind(), port));
        PrintWriter out = spec.commandLine().getOut();
        try (EmulatedFabric fabric = EmulatedFabric.start(f, EmulatedFabric.Options.DEFAULTS.withThreads(threads).withLinkGbps(link.linkGbps)
                .withLinkLatencyNs(latencyNs).withManagementPort(port == 0 ? ANY_TCP_PORT : port).withProcesses(processes)
                .withTimeDilation(dilation.timeDilation).withNetwork(network).withCongestionControl(ccSettings)
                .withSourceQueuePackets(sourceQueue).withPacketBytes(FrameSizes.DATA_HEADER + PAYLOAD_BYTES))) {
            String endpoint = fabric.tcpEndpoint(f.name(f.nodeCount() - 1));
            out.println("fabric up: " + f.switchCount() + " switches, " + f.caCount() + " hosts, " + f.linkCount()
                    + " links; manage it with: bin/fabric-manager --connect " + endpoint);
            out.flush();
            CountDownLatch stop = new CountDownLatch(1);
            // the hook closes the fabric itself: the JVM halts once its hooks return, so a close left to
            // this thread after the latch may never run, and the switch processes would outlive us
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                stop.countDown();
                fabric.close();
            }, "shutdown"));
            long end = exitAfter.nanos() > 0 ? System.nanoTime() + exitAfter.nanos() : Long.MAX_VALUE;
            boolean started = pattern == null && jobs.isEmpty();
            while (!stop.await(200, TimeUnit.MILLISECONDS) && System.nanoTime() < end) {
                if (!started && fabric.hosts().stream().map(LiveHost::management)
                        .allMatch(m -> m.port(1).state() == PortState.PORT_STATE_ACTIVE && m.port(1).lid() != 0)) {
                    if (jobs.isEmpty()) {
                        fabric.startTraffic(pattern, traffic.gbps, PAYLOAD_BYTES, 0, null, traffic.routingMode); // the pattern fits the fabric: checked before it started
                        out.println("every host is active: " + traffic.name("none") + " traffic started at " + traffic.gbps + " Gbps per host");
                    } else {
                        fabric.startJobs(jobs, PAYLOAD_BYTES, null); // placed: checked before the fabric started
                        out.println("every host is active: " + jobs.size() + " job" + (jobs.size() == 1 ? "" : "s") + " started ("
                                + jobs.stream().map(Simulation.Job::name).collect(Collectors.joining(", ")) + ")");
                    }
                    out.flush();
                    started = true;
                }
            }
        }
        return 0;
    }
}
