package org.fabriclab.emulator.live;

import io.grpc.Server;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.netty.channel.ChannelFuture;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fabriclab.agent.SwitchCabling;
import org.fabriclab.agent.core.Arrivals;
import org.fabriclab.agent.core.ClosedLoop;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.agent.core.CreditBlocks;
import org.fabriclab.agent.core.EcnMarking;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.HostRoutes;
import org.fabriclab.agent.core.SourceQueue;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.core.TrafficPlan;
import org.fabriclab.agent.link.DataLinks;
import org.fabriclab.agent.link.DilationController;
import org.fabriclab.agent.link.Frames;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.LiveLoop;
import org.fabriclab.agent.link.LiveNode;
import org.fabriclab.agent.link.LiveResponses;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.link.ModelClock;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.agent.mgmt.NodeRoutingRegistry;
import org.fabriclab.cli.BindAddress;
import org.fabriclab.cli.TimeDilation;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.proto.v1.GetNodeInfoRequest;
import org.fabriclab.proto.v1.GetPortInfoRequest;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.routing.analysis.NoLoadLatency;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.PathLanes;
import org.fabriclab.routing.fabric.Fabric;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fabric emulated in this JVM: every switch a {@link LiveSwitch}, every host a {@link LiveHost},
 * every node's management endpoint served by one in-process gRPC server that routes each call by
 * its authority, the node's GUID ({@code inproc:SERVER/GUID}), cabled as the topology says over
 * LocalChannels that share a few event loops. The manager sees only the endpoints, exactly as it
 * would across processes, and needs one channel for the whole fabric.
 *
 * <p>Nothing here is routed or configured: ports come up to INIT by the link-level hello and wait
 * for a manager to assign LIDs, write tables and activate them.
 */
