package org.fabriclab.agent;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.fabriclab.agent.core.CreditBlocks;
import org.fabriclab.agent.core.EcnMarking;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.agent.link.DataLinks;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.link.ModelClock;
import org.fabriclab.agent.mgmt.Endpoints;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.agent.mgmt.ManagementService;
import org.fabriclab.cli.BindAddress;
import org.fabriclab.cli.Cli;
import org.fabriclab.cli.LaneOptions;
import org.fabriclab.cli.LinkOptions;
import org.fabriclab.cli.Ports;
import org.fabriclab.cli.TimeDilationOption;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.cli.TopologyArg;
import org.fabriclab.cli.VersionProvider;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.routing.fabric.Fabric;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.fabriclab.routing.text.Excerpt;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code bin/switch-agent}: one switch as a process. Its management endpoint is a gRPC server on
 * {@code --management-port}; its data links are TCP: it accepts links on {@code --data-port} and
 * keeps the ones given with {@code --link} cabled ({@link DataLinks#cable}: each dialled in the
 * background, again whenever it is down, for as long as the process lives). Both listen on the
 * loopback address unless {@code --address} (or {@code --management-address} / {@code
 * --data-address}, each for its own) says otherwise. When both ports are bound it prints {@code
 * ready management=HOST:PORT data=HOST:PORT} on standard output, HOST as others should dial it.
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

    @Option(names = "--name", description = "Node description (its name in topologies)")
    String name;

    @Option(names = "--guid", description = "Node GUID, hex (0x200000)")
    String guid;

    @Option(names = "--ports", description = "Number of ports")
    Integer ports;

    @Option(names = "--topology", paramLabel = "SPEC", converter = TopologyArg.Converter.class,
            description = "Instead of --name, --guid, --ports and --link: be switch --switch-index of this topology, cabled as "
                    + "'emulator up --processes' cables it, the peers found by --peers (one pod per switch)")
    TopologyArg topology;

    @Option(names = "--switch-index", paramLabel = "K", description = "With --topology: which switch this is, 0.. in the topology's node order")
    Integer switchIndex;

    @Option(names = "--peers", paramLabel = "HOST_PATTERN",
            description = "With --topology: the other switches' host, " + SwitchCabling.INDEX + " standing for a switch's number "
                    + "(fabriclab-switch-" + SwitchCabling.INDEX + ".fabriclab-switch); they accept links at this --data-port")
    String peers;

    @Option(names = "--address", defaultValue = BindAddress.LOOPBACK, paramLabel = "ADDRESS",
            description = "Address the management and data ports bind unless --management-address or --data-address says otherwise "
                    + "(0.0.0.0: every interface, for peers and a manager on other machines). Default: ${DEFAULT-VALUE}")
    String address;

    @Option(names = "--advertise-host", paramLabel = "HOST",
            description = "Host name in this switch's management endpoint, which its hellos tell the neighbours and the manager, and "
                    + "in its ready line's data endpoint, the one peers are to dial. Default: localhost on loopback, else the --address "
                    + "(needed with 0.0.0.0)")
    String advertiseHost;

    @Option(names = "--management-port", defaultValue = "0", paramLabel = "PORT", description = "gRPC management port (0 picks one). Default: ${DEFAULT-VALUE}")
    int managementPort;

    @Option(names = "--data-port", defaultValue = "0", paramLabel = "PORT", description = "TCP port accepting data links (0 picks one). Default: ${DEFAULT-VALUE}")
    int dataPort;

    @Option(names = "--management-address", paramLabel = "ADDRESS",
            description = "Address the management server binds, if not --address's (0.0.0.0: every interface, for a manager on another "
                    + "machine; anyone who reaches it may read the node, and write it unless an M_Key guards it). Default: --address")
    String managementAddress;

    @Option(names = "--data-address", paramLabel = "ADDRESS",
            description = "Address the data-link listener binds, if not --address's (0.0.0.0: every interface, for peers on other "
                    + "machines). Default: --address")
    String dataAddress;

    @Option(names = "--link", paramLabel = "PORT=HOST:DATAPORT:PEERPORT",
            description = "Open a data link from our PORT to PEERPORT of the switch accepting links at HOST:DATAPORT (repeatable)")
    List<String> links = new ArrayList<>();

    @Mixin
    LaneOptions lanes;

    @Option(names = "--output-buffer", defaultValue = "0", paramLabel = "PACKETS",
            description = "Output buffer per port and lane, packets (0: an input-queued switch). Default: ${DEFAULT-VALUE}")
    int outputBuffer;

    @Option(names = "--packet-bytes", defaultValue = "" + FrameSizes.LIVE_FRAME, paramLabel = "BYTES",
            description = "The largest frame (header and payload) the buffers are sized for: --buffer N holds N of them, credits count "
                    + "64-byte blocks and a smaller frame takes only its blocks; every node of a fabric gives the same (the live hosts' frames, "
                    + FrameSizes.LIVE_FRAME + " bytes, unless you changed them), "
                    + FrameSizes.DATA_HEADER + ".." + FrameSizes.MAX_FRAME + ". Default: ${DEFAULT-VALUE}")
    int packetBytes;

    @Option(names = "--ecn", paramLabel = "KMIN:KMAX:PMAX",
            description = "Mark ECN-capable packets congestion-experienced by DCQCN's rule: none below KMIN bytes queued for the "
                    + "output, with a probability rising to PMAX at KMAX bytes, every one above (DCQCN's: 5000:200000:0.01). "
                    + "Default: no marking")
    String ecn;

    @Option(names = "--port-latency", paramLabel = "PORT=TIME",
            description = "The cable delay of one port (a Dragonfly's local or global cable), instead of --link-latency's; "
                    + "repeatable. With --topology: the topology's own delays, unless given")
    Map<Integer, String> portLatency = new LinkedHashMap<>();

    @Mixin
    LinkOptions link;

    /** The process's model clock starts at the D given ({@code auto}: real time); the fabric's controller sets it by RPC. */
    @Mixin
    TimeDilationOption dilation;

    @Option(names = "--clock-anchor", paramLabel = "MODEL_NS:WALL_NS:D", hidden = true,
            description = "Run on this clock line, the starting process's (model = MODEL_NS + (monotonic wall - WALL_NS) / D): "
                    + "emulator up --processes passes its own, so that every process of the fabric reads one model time")
    String clockAnchor;

    @Option(names = "--exit-with-parent",
            description = "End when standard input reaches its end (the process that started this one holds the pipe; "
                    + "emulator up --processes passes it)")
    boolean exitWithParent;

    @Spec
    CommandSpec spec;

    public static void main(String[] args) {
        Cli.exit(new SwitchAgentMain(), args);
    }

    /** {@code --ecn}'s value as a marking rule; one line naming what is wrong otherwise. */
    static EcnMarking ecnMarking(String value) {
        try {
            return EcnMarking.parse(value);
        } catch (IllegalArgumentException e) {
            String why = e.getMessage();
            throw new IllegalArgumentException("Invalid value for option '--ecn': " + Excerpt.quote(value)
                    + (why.startsWith("is ") || why.startsWith("has ") ? " " : ": ") + why);
        }
    }

    @Override
    public Integer call() throws Exception {
        if (packetBytes < FrameSizes.DATA_HEADER || packetBytes > FrameSizes.MAX_FRAME) {
            throw new IllegalArgumentException("--packet-bytes must be " + FrameSizes.DATA_HEADER + ".." + FrameSizes.MAX_FRAME + " (a frame's "
                    + "header and payload), not " + packetBytes);
        }
        Ports.check("--management-port", managementPort);
        Ports.check("--data-port", dataPort);
        String mgmtOption = managementAddress != null ? "--management-address" : "--address";
        String dataOption = dataAddress != null ? "--data-address" : "--address";
        InetSocketAddress mgmtBind = Endpoints.bind(mgmtOption, managementAddress != null ? managementAddress : address, managementPort);
        InetSocketAddress dataBind = Endpoints.bind(dataOption, dataAddress != null ? dataAddress : address, dataPort);
        // the endpoints others are told: refused now, before anything starts, when they would name no reachable host
        BindAddress.advertised(mgmtOption, mgmtBind.getAddress(), "--advertise-host", advertiseHost);
        BindAddress.advertised(dataOption, dataBind.getAddress(), "--advertise-host", advertiseHost);
        BindAddress.checkReachable(mgmtOption, mgmtBind.getAddress(), "--advertise-host", advertiseHost);
        BindAddress.checkReachable(dataOption, dataBind.getAddress(), "--advertise-host", advertiseHost);
        if (topology != null) {
            fromTopology();
        } else if (name == null || guid == null || ports == null) {
            throw new IllegalArgumentException("give --name, --guid and --ports (or --topology SPEC --switch-index K --peers HOST_PATTERN)");
        } else if (switchIndex != null || peers != null) {
            throw new IllegalArgumentException("--switch-index and --peers go with --topology");
        }
        long nodeGuid;
        try {
            nodeGuid = Long.parseUnsignedLong(guid.replaceFirst("^0[xX]", ""), 16);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--guid " + guid + " is not a hex GUID");
        }
        if (nodeGuid == 0) { // InfiniBand reserves GUID 0; a manager's discovery keys nodes by GUID, and net files refuse it
            throw new IllegalArgumentException("--guid " + guid + " is no GUID (0 is reserved); give a non-zero one");
        }
        if (ports < 1 || ports > 254) {
            throw new IllegalArgumentException("--ports must be 1..254, not " + ports);
        }
        List<int[]> parsedPorts = new ArrayList<>();
        List<InetSocketAddress> peerAddresses = new ArrayList<>();
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
                InetSocketAddress peer = InetSocketAddress.createUnresolved(parts[0], dataPortThere);
                if (topology == null) {
                    // a name given by hand must resolve now; a topology's peers (pods) are resolved at each
                    // attempt: a pod may have no address yet, or a new one after a restart
                    Ports.resolve("--link " + l, parts[0]);
                }
                peerAddresses.add(peer);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--link " + l + " is not PORT=HOST:DATAPORT:PEERPORT");
            }
        }
        long latencyNs = link.liveLatencyNs(0);
        ModelClock.Anchor anchor = clockAnchor == null ? null : anchor(clockAnchor);
        Map<Integer, Long> portLatencyNs = new LinkedHashMap<>();
        portLatency.forEach((port, text) -> {
            String option = "--port-latency " + port + "=" + text;
            if (port < 1 || port > ports) {
                throw new IllegalArgumentException(option + ": port " + port + " is outside 1.." + ports);
            }
            try {
                portLatencyNs.put(port, TimeSpan.parse(text).nanos());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(option + ": " + e.getMessage(), e);
            }
        });
        EcnMarking marking = ecn == null ? null : ecnMarking(ecn);
        if (outputBuffer < 0 || outputBuffer > SwitchCore.MAX_OUTPUT_BUFFER) {
            throw new IllegalArgumentException("--output-buffer must be 0.." + SwitchCore.MAX_OUTPUT_BUFFER + ", not " + outputBuffer);
        }
        Ports.freeBoth("--management-port", mgmtBind, "--data-port", dataBind);
        ManagedNode node = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, nodeGuid, name, ports));
        Server mgmt;
        try {
            mgmt = NettyServerBuilder.forAddress(mgmtBind).addService(ManagementService.definition(node)).directExecutor().build().start();
        } catch (IOException e) {
            throw Ports.inUse("--management-port", mgmtBind, e);
        }
        String endpoint = BindAddress.advertised(mgmtOption, mgmtBind.getAddress(), "--advertise-host", advertiseHost) + ":" + mgmt.getPort();
        double[] rates = new double[ports + 1];
        Arrays.fill(rates, link.linkGbps);
        DataLinks data = DataLinks.tcp(1);
        CountDownLatch stop = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.countDown();
            data.close();
            mgmt.shutdownNow();
        }, "shutdown"));
        LiveSwitch sw = new LiveSwitch(data.nextLoop(), node, lanes.vls, lanes.buffer, outputBuffer,
                CreditBlocks.of(packetBytes, FrameSizes.DATA_HEADER), rates, endpoint);
        sw.linkLatencyNs(latencyNs);
        portLatencyNs.forEach(sw::linkLatencyNs);
        if (marking != null) {
            sw.ecn(marking, nodeGuid);
        }
        ModelClock clock = new ModelClock(System::nanoTime, Math.max(1, dilation.timeDilation.dilation()));
        if (anchor != null) {
            clock.adopt(anchor);
        }
        sw.modelClock(clock);
        InetSocketAddress bound;
        try {
            bound = (InetSocketAddress) data.listen(sw, dataBind);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) { // Netty's sync() rethrows the bind failure (a checked BindException) undeclared
            throw Ports.inUse("--data-port", dataBind, e);
        }
        PrintWriter out = spec.commandLine().getOut();
        out.println("ready management=" + endpoint + " data="
                + BindAddress.advertised(dataOption, dataBind.getAddress(), "--advertise-host", advertiseHost) + ":" + bound.getPort());
        out.flush();
        for (int i = 0; i < peerAddresses.size(); i++) {
            data.cable(sw, parsedPorts.get(i)[0], peerAddresses.get(i), parsedPorts.get(i)[1]);
        }
        if (exitWithParent) {
            watchParent(stop);
        }
        stop.await();
        return 0;
    }

    /** {@code --topology SPEC --switch-index K --peers PATTERN}: name, GUID, ports and links from the topology. */
    private void fromTopology() {
        if (name != null || guid != null || ports != null || !links.isEmpty()) {
            throw new IllegalArgumentException("give either --topology with --switch-index and --peers, or --name, --guid, --ports and --link");
        }
        if (switchIndex == null) {
            throw new IllegalArgumentException("--topology needs --switch-index K: which of its switches this process is");
        }
        if (peers == null) {
            throw new IllegalArgumentException("--topology needs --peers HOST_PATTERN: where the other switches are");
        }
        SwitchCabling.checkPattern("--peers", peers);
        if (dataPort == 0) {
            throw new IllegalArgumentException("--topology needs a fixed --data-port: every switch accepts its links on the same port");
        }
        Fabric f = topology.fabric();
        int n = SwitchCabling.switchNode(f, switchIndex);
        name = f.name(n);
        guid = Long.toHexString(f.nodeGuid(n));
        ports = f.portCount(n);
        for (SwitchCabling.Dial d : SwitchCabling.dials(f, n)) {
            links.add(d.port() + "=" + SwitchCabling.host(peers, SwitchCabling.switchIndex(f, d.peer())) + ":" + dataPort + ":" + d.peerPort());
        }
        Map<Integer, String> given = portLatency;
        portLatency = new LinkedHashMap<>(SwitchCabling.cableDelays(f, n));
        portLatency.putAll(given);
    }

    /** {@code --clock-anchor MODEL_NS:WALL_NS:D}, checked. */
    private static ModelClock.Anchor anchor(String text) {
        String[] parts = text.split(":");
        try {
            if (parts.length != 3) {
                throw new NumberFormatException();
            }
            ModelClock.Anchor a = new ModelClock.Anchor(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Double.parseDouble(parts[2]));
            new ModelClock(System::nanoTime, 1).adopt(a); // the dilation checked as the clock checks it
            return a;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--clock-anchor " + text + " is not MODEL_NS:WALL_NS:D");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--clock-anchor " + text + ": " + e.getMessage(), e);
        }
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
