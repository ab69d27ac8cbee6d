package org.fabriclab.agent;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.fabriclab.agent.link.DataLinks;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.link.ModelClock;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.agent.mgmt.ManagementService;
import org.fabriclab.cli.Cli;
import org.fabriclab.cli.LaneOptions;
import org.fabriclab.cli.LinkOptions;
import org.fabriclab.cli.Ports;
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
 * keeps the ones given with {@code --link} cabled ({@link DataLinks#cable}: each dialled in the
 * background, again whenever it is down, for as long as the process lives). When both ports are
 * bound it prints {@code ready management=HOST:PORT data=HOST:PORT} on standard output.
 *
 * <p>With {@code --exit-with-parent} it ends when its standard input does: the process that started
 * it holds the other end of that pipe, and however that process ends (SIGTERM, Ctrl-C, {@code kill
 * -9}, a crash) the kernel closes it, at once. {@code ProcessHandle.parent().onExit()} was the other
 * choice; for a process that is not its child the JDK polls for it every few seconds, and a
 * grandparent may not be the parent it meant. Its shutdown hook closes the links and the server
 * itself (the JVM halts when its hooks return).
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

    @Mixin
    LaneOptions lanes;

    @Mixin
    LinkOptions link;

    /** The process's model clock starts at the D given ({@code auto}: real time); the fabric's controller sets it by RPC. */
    @Mixin
    TimeDilationOption dilation;

    @Option(names = "--exit-with-parent",
            description = "End when standard input reaches its end (the process that started this one holds the pipe; "
                    + "emulator up --processes passes it)")
    boolean exitWithParent;

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
                int dataPortThere = Integer.parseInt(parts[1]);
                if (port < 1 || port > ports) {
                    throw new IllegalArgumentException("--link " + l + ": port " + port + " is outside 1.." + ports);
                }
                if (peerPort < 1 || peerPort > 254) {
                    throw new IllegalArgumentException("--link " + l + ": peer port " + peerPort + " is outside 1..254");
                }
                Ports.check("--link " + l + ":", dataPortThere);
                parsedPorts.add(new int[] {port, peerPort});
                InetSocketAddress peer = new InetSocketAddress(parts[0], dataPortThere);
                if (peer.isUnresolved()) {
                    Ports.resolve("--link " + l, parts[0]);
                }
                peers.add(peer);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--link " + l + " is not PORT=HOST:DATAPORT:PEERPORT");
            }
        }
        long latencyNs = link.liveLatencyNs(0);
        if (lanes.vls < 1 || lanes.vls > 15) {
            throw new IllegalArgumentException("--vls must be 1..15 data lanes, not " + lanes.vls);
        }
        if (lanes.buffer < 1) {
            throw new IllegalArgumentException("--buffer must be 1 packet or more, not " + lanes.buffer);
        }
        Ports.check("--management-port", managementPort);
        Ports.check("--data-port", dataPort);
        InetSocketAddress mgmtAt = new InetSocketAddress(InetAddress.getLoopbackAddress(), managementPort);
        InetSocketAddress dataAt = new InetSocketAddress(InetAddress.getLoopbackAddress(), dataPort);
        Ports.free("--management-port", mgmtAt);
        Ports.free("--data-port", dataAt);
        ManagedNode node = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, nodeGuid, name, ports));
        Server mgmt;
        try {
            mgmt = NettyServerBuilder.forAddress(mgmtAt).addService(new ManagementService(node)).directExecutor().build().start();
        } catch (IOException e) {
            throw Ports.inUse("--management-port", mgmtAt, e);
        }
        String endpoint = "localhost:" + mgmt.getPort();
        double[] rates = new double[ports + 1];
        Arrays.fill(rates, link.linkGbps);
        DataLinks data = DataLinks.tcp(1);
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.countDown();
            data.close();
            mgmt.shutdownNow();
        }, "shutdown"));
        LiveSwitch sw = new LiveSwitch(data.nextLoop(), node, lanes.vls, lanes.buffer, rates, endpoint);
        sw.linkLatencyNs(latencyNs);
        sw.modelClock(new ModelClock(System::nanoTime, Math.max(1, dilation.timeDilation.dilation())));
        InetSocketAddress bound;
        try {
            bound = (InetSocketAddress) data.listen(sw, dataAt);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) { // Netty's sync() rethrows the bind failure (a checked BindException) undeclared
            throw Ports.inUse("--data-port", dataAt, e);
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("ready management=" + endpoint + " data=localhost:" + bound.getPort());
        out.flush();
        for (int i = 0; i < peers.size(); i++) {
            data.cable(sw, parsedPorts.get(i)[0], peers.get(i), parsedPorts.get(i)[1]);
        }
        if (exitWithParent) {
            watchParent(stop);
        }
        stop.await();
        return 0;
    }

    /** A daemon thread that reads standard input to its end, then ends the process (the hook closes what it holds). */
    private static void watchParent(CountDownLatch stop) {
        Thread t = new Thread(() -> {
            byte[] ignored = new byte[256];
            try {
                while (System.in.read(ignored) >= 0) {
                    // what the parent writes means nothing; only the end does
                }
            } catch (IOException e) {
                LOG.debug("standard input failed: {}", e.toString());
            }
            LOG.info("the process that started this switch has ended (standard input closed); exiting");
            System.exit(0);
        }, "parent-watch");
        t.setDaemon(true);
        t.start();
    }
}