public final class EmulatedFabric implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmulatedFabric.class);
    /** Prefix of in-process management endpoints. */
    public static final String INPROC = "inproc:";
    private static final AtomicInteger INSTANCES = new AtomicInteger();
    /** How long remote switches (pods starting, images pulled) may take to answer. */
    private static final long REMOTE_START_NANOS = 300_000_000_000L;

    /**
     * How the fabric is emulated; defaults by {@link #DEFAULTS}.
     *
     * @param linkLatencyNs   propagation delay of every link (see {@link LiveNode#linkLatencyNs})
     * @param managementPort  0: management endpoints in-process only ({@code inproc:SERVER/GUID}); otherwise
     *                        also one TCP gRPC server on this port (-1 picks a free one) serving every
     *                        node, endpoints {@code HOST:PORT/GUID}, for a manager in another process
     * @param processes       every switch a {@code switch-agent} process of its own, data links over TCP
     *                        (hosts stay in this JVM, on TCP links to their switches)
     * @param timeDilation    how much slower than real time the fabric runs (see {@link ModelClock}), fixed
     *                        or {@code auto}
     * @param network         where the TCP management servers bind (this one and, with {@code processes},
     *                        every switch process's: loopback unless asked), the host their endpoints
     *                        name, and switches run elsewhere (one pod per switch)
     * @param outputBufferPackets the switches' output buffer per port and lane (0: input-queued)
     * @param cc              the hosts' NIC congestion control (null: none); with DCQCN's the switches mark ECN
     * @param sourceQueuePackets each host's source queue ({@code --source-queue}; {@link SourceQueue#PACKETS} unless told)
     * @param packetBytes     the largest frame the buffers are sized for ({@link #withPacketBytes}; {@link FrameSizes#MAX_FRAME} unless told)
     */
    public record Options(int threads, int vls, int bufferPackets, double linkGbps, long linkLatencyNs, int managementPort,
                          boolean processes, TimeDilation timeDilation, Network network, int outputBufferPackets,
                          CongestionControl.Settings cc, int sourceQueuePackets, int packetBytes) {
        /**
         * Two event loops, two lanes, 8-packet buffers, input-queued switches, 100 Gbps links
         * without delay (but where the topology gives one), in-process management only, real time.
         */
        public static final Options DEFAULTS = new Options(2, 2, 8, 100, 0, 0, false, TimeDilation.REAL_TIME);

        /** Options on loopback ({@link Network#LOOPBACK}), input-queued switches. */
        public Options(int threads, int vls, int bufferPackets, double linkGbps, long linkLatencyNs, int managementPort,
                       boolean processes, TimeDilation timeDilation) {
            this(threads, vls, bufferPackets, linkGbps, linkLatencyNs, managementPort, processes, timeDilation, Network.LOOPBACK, 0, null,
                    SourceQueue.PACKETS, FrameSizes.MAX_FRAME);
        }

        public Options {
            if (packetBytes < FrameSizes.DATA_HEADER || packetBytes > FrameSizes.MAX_FRAME) {
                throw new IllegalArgumentException("the largest frame the buffers are sized for, " + packetBytes + " bytes, is outside "
                        + FrameSizes.DATA_HEADER + ".." + FrameSizes.MAX_FRAME);
            }
            if (processes && network.remoteSwitches() != null) {
                throw new IllegalArgumentException("switches run either as processes of this emulator or elsewhere (remote), not both");
            }
        }

        /**
         * Buffers sized in slots of {@code bytes}-byte frames (header and payload; {@link FrameSizes#MAX_FRAME}
         * unless told): credits count 64-byte blocks ({@link CreditBlocks}), a buffer of N packets is N
         * such frames, and a smaller frame (an ACK, a CNP, a smaller payload) takes only its blocks. A
         * run whose frames are all {@code bytes} long counts as packet-counted buffers did.
         */
        public Options withPacketBytes(int bytes) {
            return new Options(threads, vls, bufferPackets, linkGbps, linkLatencyNs, managementPort, processes, timeDilation, network,
                    outputBufferPackets, cc, sourceQueuePackets, bytes);
        }

        /** The credit unit of the fabric's links: slots of {@link #packetBytes}, header-only control packets a block. */
        public CreditBlocks creditBlocks() {
            return CreditBlocks.of(packetBytes, FrameSizes.DATA_HEADER);
        }

        /** Data lanes, input buffer and output buffer (0: input-queued) per port and lane. */
        public Options withLanes(int lanes, int buffer, int outputBuffer) {
            return new Options(threads, lanes, buffer, linkGbps, linkLatencyNs, managementPort, processes, timeDilation, network, outputBuffer, cc, sourceQueuePackets, packetBytes);
        }

        /**
         * TCP management servers (this one and every switch process's) bound to {@code address},
         * their endpoints naming it, or this machine's name for a wildcard (0.0.0.0); refused
         * (IllegalArgumentException) when it does not resolve.
         */
        public Options withManagementAddress(String address) {
            InetAddress bind = BindAddress.parse("--management-address", address);
            String host;
            try {
                host = bind.isAnyLocalAddress() ? InetAddress.getLocalHost().getHostName()
                        : BindAddress.advertised("--management-address", bind, "--advertise-host", null);
            } catch (UnknownHostException e) {
                throw new IllegalArgumentException("--management-address " + address + ": this machine has no name to advertise ("
                        + e.getMessage() + "); give --advertise-host");
            }
            return withNetwork(new Network(bind, host, network.remoteSwitches()));
        }

        public Options withNetwork(Network n) {
            return new Options(threads, vls, bufferPackets, linkGbps, linkLatencyNs, managementPort, processes, timeDilation, n, outputBufferPackets, cc, sourceQueuePackets, packetBytes);
        }

        public Options withThreads(int t) {
            return new Options(t, vls, bufferPackets, linkGbps, linkLatencyNs, managementPort, processes, timeDilation, network, outputBufferPackets, cc, sourceQueuePackets, packetBytes);
        }

        public Options withLinkGbps(double g) {
            return new Options(threads, vls, bufferPackets, g, linkLatencyNs, managementPort, processes, timeDilation, network, outputBufferPackets, cc, sourceQueuePackets, packetBytes);
        }

        public Options withLinkLatencyNs(long ns) {
            return new Options(threads, vls, bufferPackets, linkGbps, ns, managementPort, processes, timeDilation, network, outputBufferPackets, cc, sourceQueuePackets, packetBytes);
        }

        public Options withManagementPort(int port) {
            return new Options(threads, vls, bufferPackets, linkGbps, linkLatencyNs, port, processes, timeDilation, network, outputBufferPackets, cc, sourceQueuePackets, packetBytes);
        }

        public Options withProcesses(boolean p) {
            return new Options(threads, vls, bufferPackets, linkGbps, linkLatencyNs, managementPort, p, timeDilation, network, outputBufferPackets, cc, sourceQueuePackets, packetBytes);
        }

        /** The hosts' NIC congestion control {@code c} (null: none). */
        public Options withCongestionControl(CongestionControl.Settings c) {
            return new Options(threads, vls, bufferPackets, linkGbps, linkLatencyNs, managementPort, processes, timeDilation, network,
                    outputBufferPackets, c, sourceQueuePackets, packetBytes);
        }

        /** Each host's source queue, packets ({@code --source-queue}). */
        public Options withSourceQueuePackets(int packets) {
            return new Options(threads, vls, bufferPackets, linkGbps, linkLatencyNs, managementPort, processes, timeDilation, network,
                    outputBufferPackets, cc, packets, packetBytes);
        }

        public Options withTimeDilation(TimeDilation d) {
            return new Options(threads, vls, bufferPackets, linkGbps, linkLatencyNs, managementPort, processes, d, network, outputBufferPackets, cc, sourceQueuePackets, packetBytes);
        }
    }

    /**
     * Where the fabric meets the network: the TCP management server binds {@code bind}; every
     * endpoint it serves names {@code host} (what a manager elsewhere dials); with
     * {@code remoteSwitches} the switches run elsewhere (each a {@code switch-agent --topology}) and
     * this JVM runs the hosts only.
     */
    public record Network(InetAddress bind, String host, RemoteSwitches remoteSwitches) {
        /** Loopback, endpoints {@code localhost:PORT/GUID}, every node in this JVM or its processes. */
        public static final Network LOOPBACK = new Network(InetAddress.getLoopbackAddress(), "localhost", null);
    }

    /**
     * Switches run elsewhere: switch {@code K} (the K-th switch in node order) at the host
     * {@code hostPattern} names with {@link SwitchCabling#INDEX} replaced by K, serving management on
     * {@code managementPort} and accepting data links on {@code dataPort}.
     */
    public record RemoteSwitches(String hostPattern, int managementPort, int dataPort) {
        /** Parses {@code HOST_PATTERN:MANAGEMENT_PORT:DATA_PORT}, refusing (IllegalArgumentException, naming {@code option}) anything else. */
        public static RemoteSwitches parse(String option, String value) {
            String[] parts = value.split(":");
            try {
                if (parts.length == 3) {
                    RemoteSwitches r = new RemoteSwitches(SwitchCabling.checkPattern(option, parts[0]), Integer.parseInt(parts[1]),
                            Integer.parseInt(parts[2]));
                    if (r.managementPort > 0 && r.managementPort < 65536 && r.dataPort > 0 && r.dataPort < 65536) {
                        return r;
                    }
                }
            } catch (NumberFormatException e) {
                // refused below
            }
            throw new IllegalArgumentException(option + " '" + value + "' is not HOST_PATTERN:MANAGEMENT_PORT:DATA_PORT "
                    + "(fabriclab-switch-" + SwitchCabling.INDEX + ".fabriclab-switch:50100:50200)");
        }
    }

    private final Fabric fabric;
    private final Options options;
    private final DataLinks links;
    private final LiveNode[] nodes;
    private final Map<String, LiveNode> byName = new HashMap<>();
    /** Every node's management service, by GUID: behind the in-process server and the TCP one. */
    private final NodeRoutingRegistry registry = new NodeRoutingRegistry();
    private final String inprocName = "fabriclab-emulated-" + INSTANCES.incrementAndGet();
    private Server inprocServer;
    private Server tcpServer;
    /** The fabric's model time, shared by every node in this JVM (switch processes keep theirs, told D by RPC). */
    private final ModelClock clock;
    /** {@code auto}'s controller, or null (a fixed dilation). */
    private AutoDilation auto;
    private boolean closed;

    private EmulatedFabric(Fabric fabric, Options options) {
        this.fabric = fabric;
        this.options = options;
        links = switchesElsewhere() ? DataLinks.tcp(options.threads()) : DataLinks.local(options.threads());
        nodes = new LiveNode[fabric.nodeCount()];
        clock = new ModelClock(System::nanoTime, Math.max(1, options.timeDilation().dilation()));
    }

    /** Builds and starts the fabric; returns once every link's hello has been exchanged. */
    public static EmulatedFabric start(Fabric fabric, Options options) throws IOException, InterruptedException {
        EmulatedFabric e = new EmulatedFabric(fabric, options);
        try {
            e.build();
        } catch (IOException | InterruptedException | RuntimeException x) {
            e.close();
            throw x;
        }
        return e;
    }

    private void build() throws IOException, InterruptedException {
        long t0 = System.nanoTime();
        // management handlers are short and never block: run them on the caller's thread
        inprocServer = InProcessServerBuilder.forName(INPROC + inprocName).fallbackHandlerRegistry(registry).directExecutor().build().start();
        if (options.managementPort() != 0 || switchesElsewhere()) {
            tcpServer = NettyServerBuilder
                    .forAddress(new InetSocketAddress(options.network().bind(), Math.max(0, options.managementPort())))
                    .fallbackHandlerRegistry(registry).directExecutor().build().start();
        }
        if (options.processes()) {
            startSwitchProcesses();
        } else if (options.network().remoteSwitches() != null) {
            awaitRemoteSwitches(options.network().remoteSwitches());
        }
        List<ChannelFuture> listening = new ArrayList<>();
        for (int n = 0; n < fabric.nodeCount(); n++) {
            String name = fabric.name(n);
            boolean sw = fabric.isSwitch(n);
            if (sw && switchesElsewhere()) {
                continue;
            }
            ManagedNode mgmt = new ManagedNode(new ManagedNode.Identity(sw ? NodeType.NODE_TYPE_SWITCH : NodeType.NODE_TYPE_CA,
                    fabric.nodeGuid(n), name, fabric.portCount(n)));
            double[] rates = new double[fabric.portCount(n) + 1];
            Arrays.fill(rates, options.linkGbps());
            String endpoint = tcpServer == null ? endpoint(n)
                    : options.network().host() + ":" + tcpServer.getPort() + "/" + NodeRoutingRegistry.authority(fabric.nodeGuid(n));
            LiveNode node = sw ? new LiveSwitch(links.nextLoop(), mgmt, options.vls(), options.bufferPackets(),
                    options.outputBufferPackets(), options.creditBlocks(), rates, endpoint)
                    : new LiveHost(links.nextLoop(), mgmt, options.vls(), options.bufferPackets(), options.creditBlocks(), options.linkGbps(),
                            endpoint, options.cc());
            if (sw && options.cc() != null && options.cc().marking() != null) {
                ((LiveSwitch) node).ecn(options.cc().marking(), Simulation.ecnSeed(0, n));
            }
            node.linkLatencyNs(options.linkLatencyNs());
            for (int p = 1; p <= fabric.portCount(n); p++) {
                long delay = fabric.linkDelayNs(fabric.globalPort(n, p));
                if (delay >= 0) {
                    node.linkLatencyNs(p, delay); // the topology's own cable (a Dragonfly's local and global links)
                }
            }
            node.modelClock(clock);
            nodes[n] = node;
            byName.put(name, node);
            if (!switchesElsewhere()) {
                listening.add(links.listen(node)); // with switches elsewhere hosts only open links, to their switches
            }
            registry.add(mgmt);
            registry.seed(mgmt); // the last node served here answers calls to HOST:PORT without a GUID
        }
        for (ChannelFuture f : listening) {
            f.sync();
        }
        // the NICs' round trips: a host answers what it receives to its sender's host, timed as a response through the empty fabric
        LiveHost[] byEndpoint = new LiveHost[fabric.endpointCount()];
        for (int e = 0; e < byEndpoint.length; e++) {
            int n = fabric.endpointNode(e);
            if (nodes[n] instanceof LiveHost h && fabric.endpointPort(e) == fabric.globalPort(n, 1)) { // a live host serves port 1
                byEndpoint[e] = h;
            }
        }
        LiveResponses.install(new NoLoadLatency(fabric, options.linkLatencyNs(), options.linkGbps(), Frames.DATA_HEADER), byEndpoint);
        List<ChannelFuture> pending = new ArrayList<>();
        if (switchesElsewhere()) {
            // hosts keep their links to their switches cabled (a restarted switch gets them back); the switches cable each other
            for (int e = 0; e < fabric.endpointCount(); e++) {
                int g = fabric.endpointPort(e);
                cableHost(fabric.nodeOfGlobalPort(g), g - fabric.portBase(fabric.nodeOfGlobalPort(g)) + 1);
            }
        }
        for (int g = 0; g < fabric.globalPortCount() && !switchesElsewhere(); g++) {
            int peer = fabric.peerGlobalPort(g);
            if (peer > g) {
                int a = fabric.nodeOfGlobalPort(g);
                int b = fabric.nodeOfGlobalPort(peer);
                pending.add(links.connect(nodes[a], g - fabric.portBase(a) + 1, fabric.name(b), peer - fabric.portBase(b) + 1));
            }
        }
        for (ChannelFuture f : pending) {
            f.sync();
        }
        awaitLocalLinks();
        if (switchesElsewhere()) {
            awaitSwitchLinks();
        }
        if (options.timeDilation().auto()) {
            auto = new AutoDilation(clock, Arrays.stream(nodes).filter(n -> n != null).toList());
            switchAddresses.forEach((n, a) -> auto.addProcess(fabric.name(n), a.host(), a.managementPort()));
            auto.start();
        }
        LOG.info("emulated fabric up: {} switches, {} hosts, {} links in {} ms", fabric.switchCount(), fabric.caCount(),
                fabric.linkCount(), (System.nanoTime() - t0) / 1_000_000);
    }

    public Fabric fabric() {
        return fabric;
    }

    /** Where a switch run outside this JVM is: its management endpoint and the port it accepts data links on. */
    private record SwitchAddress(String host, int managementPort, int dataPort) {
    }

    /** Switches outside this JVM (processes or remote), by node. */
    private final Map<Integer, SwitchAddress> switchAddresses = new HashMap<>();
    /** Per switch node run as a process: its command line (a restart runs the same) and the process. */
    private final Map<Integer, List<String>> commands = new HashMap<>();
    private final Map<Integer, Process> processes = new HashMap<>();
    /** The host links this JVM dials to switches outside it and keeps cabled, by {@code node * 256 + port}. */
    private final Map<Integer, DataLinks.Cable> cables = new HashMap<>();
    private Path processLogs;

    /** Switches run outside this JVM: as processes it starts, or elsewhere. */
    private boolean switchesElsewhere() {
        return options.processes() || options.network().remoteSwitches() != null;
    }

    /** Where the switches a fabric runs elsewhere are, found by their numbers; waits until each answers as the topology's switch. */
    private void awaitRemoteSwitches(RemoteSwitches remote) throws IOException, InterruptedException {
        for (int n = 0; n < fabric.nodeCount(); n++) {
            if (fabric.isSwitch(n)) {
                switchAddresses.put(n, new SwitchAddress(SwitchCabling.host(remote.hostPattern(), SwitchCabling.switchIndex(fabric, n)),
                        remote.managementPort(), remote.dataPort()));
            }
        }
        long deadline = System.nanoTime() + REMOTE_START_NANOS;
        for (Map.Entry<Integer, SwitchAddress> e : switchAddresses.entrySet()) {
            SwitchAddress a = e.getValue();
            long expected = fabric.nodeGuid(e.getKey());
            io.grpc.ManagedChannel ch = NettyChannelBuilder.forAddress(a.host(), a.managementPort()).usePlaintext().build();
            try {
                while (true) {
                    try {
                        long guid = ManagementGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS)
                                .getNodeInfo(GetNodeInfoRequest.getDefaultInstance()).getNodeGuid();
                        if (guid != expected) {
                            throw new IOException("the switch at " + a.host() + ":" + a.managementPort() + " is GUID " + Long.toHexString(guid)
                                    + ", not " + fabric.name(e.getKey()) + " (" + Long.toHexString(expected) + "): it runs another topology or index");
                        }
                        break;
                    } catch (io.grpc.StatusRuntimeException x) {
                        if (System.nanoTime() > deadline) {
                            throw new IOException("switch " + fabric.name(e.getKey()) + " (number " + SwitchCabling.switchIndex(fabric, e.getKey())
                                    + ") does not answer at " + a.host() + ":" + a.managementPort() + " after " + REMOTE_START_NANOS / 1_000_000_000
                                    + " s: " + x.getStatus());
                        }
                        Thread.sleep(100);
                    }
                }
            } finally {
                ch.shutdownNow();
            }
        }
        LOG.info("{} remote switches answer ({})", switchAddresses.size(), remote.hostPattern());
    }

    /**
     * One switch-agent process per switch, cabled to each other by {@code --link} from the lower
     * node. Each is started with {@code --exit-with-parent} and a pipe on its standard input that
     * only this JVM holds, so that the switches end when it does, however it ends ({@code kill -9}
     * included: the kernel closes the pipe).
     */
    private void startSwitchProcesses() throws IOException, InterruptedException {
        processLogs = Files.createTempDirectory("fabric-switches");
        for (int n = 0; n < fabric.nodeCount(); n++) {
            if (fabric.isSwitch(n)) {
                // a switch process serves management where the fabric does (--management-address), named alike
                switchAddresses.put(n, new SwitchAddress(options.network().host(), freePort(), freePort()));
            }
        }
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int n = 0; n < fabric.nodeCount(); n++) {
            if (!fabric.isSwitch(n)) {
                continue;
            }
            SwitchAddress a = switchAddresses.get(n);
            List<String> cmd = new ArrayList<>(List.of(javaBin, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                    "org.fabriclab.agent.SwitchAgentMain", "--name", fabric.name(n), "--guid", Long.toHexString(fabric.nodeGuid(n)),
                    "--ports", Integer.toString(fabric.portCount(n)), "--management-port", Integer.toString(a.managementPort()),
                    "--data-port", Integer.toString(a.dataPort()), "--vls", Integer.toString(options.vls()),
                    "--buffer", Integer.toString(options.bufferPackets()), "--link-gbps", Double.toString(options.linkGbps()),
                    "--link-latency", options.linkLatencyNs() + "ns", "--output-buffer", Integer.toString(options.outputBufferPackets()),
                    "--packet-bytes", Integer.toString(options.packetBytes()),
                    "--exit-with-parent",
                    // its servers where the fabric's are (loopback unless asked), named alike
                    "--address", options.network().bind().getHostAddress(), "--advertise-host", options.network().host()));
            EcnMarking ecn = options.cc() == null ? null : options.cc().marking();
            if (ecn != null) {
                cmd.add("--ecn");
                cmd.add(ecn.spec());
            }
            SwitchCabling.cableDelays(fabric, n).forEach((port, delay) -> {
                cmd.add("--port-latency");
                cmd.add(port + "=" + delay); // the topology's own cables, as the in-process switches take them
            });
            for (SwitchCabling.Dial d : SwitchCabling.dials(fabric, n)) {
                cmd.add("--link");
                SwitchAddress peer = switchAddresses.get(d.peer());
                cmd.add(d.port() + "=" + peer.host() + ":" + peer.dataPort() + ":" + d.peerPort());
            }
            commands.put(n, List.copyOf(cmd));
            launch(n);
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        for (int n : commands.keySet()) {
            awaitReady(n, deadline);
        }
        LOG.info("{} switch processes up (logs in {})", switchAddresses.size(), processLogs);
    }

    /**
     * Starts switch {@code n}'s process with its command line and the fabric's time dilation now (a
     * restarted switch runs at the D the others run at, not the one they started with).
     */
    private synchronized void launch(int n) throws IOException {
        Path log = processLogs.resolve(fabric.name(n) + ".log");
        Files.deleteIfExists(log);
        List<String> cmd = new ArrayList<>(commands.get(n));
        cmd.add("--time-dilation");
        cmd.add(Double.toString(clock.dilation()));
        // this clock's line whole: the process reads the model time this JVM reads (one machine, one monotonic clock)
        ModelClock.Anchor a = clock.anchor();
        cmd.add("--clock-anchor");
        cmd.add(a.modelNs() + ":" + a.wallNs() + ":" + a.dilation());
        // standard input stays a pipe (the default), held by this JVM: the switch's --exit-with-parent watches it
        processes.put(n, new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
    }

    private void awaitReady(int n, long deadline) throws IOException, InterruptedException {
        Path log = processLogs.resolve(fabric.name(n) + ".log");
        while (!Files.exists(log) || !Files.readString(log).contains("ready management=")) {
            if (!processes.get(n).isAlive() || System.nanoTime() > deadline) {
                throw new IOException("switch process " + fabric.name(n) + (processes.get(n).isAlive() ? " did not start in 60 s" : " ended")
                        + "; see " + log);
            }
            Thread.sleep(50);
        }
    }

    /** The pids of the switch processes, by switch name (empty without {@link Options#processes}). */
    public synchronized Map<String, Long> switchProcesses() {
        Map<String, Long> m = new java.util.TreeMap<>();
        processes.forEach((n, p) -> m.put(fabric.name(n), p.pid()));
        return m;
    }

    /** Fault injection: kills switch {@code name}'s process (SIGKILL, as a crash) and waits for it to end. */
    public void killSwitch(String name) throws InterruptedException {
        Process p;
        synchronized (this) {
            p = processes.get(processNode(name));
        }
        p.destroyForcibly().waitFor();
    }

    /**
     * Starts switch {@code name}'s process again with the same command line (ports, links, lanes)
     * after {@link #killSwitch} or a crash, and waits until it is ready; its peers cable it again on
     * their own, and a manager's next sweep routes through it.
     */
    public void startSwitch(String name) throws IOException, InterruptedException {
        int n = processNode(name);
        synchronized (this) {
            if (processes.get(n).isAlive()) {
                throw new IllegalStateException("switch " + name + "'s process is still running");
            }
            launch(n);
        }
        awaitReady(n, System.nanoTime() + 60_000_000_000L);
    }

    private int processNode(String name) {
        int n = fabric.nodeByName(name).orElseThrow(() -> new IllegalArgumentException("no node named \"" + name + "\""));
        if (!commands.containsKey(n)) {
            throw new IllegalArgumentException("\"" + name + "\" does not run as a process of its own");
        }
        return n;
    }

    /** Waits until every switch process sees its cabled ports up (their hellos done). */
    /**
     * Waits until every cabled port of the nodes in this JVM is up: a connected channel still has
     * its hello to exchange, and a caller that sets port states or starts traffic as soon as the
     * fabric is up must find its links there.
     */
    private void awaitLocalLinks() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        for (int n = 0; n < fabric.nodeCount(); n++) {
            if (nodes[n] == null) {
                continue;
            }
            for (int p = 1; p <= fabric.portCount(n); p++) {
                if (fabric.peerNode(fabric.globalPort(n, p)) < 0) {
                    continue;
                }
                while (nodes[n].management().port(p).state() == PortState.PORT_STATE_DOWN) {
                    if (System.nanoTime() > deadline) {
                        throw new IOException("port " + p + " of " + fabric.name(n) + " is still down 60 s after its link was connected");
                    }
                    Thread.sleep(1);
                }
            }
        }
    }

    private void awaitSwitchLinks() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        for (Map.Entry<Integer, SwitchAddress> e : switchAddresses.entrySet()) {
            int n = e.getKey();
            io.grpc.ManagedChannel ch = NettyChannelBuilder
                    .forAddress(e.getValue().host(), e.getValue().managementPort()).usePlaintext().build();
            try {
                while (true) {
                    var info = ManagementGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS)
                            .getPortInfo(GetPortInfoRequest.getDefaultInstance());
                    long up = info.getPortsList().stream().filter(p -> p.getState() != PortState.PORT_STATE_DOWN).count();
                    long cabled = 0;
                    for (int p = 1; p <= fabric.portCount(n); p++) {
                        cabled += fabric.peerNode(fabric.globalPort(n, p)) >= 0 ? 1 : 0;
                    }
                    if (up == cabled) {
                        break;
                    }
                    if (System.nanoTime() > deadline) {
                        throw new IOException("switch " + fabric.name(n) + " has " + up + " of " + cabled + " links up after 60 s; see "
                                + (processLogs == null ? "its log" : processLogs.resolve(fabric.name(n) + ".log")));
                    }
                    Thread.sleep(50);
                }
            } finally {
                ch.shutdownNow();
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    public Options options() {
        return options;
    }

    /** The fabric's model clock (its dilation in force). */
    public ModelClock modelClock() {
        return clock;
    }

    /**
     * How far this JVM's nodes ran behind model time over the last {@code windowMillis} of wall
     * time (the fidelity monitor's worst lag of any event loop or link): whether what was measured
     * over that window is the model's, or the machine's.
     */
    public WorstLag worstLag(long windowMillis) {
        return WorstLag.of(Arrays.stream(nodes).filter(n -> n != null).toList(), windowMillis, clock);
    }

    /**
     * The in-process management endpoint of a node emulated in this JVM, e.g.
     * {@code inproc:fabriclab-emulated-1/2c9000000000a}: a seed for a manager in this JVM.
     */
    public String endpoint(String nodeName) {
        return endpoint(fabric.nodeByName(nodeName).orElseThrow(() -> new IllegalArgumentException("no node named \"" + nodeName + "\"")));
    }

    private String endpoint(int node) {
        return INPROC + inprocName + "/" + NodeRoutingRegistry.authority(fabric.nodeGuid(node));
    }

    /**
     * The TCP management endpoint of a node: {@code HOST:PORT} for a switch process,
     * {@code HOST:PORT/GUID} for a node served by this JVM's routing server (HOST {@code localhost}
     * unless another management address was asked for); null without TCP.
     */
    public String tcpEndpoint(String nodeName) {
        if (tcpServer == null) {
            return null;
        }
        int n = fabric.nodeByName(nodeName).orElseThrow(() -> new IllegalArgumentException("no node named \"" + nodeName + "\""));
        SwitchAddress a = switchAddresses.get(n);
        if (a != null) {
            return a.host() + ":" + a.managementPort();
        }
        return options.network().host() + ":" + tcpServer.getPort() + "/" + NodeRoutingRegistry.authority(fabric.nodeGuid(n));
    }

    /** The node by name. */
    public LiveNode node(String name) {
        LiveNode n = byName.get(name);
        if (n == null) {
            throw new IllegalArgumentException(fabric.nodeByName(name).isPresent() ? "switch \"" + name
                    + "\" runs in a process of its own; reach it through its management endpoint " + tcpEndpoint(name)
                    : "no node named \"" + name + "\" in " + fabric.kind());
        }
        return n;
    }

    /** Every host, in fabric order. */
    public List<LiveHost> hosts() {
        List<LiveHost> out = new ArrayList<>();
        for (LiveNode n : nodes) {
            if (n instanceof LiveHost h) {
                out.add(h);
            }
        }
        return out;
    }

    /** Every switch, in fabric order. */
    public List<LiveSwitch> switches() {
        List<LiveSwitch> out = new ArrayList<>();
        for (LiveNode n : nodes) {
            if (n instanceof LiveSwitch s) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * Starts traffic on every host by {@code pattern} over every host with a LID (the manager must
     * have assigned them), Poisson arrivals at {@code rateGbps} per host, every path on SL 0 (see
     * the overload for the engine's lanes).
     */
    public void startTraffic(TrafficPattern pattern, double rateGbps, int payloadBytes, long packetsPerHost) {
        startTraffic(pattern, rateGbps, payloadBytes, packetsPerHost, null);
    }

    /**
     * Starts traffic on every host by {@code pattern} (the core's {@link TrafficPlan}: the same
     * choices as the simulator's, group-shift by this fabric's groups, the permutation seeded the
     * same on every host) over every host with a LID, Poisson arrivals at {@code rateGbps} per
     * host, each path's SL from {@code tables}' lanes (the tables the manager routed with, hosts
     * matched by LID; null: SL 0). Source routes come from each host's own table, as the manager
     * wrote it.
     */
    public void startTraffic(TrafficPattern pattern, double rateGbps, int payloadBytes, long packetsPerHost, ForwardingTables tables) {
        startTraffic(pattern, rateGbps, payloadBytes, packetsPerHost, tables, RoutingMode.DEFAULT);
    }

    /** As {@link #startTraffic(TrafficPattern, double, int, long, ForwardingTables)}, every packet asking for {@code routingMode}. */
    public void startTraffic(TrafficPattern pattern, double rateGbps, int payloadBytes, long packetsPerHost, ForwardingTables tables,
                             RoutingMode routingMode) {
        List<Integer> hostNodes = new ArrayList<>();
        for (int n = 0; n < nodes.length; n++) {
            if (nodes[n] instanceof LiveHost) {
                hostNodes.add(n);
            }
        }
        int[] lids = new int[hostNodes.size()];
        int[] groups = new int[hostNodes.size()];
        for (int i = 0; i < lids.length; i++) {
            LiveNode h = nodes[hostNodes.get(i)];
            lids[i] = h.management().port(1).lid();
            groups[i] = fabric.group(hostNodes.get(i));
            if (lids[i] == 0) {
                throw new IllegalStateException("host " + h.name() + " has no LID yet; start traffic after the manager brought the fabric up");
            }
        }
        if (lids.length < 2) {
            return;
        }
        TrafficPlan plan = TrafficPlan.of(pattern, lids.length, groups, 1);
        if (auto != null) {
            auto.follow(options.timeDilation().dilation() == 0 ? startingDilation(lids.length, rateGbps, payloadBytes) : clock.dilation());
        }
        for (int i = 0; i < lids.length; i++) {
            ((LiveHost) nodes[hostNodes.get(i)]).start(new Traffic(lids, i, plan, lanes(tables, lids[i]), Arrivals.Mode.POISSON, rateGbps,
                    payloadBytes, packetsPerHost, i + 1L, routingMode).withSourceQueue(options.sourceQueuePackets()));
        }
    }

    /** The SL of each path from the host of {@code lid}: {@code tables}' lanes (null, or a LID they do not know: SL 0). */
    private static HostRoutes lanes(ForwardingTables tables, int lid) {
        int e = tables == null ? -1 : tables.lids().endpointOfLid(lid);
        return e < 0 ? new HostRoutes(new long[0], PathLanes.SINGLE, 0) : new HostRoutes(new long[0], tables.lanes(), e);
    }

    /**
     * Starts {@code jobs} (placed on this fabric's hosts, numbered in its endpoint order, by {@code
     * JobOptions}, the simulator's placement): each job's ranks send among themselves by its pattern
     * (the core's {@link TrafficPlan#ofJob}, seeded by the job's index as the simulator seeds it), in
     * messages of its packets of {@code payloadBytes}, Poisson at its load of {@link Options#linkGbps},
     * every packet asking for its mode or, application-aware, each message's mode chosen from the
     * host's NIC counters; each host's NIC counts what it receives of its job ({@code
     * fabric_job_*} metrics). A closed-loop job ({@link Simulation.Job#loop}) instead shares one
     * {@link LiveLoop} (the simulator's {@link ClosedLoop}) among its ranks' hosts, started once
     * every rank's host has its traffic in place: its ranks send whole messages on receipt, and its
     * rank 0's host counts its iterations. Hosts in no job keep what they send. Paths' SLs as
     * {@link #startTraffic}.
     *
     * @throws IllegalStateException if a job's host has no LID yet (start jobs after the manager brought the fabric up)
     */
    public void startJobs(List<Simulation.Job> jobs, int payloadBytes, ForwardingTables tables) {
        double offered = 0;
        int hosts = 0;
        for (int j = 0; j < jobs.size(); j++) {
            Simulation.Job job = jobs.get(j);
            int[] ranks = job.hosts();
            int[] lids = new int[ranks.length];
            int[] identity = new int[ranks.length];
            for (int r = 0; r < ranks.length; r++) {
                LiveNode h = nodes[fabric.endpointNode(ranks[r])];
                lids[r] = h.management().port(1).lid();
                identity[r] = r;
                if (lids[r] == 0) {
                    throw new IllegalStateException("host " + h.name() + " of job " + job.name() + " has no LID yet; start jobs after the "
                            + "manager brought the fabric up");
                }
            }
            // the plan numbers the ranks; the traffic's LIDs are the ranks' in rank order
            TrafficPlan plan = TrafficPlan.ofJob(job.pattern(), identity, job.messagePackets(), j + 1L);
            double gbps = job.loop() != null ? 0 : job.load() * options.linkGbps(); // a closed loop sends when its loop says
            LiveHost[] rankHosts = new LiveHost[ranks.length];
            for (int r = 0; r < ranks.length; r++) {
                rankHosts[r] = (LiveHost) nodes[fabric.endpointNode(ranks[r])];
            }
            LiveLoop loop = job.loop() == null ? null : new LiveLoop(new ClosedLoop(job.loop(), ranks.length, job.messagePackets()), rankHosts);
            CompletableFuture<?>[] started = new CompletableFuture<?>[ranks.length];
            for (int r = 0; r < ranks.length; r++) {
                started[r] = rankHosts[r].start(new Traffic(lids, r, plan, lanes(tables, lids[r]), Arrivals.Mode.POISSON, gbps, payloadBytes,
                        0, (j + 1L) * 1_000_003L + r, job.mode(), job.name(), job.appAware(), loop, options.sourceQueuePackets()));
            }
            if (loop != null) { // its first messages once every rank would count what it receives
                CompletableFuture.allOf(started).thenRun(loop::start);
                continue; // it offers what its loop lets through: nothing to choose a dilation by
            }
            offered += gbps * ranks.length;
            hosts += ranks.length;
        }
        if (auto != null && hosts > 0) {
            auto.follow(options.timeDilation().dilation() == 0 ? startingDilation(hosts, offered / hosts, payloadBytes) : clock.dilation());
        }
    }

    /**
     * What an event loop forwards faithfully (every lag within the bound), frames a second, on
     * this machine: the main job (fat-tree:k=4,levels=3 at 0.2 Gbps a host, 4.2 M frames a second
     * over the links, two loops) settled at D=45..57 on the quiet machine, about 40 k a loop; its
     * raw rate is higher (14% of the job in real time, issue 15's table: 290 k a loop) but late.
     * {@code auto} starts where the loops would forward this at half load, and the lags move it.
     */
    static final double FRAMES_PER_LOOP_SECOND = 80_000;

    /** {@code auto} with no starting D given: what the offered load needs, or the D in force if more (the lags lower it). */
    private double startingDilation(int hosts, double rateGbps, int payloadBytes) {
        double links = AutoDilation.meanLinks(fabric);
        double d = DilationController.initial(hosts, rateGbps, Frames.DATA_HEADER + payloadBytes, links, options.threads(),
                FRAMES_PER_LOOP_SECOND);
        if (d > clock.dilation()) {
            LOG.info("time dilation {} -> {}: {} hosts offering {} Gbps each in {}-byte frames over {} links on average need about "
                    + "{} frames a second of {} event loops", String.format("%.3g", clock.dilation()), String.format("%.3g", d), hosts,
                    rateGbps, Frames.DATA_HEADER + payloadBytes, String.format("%.2f", links),
                    String.format("%.3g", hosts * rateGbps * 1e9 / 8 / (Frames.DATA_HEADER + payloadBytes) * links), options.threads());
            return d;
        }
        return clock.dilation();
    }

    /**
     * {@code auto}: traffic started by other means than {@link #startTraffic} (a scenario's
     * senders) has started; D follows the lags from now on. Nothing without {@code auto}.
     */
    public void followLags() {
        if (auto != null) {
            auto.follow(clock.dilation());
        }
    }

    public void stopTraffic() {
        hosts().forEach(LiveHost::stop);
    }

    /**
     * A host's link to its switch outside this JVM (a process, or a pod), kept cabled: dialled in
     * the background, again whenever it is down, the switch's name resolved at each attempt.
     */
    private synchronized void cableHost(int host, int port) {
        int g = fabric.globalPort(host, port);
        SwitchAddress sw = switchAddresses.get(fabric.peerNode(g));
        cables.put(host * 256 + port, links.cable(nodes[host], port, InetSocketAddress.createUnresolved(sw.host(), sw.dataPort()),
                fabric.peerPort(g)));
    }

    /** Fault injection: takes down the link on {@code port} of {@code node}; both ends see it go. */
    public void linkDown(String node, int port) {
        LiveNode n = node(node);
        DataLinks.Cable c;
        synchronized (this) {
            c = cables.remove(fabric.nodeByName(node).orElseThrow() * 256 + port);
        }
        if (c != null) { // a host's link to a switch process: stop dialling it, or it comes straight back
            c.cut();
        } else {
            n.disconnect(port);
        }
    }

    /** Re-cables a link taken down by {@link #linkDown}. */
    public void linkUp(String nodeName, int port) throws InterruptedException {
        int n = fabric.nodeByName(nodeName).orElseThrow(() -> new IllegalArgumentException("no node named \"" + nodeName + "\""));
        int g = fabric.globalPort(n, port);
        int peer = fabric.peerGlobalPort(g);
        if (peer < 0) {
            throw new IllegalArgumentException("port " + port + " of " + nodeName + " is not cabled in the topology");
        }
        int b = fabric.nodeOfGlobalPort(peer);
        if (switchesElsewhere()) {
            if (nodes[n] == null || nodes[b] != null) {
                throw new IllegalArgumentException("with switch processes only a host's link to its switch is cabled from here, not "
                        + nodeName + "[" + port + "]");
            }
            cableHost(n, port);
            return;
        }
        links.connect(nodes[n], port, fabric.name(b), peer - fabric.portBase(b) + 1).sync();
    }

    /**
     * Stops the fabric: traffic, servers, links, event loops, and the switch processes (waited for,
     * then killed after 5 s). Safe to call more than once and from any thread (a shutdown hook and
     * the main thread may both close it); the second call returns once the first is done.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (auto != null) {
            auto.close();
        }
        hosts().forEach(LiveHost::stop);
        if (inprocServer != null) {
            inprocServer.shutdownNow();
        }
        if (tcpServer != null) {
            tcpServer.shutdownNow();
        }
        links.closeChannels();
        for (LiveNode n : nodes) {
            if (n != null) { // null: a node run as a process of its own
                n.releaseFrames(); // packets still queued (a host whose link went down keeps its own) would leak their buffers
            }
        }
        links.close();
        for (Process p : processes.values()) {
            p.destroy();
        }
        for (Process p : processes.values()) {
            try {
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
