package org.fabriclab.agent;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.fabriclab.agent.link.DataLinks;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.agent.mgmt.ManagementService;
import org.fabriclab.cli.VersionProvider;
import org.fabriclab.proto.v1.NodeType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/switch-agent}: one switch as a process. Its management endpoint is a gRPC server on
 * {@code --management-port}; its data links are TCP: it accepts links on {@code --data-port} and
 * opens the ones given with {@code --link}, retrying while the peer is not up yet. When both ports
 * are bound it prints {@code ready management=HOST:PORT data=HOST:PORT} on standard output.
 */
@Command(name = "switch-agent", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Run one emulated switch: management over gRPC, data links over TCP.")
public final class SwitchAgentMain implements Callable<Integer> {
    private static final Logger LOG = LoggerFactory.getLogger(SwitchAgentMain.class);

    @Option(names = "--name", required = true, description = "Node description (its name in topologies)")
    String name;

    @Option(names = "--guid", required = true, description = "Node GUID, hex (0x200000)")
    String guid;

    @Option(names = "--ports", required = true, description = "Number of ports")
    int ports;

    @Option(names = "--management-port", defaultValue = "0", description = "gRPC management port (0 picks one). Default: ${DEFAULT-VALUE}")
    int managementPort;

    @Option(names = "--data-port", defaultValue = "0", description = "TCP port accepting data links (0 picks one). Default: ${DEFAULT-VALUE}")
    int dataPort;

    @Option(names = "--link", paramLabel = "PORT=HOST:DATAPORT:PEERPORT",
            description = "Open a data link from our PORT to PEERPORT of the switch accepting links at HOST:DATAPORT (repeatable)")
    List<String> links = new ArrayList<>();

    @Option(names = "--vls", defaultValue = "2", description = "Virtual lanes. Default: ${DEFAULT-VALUE}")
    int vls;

    @Option(names = "--buffer", defaultValue = "8", description = "Input buffer per port and lane, in packets. Default: ${DEFAULT-VALUE}")
    int buffer;

    @Option(names = "--link-gbps", defaultValue = "100", description = "Link rate. Default: ${DEFAULT-VALUE}")
    double linkGbps;

    @Option(names = "--link-latency-ns", defaultValue = "0", description = "Propagation delay of every link in ns (the live plane honours tens of microseconds and more). Default: ${DEFAULT-VALUE}")
    long linkLatencyNs;

    public static void main(String[] args) {
        System.exit(new CommandLine(new SwitchAgentMain()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        long nodeGuid;
        try {
            nodeGuid = Long.parseUnsignedLong(guid.replaceFirst("^0[xX]", ""), 16);
        } catch (NumberFormatException e) {
            System.err.println("switch-agent: --guid " + guid + " is not a hex GUID");
            return 2;
        }
        if (ports < 1 || ports > 254) {
            System.err.println("switch-agent: --ports must be 1..254");
            return 2;
        }
        List<int[]> parsedPorts = new ArrayList<>();
        List<InetSocketAddress> peers = new ArrayList<>();
        for (String l : links) {
            String[] kv = l.split("=", 2);
            String[] parts = kv.length == 2 ? kv[1].split(":") : new String[0];
            try {
                if (parts.length != 3) {
                    throw new IllegalArgumentException();
                }
                int port = Integer.parseInt(kv[0]);
                int peerPort = Integer.parseInt(parts[2]);
                if (port < 1 || port > ports) {
                    System.err.println("switch-agent: --link " + l + ": port " + port + " is outside 1.." + ports);
                    return 2;
                }
                parsedPorts.add(new int[] {port, peerPort});
                peers.add(new InetSocketAddress(parts[0], Integer.parseInt(parts[1])));
            } catch (IllegalArgumentException e) {
                System.err.println("switch-agent: --link " + l + " is not PORT=HOST:DATAPORT:PEERPORT");
                return 2;
            }
        }
        ManagedNode node = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, nodeGuid, name, ports));
        Server mgmt = NettyServerBuilder.forAddress(new InetSocketAddress("localhost", managementPort))
                .addService(new ManagementService(node)).directExecutor().build().start();
        String endpoint = "localhost:" + mgmt.getPort();
        double[] rates = new double[ports + 1];
        java.util.Arrays.fill(rates, linkGbps);
        try (DataLinks data = DataLinks.tcp(1)) {
            LiveSwitch sw = new LiveSwitch(data.nextLoop(), node, vls, buffer, rates, endpoint);
            sw.linkLatencyNs(linkLatencyNs);
            InetSocketAddress bound = (InetSocketAddress) data.listen(sw, new InetSocketAddress("localhost", dataPort));
            System.out.println("ready management=" + endpoint + " data=localhost:" + bound.getPort());
            System.out.flush();
            for (int i = 0; i < peers.size(); i++) {
                connectWithRetry(data, sw, parsedPorts.get(i)[0], peers.get(i), parsedPorts.get(i)[1]);
            }
            CountDownLatch stop = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "shutdown"));
            stop.await();
        } finally {
            mgmt.shutdownNow();
        }
        return 0;
    }

    private static void connectWithRetry(DataLinks data, LiveSwitch sw, int port, InetSocketAddress peer, int peerPort)
            throws InterruptedException {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            var f = data.connect(sw, port, peer, peerPort).await();
            if (f.isSuccess()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                LOG.error("{}: port {}: no switch accepts links at {} after 60 s; the port stays down", sw.name(), port, peer);
                return;
            }
            Thread.sleep(100);
        }
    }
}
