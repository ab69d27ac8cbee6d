package org.fabriclab.agent;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.fabriclab.agent.link.DataLinks;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.link.ModelClock;
import org.fabriclab.agent.mgmt.Endpoints;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.agent.mgmt.ManagementService;
import org.fabriclab.cli.Cli;
import org.fabriclab.cli.LaneOptions;
import org.fabriclab.cli.LinkOptions;
import org.fabriclab.cli.TimeDilationOption;
import org.fabriclab.cli.VersionProvider;
import org.fabriclab.proto.v1.NodeType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bin/switch-agent}: one switch as a process. Its management endpoint is a gRPC server on
 * {@code --management-port}; its data links are TCP: it accepts links on {@code --data-port} and
 * opens the ones given with {@code --link}, retrying while the peer is not up yet. Both listen on
 * the loopback address unless {@code --management-address} / {@code --data-address} say otherwise.
 * When both ports are bound it prints {@code ready management=HOST:PORT data=HOST:PORT} on standard
 * output, HOST as others should dial it ({@link Endpoints#advertised}).
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

    @Option(names = "--management-address", defaultValue = Endpoints.LOOPBACK, paramLabel = "ADDRESS",
            description = "Address the management server binds: loopback unless told otherwise (0.0.0.0: every interface, for a "
                    + "manager on another machine; anyone who reaches it may read the node, and write it unless an M_Key guards "
                    + "it). Default: ${DEFAULT-VALUE}")
    String managementAddress;

    @Option(names = "--data-address", defaultValue = Endpoints.LOOPBACK, paramLabel = "ADDRESS",
            description = "Address the data-link listener binds (0.0.0.0: every interface, for peers on other machines). "
                    + "Default: ${DEFAULT-VALUE}")
    String dataAddress;

    @Option(names = "--link", paramLabel = "PORT=HOST:DATAPORT:PEERPORT",
            description = "Open a data link from our PORT to PEERPORT of the switch accepting links at HOST:DATAPORT (repeatable)")
    List<String> links = new ArrayList<>();

    @Mixin
    LaneOptions lanes;

    @Mixin
    LinkOptions link;

    /** The process's model clock starts at the D given ({@code auto}: real time); the fabric's controller sets it by RPC. */
    @Mixin
    TimeDilationOption dilation;

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        Cli.exit(new SwitchAgentMain(), args);
    }

    @Override
    public Integer call() throws Exception {
        long nodeGuid;
        try {
            nodeGuid = Long.parseUnsignedLong(guid.replaceFirst("^0[xX]", ""), 16);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--guid " + guid + " is not a hex GUID");
        }
        if (ports < 1 || ports > 254) {
            throw new IllegalArgumentException("--ports must be 1..254, not " + ports);
        }
        List<int[]> parsedPorts = new ArrayList<>();
        List<InetSocketAddress> peers = new ArrayList<>();
        for (String l : links) {
            String[] kv = l.split("=", 2);
            String[] parts = kv.length == 2 ? kv[1].split(":") : new String[0];
            try {
                if (parts.length != 3) {
                    throw new NumberFormatException();
                }
                int port = Integer.parseInt(kv[0]);
                int peerPort = Integer.parseInt(parts[2]);
                if (port < 1 || port > ports) {
                    throw new IllegalArgumentException("--link " + l + ": port " + port + " is outside 1.." + ports);
                }
                parsedPorts.add(new int[] {port, peerPort});
                peers.add(new InetSocketAddress(parts[0], Integer.parseInt(parts[1])));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--link " + l + " is not PORT=HOST:DATAPORT:PEERPORT");
            }
        }
        InetSocketAddress mgmtBind = Endpoints.bind("--management-address", managementAddress, managementPort);
        InetSocketAddress dataBind = Endpoints.bind("--data-address", dataAddress, dataPort);
        ManagedNode node = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, nodeGuid, name, ports));
        Server mgmt = NettyServerBuilder.forAddress(mgmtBind)
                .addService(ManagementService.definition(node)).directExecutor().build().start();
        String endpoint = Endpoints.advertised(managementAddress) + ":" + mgmt.getPort();
        double[] rates = new double[ports + 1];
        Arrays.fill(rates, link.linkGbps);
        try (DataLinks data = DataLinks.tcp(1)) {
            LiveSwitch sw = new LiveSwitch(data.nextLoop(), node, lanes.vls, lanes.buffer, rates, endpoint);
            sw.linkLatencyNs(link.latencyNs(0));
            sw.modelClock(new ModelClock(System::nanoTime, Math.max(1, dilation.timeDilation.dilation())));
            InetSocketAddress bound = (InetSocketAddress) data.listen(sw, dataBind);
            PrintWriter out = spec.commandLine().getOut();
            out.println("ready management=" + endpoint + " data=" + Endpoints.advertised(dataAddress) + ":" + bound.getPort());
            out.flush();
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
