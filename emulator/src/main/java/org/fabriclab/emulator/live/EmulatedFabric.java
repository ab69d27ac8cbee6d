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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fabriclab.agent.core.Arrivals;
import org.fabriclab.agent.core.HostRoutes;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.core.TrafficPlan;
import org.fabriclab.agent.link.DataLinks;
import org.fabriclab.agent.link.DilationController;
import org.fabriclab.agent.link.Frames;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.LiveNode;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.link.ModelClock;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.agent.mgmt.NodeRoutingRegistry;
import org.fabriclab.cli.TimeDilation;
import org.fabriclab.proto.v1.GetPortInfoRequest;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortState;
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

    /**
     * How the fabric is emulated; defaults by {@link #DEFAULTS}.
     *
     * @param linkLatencyNs   propagation delay of every link (see {@link LiveNode#linkLatencyNs})
     * @param managementPort  0: management endpoints in-process only ({@code inproc:SERVER/GUID}); otherwise
     *                        also one TCP gRPC server on this port (-1 picks a free one) serving every
     *                        node, endpoints {@code localhost:PORT/GUID}, for a manager in another process
     * @param processes       every switch a {@code switch-agent} process of its own, data links over TCP
     *                        (hosts stay in this JVM, on TCP links to their switches)
     * @param timeDilation    how much slower than real time the fabric runs (see {@link ModelClock}), fixed
     *                        or {@code auto}
     * @param outputBufferPackets the switches' output buffer per port and lane (0: input-queued)
     */
    public record Options(int threads, int vls, int bufferPackets, double linkGbps, long linkLatencyNs, int managementPort,
                          boolean processes, TimeDilation timeDilation, int outputBufferPackets) {
        /**
         * Two event loops, two lanes, 8-packet buffers, input-queued switches, 100 Gbps links
         * without delay (but where the topology gives one), in-process management only, real time.
         */
        public static final Options DEFAULTS = new Options(2, 2, 8, 100, 0, 0, false, TimeDilation.REAL_TIME);

        /** Input-queued switches. */
        public Options(int threads, int vls, int bufferPackets, double linkGbps, long linkLatencyNs, int managementPort,
                       boolean processes, TimeDilation timeDilation) {
            this(threads, vls, bufferPackets, linkGbps, linkLatencyNs, managementPort, processes, timeDilation, 0);
        }

        /** Data lanes, input buffer and output buffer (0: input-queued) per port and lane. */
        public Options withLanes(int lanes, int buffer, int outputBuffer) {
            return new Options(threads, lanes, buffer, linkGbps, linkLatencyNs, managementPort, processes, timeDilation, outputBuffer);
        }

        public Options withThreads(int t) {
            return new Options(t, vls, bufferPackets, linkGbps, linkLatencyNs, managementPort, processes, timeDilation, outputBufferPackets);
        }

        public Options withLinkGbps(double g) {
            return new Options(threads, vls, bufferPackets, g, linkLatencyNs, managementPort, processes, timeDilation, outputBufferPackets);
        }

        public Options withLinkLatencyNs(long ns) {
            return new Options(threads, vls, bufferPackets, linkGbps, ns, managementPort, processes, timeDilation, outputBufferPackets);
        }

        public Options withManagementPort(int port) {
            return new Options(threads, vls, bufferPackets, linkGbps, linkLatencyNs, port, processes, timeDilation, outputBufferPackets);
        }

        public Options withProcesses(boolean p) {
            return new Options(threads, vls, bufferPackets, linkGbps, linkLatencyNs, managementPort, p, timeDilation, outputBufferPackets);
        }

        public Options withTimeDilation(TimeDilation d) {
            return new Options(threads, vls, bufferPackets, linkGbps, linkLatencyNs, managementPort, processes, d, outputBufferPackets);
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

    private EmulatedFabric(Fabric fabric, Options options) {
        this.fabric = fabric;
        this.options = options;
        links = options.processes() ? DataLinks.tcp(options.threads()) : DataLinks.local(options.threads());
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
        if (options.managementPort() != 0 || options.processes()) {
            tcpServer = NettyServerBuilder
                    .forAddress(new InetSocketAddress("localhost", Math.max(0, options.managementPort())))
                    .fallbackHandlerRegistry(registry).directExecutor().build().start();
        }
        if (options.processes()) {
            startSwitchProcesses();
        }
        List<ChannelFuture> listening = new ArrayList<>();
        for (int n = 0; n < fabric.nodeCount(); n++) {
            String name = fabric.name(n);
            boolean sw = fabric.isSwitch(n);
            if (sw && options.processes()) {
                continue;
            }
            ManagedNode mgmt = new ManagedNode(new ManagedNode.Identity(sw ? NodeType.NODE_TYPE_SWITCH : NodeType.NODE_TYPE_CA,
                    fabric.nodeGuid(n), name, fabric.portCount(n)));
            double[] rates = new double[fabric.portCount(n) + 1];
            Arrays.fill(rates, options.linkGbps());
            String endpoint = tcpServer == null ? endpoint(n)
                    : "localhost:" + tcpServer.getPort() + "/" + NodeRoutingRegistry.authority(fabric.nodeGuid(n));
            LiveNode node = sw ? new LiveSwitch(links.nextLoop(), mgmt, options.vls(), options.bufferPackets(),
                    options.outputBufferPackets(), rates, endpoint)
                    : new LiveHost(links.nextLoop(), mgmt, options.vls(), options.bufferPackets(), options.linkGbps(), endpoint);
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
            if (!options.processes()) {
                listening.add(links.listen(node)); // in process mode hosts only open links, to their switch processes
            }
            registry.add(mgmt);
        }
        for (ChannelFuture f : listening) {
            f.sync();
        }
        List<ChannelFuture> pending = new ArrayList<>();
        if (options.processes()) {
            // hosts open their links to their switch processes; the switches cable each other
            for (int e = 0; e < fabric.endpointCount(); e++) {
                int g = fabric.endpointPort(e);
                int host = fabric.nodeOfGlobalPort(g);
                int sw = fabric.peerNode(g);
                pending.add(links.connect(nodes[host], g - fabric.portBase(host) + 1,
                        new InetSocketAddress("localhost", processPorts.get(sw)[1]), fabric.peerPort(g)));
            }
        }
        for (int g = 0; g < fabric.globalPortCount() && !options.processes(); g++) {
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
        if (options.processes()) {
            awaitSwitchLinks();
        }
        if (options.timeDilation().auto()) {
            auto = new AutoDilation(clock, Arrays.stream(nodes).filter(n -> n != null).toList());
            processPorts.forEach((n, pp) -> auto.addProcess(fabric.name(n), pp[0]));
            auto.start();
        }
        LOG.info("emulated fabric up: {} switches, {} hosts, {} links in {} ms", fabric.switchCount(), fabric.caCount(),
                fabric.linkCount(), (System.nanoTime() - t0) / 1_000_000);
    }

    public Fabric fabric() {
        return fabric;
    }

    private final Map<Integer, int[]> processPorts = new HashMap<>();
    private final List<Process> processes = new ArrayList<>();
    private Path processLogs;

    /** One switch-agent process per switch, cabled to each other by {@code --link} from the lower node. */
    private void startSwitchProcesses() throws IOException, InterruptedException {
        processLogs = Files.createTempDirectory("fabric-switches");
        for (int n = 0; n < fabric.nodeCount(); n++) {
            if (fabric.isSwitch(n)) {
                processPorts.put(n, new int[] {freePort(), freePort()});
            }
        }
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        for (int n = 0; n < fabric.nodeCount(); n++) {
            if (!fabric.isSwitch(n)) {
                continue;
            }
            int[] pp = processPorts.get(n);
            List<String> cmd = new ArrayList<>(List.of(javaBin, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                    "org.fabriclab.agent.SwitchAgentMain", "--name", fabric.name(n), "--guid", Long.toHexString(fabric.nodeGuid(n)),
                    "--ports", Integer.toString(fabric.portCount(n)), "--management-port", Integer.toString(pp[0]),
                    "--data-port", Integer.toString(pp[1]), "--vls", Integer.toString(options.vls()),
                    "--buffer", Integer.toString(options.bufferPackets()), "--link-gbps", Double.toString(options.linkGbps()),
                    "--link-latency", options.linkLatencyNs() + "ns", "--time-dilation", Double.toString(clock.dilation())));
            for (int p = 1; p <= fabric.portCount(n); p++) {
                int g = fabric.globalPort(n, p);
                int peer = fabric.peerNode(g);
                if (peer > n && fabric.isSwitch(peer)) {
                    cmd.add("--link");
                    cmd.add(p + "=localhost:" + processPorts.get(peer)[1] + ":" + fabric.peerPort(g));
                }
            }
            Path log = processLogs.resolve(fabric.name(n) + ".log");
            processes.add(new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start());
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        for (int n = 0; n < fabric.nodeCount(); n++) {
            if (!fabric.isSwitch(n)) {
                continue;
            }
            Path log = processLogs.resolve(fabric.name(n) + ".log");
            while (!Files.exists(log) || !Files.readString(log).contains("ready management=")) {
                if (System.nanoTime() > deadline) {
                    throw new IOException("switch process " + fabric.name(n) + " did not start in 60 s; see " + log);
                }
                Thread.sleep(50);
            }
        }
        LOG.info("{} switch processes up (logs in {})", processPorts.size(), processLogs);
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
        for (Map.Entry<Integer, int[]> e : processPorts.entrySet()) {
            int n = e.getKey();
            io.grpc.ManagedChannel ch = NettyChannelBuilder
                    .forAddress("localhost", e.getValue()[0]).usePlaintext().build();
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
                                + processLogs.resolve(fabric.name(n) + ".log"));
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
     * The TCP management endpoint of a node: {@code localhost:PORT} for a switch process,
     * {@code localhost:PORT/GUID} for a node served by this JVM's routing server; null without TCP.
     */
    public String tcpEndpoint(String nodeName) {
        if (tcpServer == null) {
            return null;
        }
        int n = fabric.nodeByName(nodeName).orElseThrow(() -> new IllegalArgumentException("no node named \"" + nodeName + "\""));
        if (processPorts.containsKey(n)) {
            return "localhost:" + processPorts.get(n)[0];
        }
        return "localhost:" + tcpServer.getPort() + "/" + NodeRoutingRegistry.authority(fabric.nodeGuid(n));
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
            HostRoutes lanes = new HostRoutes(new long[0], PathLanes.SINGLE, 0);
            if (tables != null) {
                int e = tables.lids().endpointOfLid(lids[i]);
                if (e >= 0) {
                    lanes = new HostRoutes(new long[0], tables.lanes(), e);
                }
            }
            ((LiveHost) nodes[hostNodes.get(i)]).start(new Traffic(lids, i, plan, lanes, Arrivals.Mode.POISSON, rateGbps, payloadBytes,
                    packetsPerHost, i + 1L));
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

    /** Fault injection: takes down the link on {@code port} of {@code node}; both ends see it go. */
    public void linkDown(String node, int port) {
        node(node).disconnect(port);
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
        links.connect(nodes[n], port, fabric.name(b), peer - fabric.portBase(b) + 1).sync();
    }

    @Override
    public void close() {
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
        for (Process p : processes) {
            p.destroy();
        }
        for (Process p : processes) {
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
