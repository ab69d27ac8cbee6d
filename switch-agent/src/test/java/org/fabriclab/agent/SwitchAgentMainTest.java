package org.fabriclab.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.fabriclab.cli.Cli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The switch agent's command line refuses bad values with one line and exit code 2 before it binds a port. */
class SwitchAgentMainTest {
    private static void refused(String mention, String... args) {
        StringWriter err = new StringWriter();
        int code = Cli.execute(new SwitchAgentMain(), args, new PrintWriter(new StringWriter(), true), new PrintWriter(err, true));
        assertEquals(2, code, err.toString());
        assertEquals(1, err.toString().strip().lines().count(), "one line: " + err);
        assertTrue(err.toString().startsWith("switch-agent: ") && err.toString().contains(mention), mention + " in " + err);
    }

    @Test
    void badValuesAreRefused() {
        String[] ok = {"--name", "S", "--guid", "0x200000", "--ports", "4"};
        refused("'1x' is not a duration", concat(ok, "--link-latency", "1x"));
        refused("--guid 0x0 is no GUID (0 is reserved); give a non-zero one", "--name", "S", "--guid", "0x0", "--ports", "4");
        refused("--management-port and --data-port are both 45679: each server needs a port of its own",
                concat(ok, "--management-port", "45679", "--data-port", "45679"));
        refused("has no unit", concat(ok, "--link-latency", "100"));
        refused("--link 9=localhost:1:1: port 9 is outside 1..4", concat(ok, "--link", "9=localhost:1:1"));
        refused("--link 1=localhost is not PORT=HOST:DATAPORT:PEERPORT", concat(ok, "--link", "1=localhost"));
        refused("--guid xyz is not a hex GUID", "--name", "S", "--guid", "xyz", "--ports", "4");
        refused("--ports must be 1..254", "--name", "S", "--guid", "1", "--ports", "300");
        refused("--packet-bytes must be 37..4133 (a frame's header and payload), not 36", concat(ok, "--packet-bytes", "36"));
        refused("--packet-bytes must be 37..4133", concat(ok, "--packet-bytes", "5000"));
        refused("give --name, --guid and --ports", "--name", "S");
        refused("binds every interface: give --advertise-host HOST", concat(ok, "--address", "0.0.0.0"));
        refused("--advertise-host localhost names this machine's loopback, which the manager or a peer on another machine would dial as "
                + "its own, while --address 0.0.0.0 serves other machines", concat(ok, "--address", "0.0.0.0", "--advertise-host", "localhost"));
        refused("--advertise-host 127.0.0.1 names this machine's loopback", concat(ok, "--management-address", "0.0.0.0",
                "--advertise-host", "127.0.0.1"));
        refused("--address 'no-such-host.invalid' is not an address", concat(ok, "--address", "no-such-host.invalid"));
        refused("--management-address '[::1' is not an address of this machine", concat(ok, "--management-address", "[::1"));
        refused("--data-address 'no.such.host.invalid' is not an address of this machine", concat(ok, "--data-address", "no.such.host.invalid"));
        refused("'0' is not a rate above 0", concat(ok, "--link-gbps", "0"));
        refused("--link 1=no.such.host.invalid:5000:1: host 'no.such.host.invalid' does not resolve",
                concat(ok, "--link", "1=no.such.host.invalid:5000:1"));
        refused("--link 1=localhost:70000:1: 70000 is not a TCP port", concat(ok, "--link", "1=localhost:70000:1"));
        refused("--link 1=localhost:5000:300: peer port 300 is outside 1..254", concat(ok, "--link", "1=localhost:5000:300"));
        refused("--management-port 70000 is not a TCP port", concat(ok, "--management-port", "70000"));
        refused("Invalid value for option '--vls': '0' is not a number of data lanes; give a whole number from 1 to 15",
                concat(ok, "--vls", "0"));
        refused("Invalid value for option '--buffer': '0' is not a buffer size in packets; give a whole number from 1 to 4096",
                concat(ok, "--buffer", "0"));
        refused("'70000' is not a buffer size in packets", concat(ok, "--buffer", "70000"));
        refused("--link-latency 10s is more than a live link takes", concat(ok, "--link-latency", "10s"));
        refused("--port-latency 9=30ns: port 9 is outside 1..4", concat(ok, "--port-latency", "9=30ns"));
        refused("--port-latency 1=30: ", concat(ok, "--port-latency", "1=30"));
        refused("--output-buffer must be 0..4096, not 5000", concat(ok, "--output-buffer", "5000"));
        refused("5000:200000\" is not KMIN:KMAX:PMAX", concat(ok, "--ecn", "5000:200000"));
        refused("5k:200000:0.01\" has a part that is not a number", concat(ok, "--ecn", "5k:200000:0.01"));
        refused("9000:5000:0.01\": ECN thresholds need 0 <= kmin < kmax", concat(ok, "--ecn", "9000:5000:0.01"));
        refused("--clock-anchor 1:2 is not MODEL_NS:WALL_NS:D", concat(ok, "--clock-anchor", "1:2"));
        refused("--clock-anchor 1:2:0.5: ", concat(ok, "--clock-anchor", "1:2:0.5"));
    }

