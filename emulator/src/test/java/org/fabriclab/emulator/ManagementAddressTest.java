package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetAddress;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Addresses;
import org.junit.jupiter.api.Test;

/**
 * The emulated fabric's management servers listen on loopback unless asked otherwise: by default
 * a connection to this machine's other address is refused; with {@code 0.0.0.0} it is accepted,
 * for the in-JVM server and for every switch process. Needs an address other than loopback (a
 * machine without one skips the test).
 */
class ManagementAddressTest {
    private static final String SPEC = "rlft:leaves=1,spines=1,hosts=1";

    private static int port(String endpoint) {
        String hostPort = endpoint.contains("/") ? endpoint.substring(0, endpoint.indexOf('/')) : endpoint;
        return Integer.parseInt(hostPort.substring(hostPort.lastIndexOf(':') + 1));
    }

    @Test
    void theManagementServerListensOnLoopbackUnlessAskedOtherwise() throws Exception {
        InetAddress other = Addresses.outside().orElse(null);
        assumeTrue(other != null, "this machine has no address but loopback");
        EmulatedFabric.Options tcp = EmulatedFabric.Options.DEFAULTS.withManagementPort(-1);
        try (EmulatedFabric f = EmulatedFabric.start(Topologies.generate(SPEC), tcp)) {
            int port = port(f.tcpEndpoint("L0_H0"));
            assertTrue(f.tcpEndpoint("L0_H0").startsWith("localhost:"), f.tcpEndpoint("L0_H0"));
            assertTrue(Addresses.accepts(InetAddress.getLoopbackAddress(), port));
            assertFalse(Addresses.accepts(other, port), "not on " + other);
        }
        try (EmulatedFabric f = EmulatedFabric.start(Topologies.generate(SPEC), tcp.withManagementAddress("0.0.0.0"))) {
            int port = port(f.tcpEndpoint("L0_H0"));
            assertTrue(Addresses.accepts(other, port), "on " + other + " when asked");
            assertFalse(f.tcpEndpoint("L0_H0").startsWith("0.0.0.0"), "a wildcard is no address to dial: " + f.tcpEndpoint("L0_H0"));
        }
    }

    @Test
    void switchProcessesListenWhereTheFabricIsAskedTo() throws Exception {
        InetAddress other = Addresses.outside().orElse(null);
        assumeTrue(other != null, "this machine has no address but loopback");
        EmulatedFabric.Options processes = EmulatedFabric.Options.DEFAULTS.withManagementPort(-1).withProcesses(true);
        try (EmulatedFabric f = EmulatedFabric.start(Topologies.generate(SPEC), processes)) {
            int port = port(f.tcpEndpoint("S0"));
            assertTrue(Addresses.accepts(InetAddress.getLoopbackAddress(), port));
            assertFalse(Addresses.accepts(other, port), "a switch process is not on " + other + " by default");
        }
        String address = other.getHostAddress();
        try (EmulatedFabric f = EmulatedFabric.start(Topologies.generate(SPEC), processes.withManagementAddress(address))) {
            assertEquals(address + ":" + port(f.tcpEndpoint("S0")), f.tcpEndpoint("S0"), "endpoints name the address asked for");
            assertTrue(Addresses.accepts(other, port(f.tcpEndpoint("S0"))));
            assertTrue(Addresses.accepts(other, port(f.tcpEndpoint("L0_H0"))));
        }
    }
}
