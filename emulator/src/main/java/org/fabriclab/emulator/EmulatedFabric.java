package org.fabriclab.emulator;

import io.grpc.Server;
import io.grpc.inprocess.InProcessServerBuilder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.LiveNode;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.link.LocalLinks;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.agent.mgmt.ManagementService;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.routing.fabric.Fabric;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A fabric emulated in this JVM: every switch a {@link LiveSwitch}, every host a {@link LiveHost},
 * each serving its management endpoint on its own in-process gRPC server ({@code inproc:NAME}),
 * cabled as the topology says over LocalChannels that share a few event loops. The manager sees
 * only the endpoints, exactly as it would across processes.
 *
 * <p>Nothing here is routed or configured: ports come up to INIT by the link-level hello and wait
 * for a manager to assign LIDs, write tables and activate them.
 */
public final class EmulatedFabric implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmulatedFabric.class);
    /** Prefix of in-process management endpoints. */
    public static final String INPROC = "inproc:";

    /**
     * How the fabric is emulated; defaults by {@link #DEFAULTS}.
     *
     * @param managementPort  0: management endpoints in-process only ({@code inproc:NAME}); otherwise
     *                        also one TCP gRPC server on this port (-1 picks a free one) serving every
     *                        node, endpoints {@code localhost:PORT/GUID}, for a manager in another process
     */
    public record Options(int threads, int vls, int bufferPackets, double linkGbps, int managementPort) {
        public static final Options DEFAULTS = new Options(2, 2, 8, 100, 0);

        public Options(int threads, int vls, int bufferPackets, double linkGbps) {
            this(threads, vls, bufferPackets, linkGbps, 0);
        }
    }

    private final Fabric fabric;
    private final Options options;
    private final LocalLinks links;
    private final LiveNode[] nodes;
    private final List<Server> servers = new ArrayList<>();
    private final Map<String, LiveNode> byName = new HashMap<>();
    private final org.fabriclab.agent.mgmt.NodeRoutingRegistry tcpRegistry = new org.fabriclab.agent.mgmt.NodeRoutingRegistry();
    private Server tcpServer;

    private EmulatedFabric(Fabric fabric, Options options) {
        this.fabric = fabric;
        this.options = options;
        links = new LocalLinks(options.threads());
        nodes = new LiveNode[fabric.nodeCount()];
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
        if (options.managementPort() != 0) {
            tcpServer = io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder
                    .forAddress(new java.net.InetSocketAddress("localhost", Math.max(0, options.managementPort())))
                    .fallbackHandlerRegistry(tcpRegistry).directExecutor().build().start();
        }
        for (int n = 0; n < fabric.nodeCount(); n++) {
            String name = fabric.name(n);
            boolean sw = fabric.isSwitch(n);
            ManagedNode mgmt = new ManagedNode(new ManagedNode.Identity(sw ? NodeType.NODE_TYPE_SWITCH : NodeType.NODE_TYPE_CA,
                    fabric.nodeGuid(n), name, fabric.portCount(n)));
            double[] rates = new double[fabric.portCount(n) + 1];
            java.util.Arrays.fill(rates, options.linkGbps());
            String endpoint = tcpServer == null ? INPROC + name
                    : "localhost:" + tcpServer.getPort() + "/" + org.fabriclab.agent.mgmt.NodeRoutingRegistry.authority(fabric.nodeGuid(n));
            LiveNode node = sw ? new LiveSwitch(links.nextLoop(), mgmt, options.vls(), options.bufferPackets(), rates, endpoint)
                    : new LiveHost(links.nextLoop(), mgmt, options.vls(), options.bufferPackets(), options.linkGbps(), endpoint);
            nodes[n] = node;
            byName.put(name, node);
            links.listen(node);
            // management handlers are short and never block: run them on the caller's thread
            servers.add(InProcessServerBuilder.forName(INPROC + name).directExecutor()
                    .addService(new ManagementService(mgmt)).build().start());
            tcpRegistry.add(mgmt);
        }
        List<io.netty.channel.ChannelFuture> pending = new ArrayList<>();
        for (int g = 0; g < fabric.globalPortCount(); g++) {
            int peer = fabric.peerGlobalPort(g);
            if (peer > g) {
                int a = fabric.nodeOfGlobalPort(g);
                int b = fabric.nodeOfGlobalPort(peer);
                pending.add(links.connect(nodes[a], g - fabric.portBase(a) + 1, fabric.name(b), peer - fabric.portBase(b) + 1));
            }
        }
        for (io.netty.channel.ChannelFuture f : pending) {
            f.sync();
        }
        LOG.info("emulated fabric up: {} switches, {} hosts, {} links in {} ms", fabric.switchCount(), fabric.caCount(),
                fabric.linkCount(), (System.nanoTime() - t0) / 1_000_000);
    }

    public Fabric fabric() {
        return fabric;
    }

    public Options options() {
        return options;
    }

    /** The in-process management endpoint of a node, e.g. {@code inproc:L1_0_0}: a seed for a manager in this JVM. */
    public static String endpoint(String nodeName) {
        return INPROC + nodeName;
    }

    /** The TCP management endpoint of a node ({@code localhost:PORT/GUID}), or null without a TCP server. */
    public String tcpEndpoint(String nodeName) {
        if (tcpServer == null) {
            return null;
        }
        int n = fabric.nodeByName(nodeName).orElseThrow(() -> new IllegalArgumentException("no node named \"" + nodeName + "\""));
        return "localhost:" + tcpServer.getPort() + "/" + org.fabriclab.agent.mgmt.NodeRoutingRegistry.authority(fabric.nodeGuid(n));
    }

    /** The node by name. */
    public LiveNode node(String name) {
        LiveNode n = byName.get(name);
        if (n == null) {
            throw new IllegalArgumentException("no node named \"" + name + "\" in " + fabric.kind());
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
     * Starts traffic on every host towards every other host with a LID (the manager must have
     * assigned them): all-to-all in turn, or uniformly at random.
     */
    public void startTraffic(Traffic.Pattern pattern, double rateGbps, int payloadBytes, long packetsPerHost) {
        List<LiveHost> hosts = hosts();
        int[] lids = hosts.stream().mapToInt(h -> h.management().port(1).lid()).toArray();
        for (int i = 0; i < hosts.size(); i++) {
            if (lids[i] == 0) {
                throw new IllegalStateException("host " + hosts.get(i).name() + " has no LID yet; start traffic after the manager brought the fabric up");
            }
        }
        for (int i = 0; i < hosts.size(); i++) {
            int[] others = new int[lids.length - 1];
            for (int j = 0, k = 0; j < lids.length; j++) {
                if (j != i) {
                    others[k++] = lids[j];
                }
            }
            if (others.length > 0) {
                hosts.get(i).start(new Traffic(others, pattern, rateGbps, payloadBytes, packetsPerHost, i + 1L));
            }
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
        hosts().forEach(LiveHost::stop);
        for (Server s : servers) {
            s.shutdownNow();
        }
        if (tcpServer != null) {
            tcpServer.shutdownNow();
        }
        links.close();
    }
}