    /**
     * The data listener's endpoint, which peers dial, is checked as the management one is: bound
     * for other machines, it may not name loopback (before the fix the agent started, and ran until
     * the timeout stopped it).
     */
    @Test
    @Timeout(30)
    void aDataListenerForOtherMachinesMayNotAdvertiseLoopback() {
        String[] ok = {"--name", "S", "--guid", "0x200000", "--ports", "4"};
        refused("--advertise-host localhost. names this machine's loopback, which the manager or a peer on another machine would dial "
                + "as its own, while --data-address 0.0.0.0 serves other machines", concat(ok, "--data-address", "0.0.0.0",
                "--advertise-host", "localhost."));
        refused("--advertise-host 127.1 names this machine's loopback", concat(ok, "--address", "127.0.0.1", "--data-address", "0.0.0.0",
                "--advertise-host", "127.1"));
    }

    /** A wildcard advertised is refused before anything starts, whatever the listeners bind. */
    @Test
    @Timeout(30)
    void aWildcardIsNeverAdvertised() {
        String[] ok = {"--name", "S", "--guid", "0x200000", "--ports", "4"};
        refused("--advertise-host 0.0.0.0 is a wildcard address, which binds every interface but is no address to dial", concat(ok,
                "--address", "0.0.0.0", "--advertise-host", "0.0.0.0"));
        refused("--advertise-host [::] is a wildcard address", concat(ok, "--advertise-host", "[::]"));
        refused("--advertise-host 0x0 is a wildcard address", concat(ok, "--data-address", "0.0.0.0", "--advertise-host", "0x0"));
    }

    /** A topology's own cable delays, per port, as --port-latency takes them (a port without one left out). */
    @Test
    void aTopologysCableDelaysAreEachPortsLatency() {
        var f = org.fabriclab.routing.topology.Topologies.generate("dragonfly:p=1,a=2,h=1,local-latency=2us,global-latency=300ns");
        assertEquals(java.util.Map.of(1, "2000ns", 2, "300ns"), SwitchCabling.cableDelays(f, SwitchCabling.switchNode(f, 0)));
        assertEquals(java.util.Map.of(), SwitchCabling.cableDelays(org.fabriclab.routing.topology.Topologies.generate("rlft:leaves=2,spines=2"),
                0), "no delays in the topology: every port takes --link-latency");
    }

    /** A port another process listens on is one line naming it, before anything is bound. */
    @Test
    void busyPortsAreRefused() throws Exception {
        String[] ok = {"--name", "S", "--guid", "0x200000", "--ports", "4"};
        try (ServerSocket held = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            String port = Integer.toString(held.getLocalPort());
            refused("--management-port " + port + ": cannot listen on port " + port + " of 127.0.0.1", concat(ok, "--management-port", port));
            refused("--data-port " + port + ": cannot listen on port " + port + " of 127.0.0.1", concat(ok, "--data-port", port));
        }
    }

    @Test
    void aSwitchOfATopologyNeedsItsIndexPeersAndAFixedDataPort() {
        String[] topo = {"--topology", "rlft:leaves=2,spines=2", "--data-port", "50200"};
        refused("--topology needs --switch-index K", concat(topo, "--peers", "sw-{index}"));
        refused("--topology needs --peers HOST_PATTERN", concat(topo, "--switch-index", "0"));
        refused("--peers 'sw' is not a host pattern", concat(topo, "--switch-index", "0", "--peers", "sw"));
        refused("switch index 4 is outside 0..3", concat(topo, "--switch-index", "4", "--peers", "sw-{index}"));
        refused("--topology needs a fixed --data-port", "--topology", "rlft:leaves=2,spines=2", "--switch-index", "0", "--peers", "sw-{index}");
        refused("give either --topology", concat(topo, "--switch-index", "0", "--peers", "sw-{index}", "--name", "S"));
        refused("--switch-index and --peers go with --topology", "--name", "S", "--guid", "1", "--ports", "4", "--switch-index", "0");
    }

    @Test
    void theCablingOfEachSwitchDialsTheHigherNumberedEnd() {
        var f = org.fabriclab.routing.topology.Topologies.generate("rlft:leaves=2,spines=2");
        int links = 0;
        for (int k = 0; k < f.switchCount(); k++) {
            int n = SwitchCabling.switchNode(f, k);
            assertEquals(k, SwitchCabling.switchIndex(f, n));
            for (SwitchCabling.Dial d : SwitchCabling.dials(f, n)) {
                assertTrue(d.peer() > n && f.isSwitch(d.peer()), "dials only a switch after it");
                assertEquals(n, f.peerNode(f.globalPort(d.peer(), d.peerPort())), "the peer port is cabled back to it");
                links++;
            }
        }
        assertEquals(4, links, "every leaf-spine cable, dialled once");
        assertEquals("sw-3.svc", SwitchCabling.host("sw-{index}.svc", 3));
    }

    private static String[] concat(String[] a, String... b) {
        String[] r = new String[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }
}
