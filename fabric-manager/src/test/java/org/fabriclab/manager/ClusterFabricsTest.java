package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.SwitchAgentMain;
import org.fabriclab.agent.SwitchCabling;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two fabrics the helm chart runs outside the manager's pod, on this machine's loopback
 * addresses instead of pods: a manager that dials the emulator's management server as
 * {@code HOST:PORT} alone (the single-pod fabric, whose GUIDs the chart cannot know), and one
 * {@code switch-agent --topology SPEC --switch-index K} per switch, each on an address of its own
 * with the same ports (the pod-per-switch fabric: pods of a StatefulSet), cabled to each other by
 * {@code --peers} and to the hosts of {@code emulator up --switch-agents}.
 */
class ClusterFabricsTest {
    /** Three switches (three processes to start: what the test's time goes on), two hosts on each leaf. */
    private static final String SPEC = "rlft:leaves=2,spines=1,hosts=2";

    @Test
    void aManagerDiscoversTheEmulatorsFabricFromHostAndPortAlone() throws Exception {
        Fabric topology = Topologies.generate(SPEC);
        try (EmulatedFabric fabric = EmulatedFabric.start(topology, EmulatedFabric.Options.DEFAULTS.withManagementPort(-1))) {
            String server = fabric.tcpEndpoint("L0").replaceFirst("/.*", "");
            try (FabricManager manager = new FabricManager(server, "minhop", null, new SimpleMeterRegistry())) {
                FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
                assertEquals(FabricManager.State.UP, s.state(), s.lastError());
                assertEquals(topology.switchCount(), s.discovered().fabric().switchCount());
                assertEquals(topology.caCount(), s.discovered().fabric().caCount());
            }
        }
    }

    @Test
    void oneSwitchAgentPerAddressCabledByTheTopology(@TempDir Path logs) throws Exception {
        Fabric topology = Topologies.generate(SPEC);
        String pattern = "127.0.2.1{index}"; // switch K on 127.0.2.1K, as pod K of a StatefulSet has an address of its own
        int managementPort;
        int dataPort;
        try (ServerSocket a = new ServerSocket(0, 1, InetAddress.getByName("127.0.2.10"));
             ServerSocket b = new ServerSocket(0, 1, InetAddress.getByName("127.0.2.10"))) {
            managementPort = a.getLocalPort();
            dataPort = b.getLocalPort();
        }
        List<Process> switches = new ArrayList<>();
        try {
            for (int k = 0; k < topology.switchCount(); k++) {
                String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
                // C1 and the serial collector: a switch of a few ports carrying a few hundred packets starts sooner so
                switches.add(new ProcessBuilder(javaBin, "-Xmx128m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp",
                        System.getProperty("java.class.path"),
                        SwitchAgentMain.class.getName(), "--topology", SPEC, "--switch-index", Integer.toString(k),
                        "--peers", pattern, "--address", "127.0.2.1" + k, "--management-port", Integer.toString(managementPort),
                        "--data-port", Integer.toString(dataPort)).redirectErrorStream(true).redirectOutput(logs.resolve(k + ".log").toFile())
                        .start());
            }
            // the hosts' frames as the command lines build them, which a switch-agent takes by default
            EmulatedFabric.Options o = EmulatedFabric.Options.DEFAULTS.withManagementPort(-1).withPacketBytes(FrameSizes.LIVE_FRAME)
                    .withNetwork(new EmulatedFabric.Network(InetAddress.getLoopbackAddress(), "localhost",
                            new EmulatedFabric.RemoteSwitches(pattern, managementPort, dataPort)));
            try (EmulatedFabric hosts = EmulatedFabric.start(topology, o);
                 FabricManager manager = new FabricManager("127.0.2.10:" + managementPort, "minhop", null, new SimpleMeterRegistry())) {
                assertEquals("127.0.2.12:" + managementPort, hosts.tcpEndpoint(topology.name(SwitchCabling.switchNode(topology, 2))));
                FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
                assertEquals(FabricManager.State.UP, s.state(), s.lastError() + "; switch logs: " + read(logs));
                assertEquals(topology.switchCount(), s.discovered().fabric().switchCount());
                assertEquals(topology.caCount(), s.discovered().fabric().caCount());
                assertEquals(topology.linkCount(), s.discovered().fabric().linkCount(), "every cable of the topology, across the processes");
                hosts.startTraffic(TrafficPattern.ALL_TO_ALL, 0, 512, 100);
                int expected = topology.caCount() * 100;
                Waits.until("every packet arrived", () -> hosts.hosts().stream().mapToLong(h -> h.stats().join().received()).sum() == expected);
                assertTrue(hosts.hosts().stream().allMatch(h -> h.stats().join().outOfOrder() == 0));
            }
        } finally {
            switches.forEach(Process::destroy);
            for (Process p : switches) {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

    private static String read(Path logs) throws IOException {
        StringBuilder b = new StringBuilder();
        try (var files = Files.list(logs)) {
            for (Path f : files.sorted().toList()) {
                b.append('\n').append(f.getFileName()).append(": ").append(Files.readString(f));
            }
        }
        return b.toString();
    }
}
