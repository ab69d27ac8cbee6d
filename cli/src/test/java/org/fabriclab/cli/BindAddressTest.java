package org.fabriclab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * A management server other machines reach may not advertise loopback (a manager elsewhere would
 * dial itself); one bound to loopback may (a one-machine lab); a name is left to the manager's
 * machine to resolve.
 */
class BindAddressTest {
    @Test
    void namesThatAreLoopbackEverywhere() {
        for (String h : new String[] {"localhost", "LOCALHOST", "a.localhost", "127.0.0.1", "127.1.2.3", "::1", "[::1]", "ip6-localhost"}) {
            assertTrue(BindAddress.namesLoopback(h), h);
        }
        for (String h : new String[] {"fabriclab-fabric.lab.svc", "vm", "10.0.0.7", "192.168.1.1", "fe80::1", "localhost-2", "127.0.0"}) {
            assertFalse(BindAddress.namesLoopback(h), h);
        }
    }

    @Test
    void aServerForOtherMachinesMayNotAdvertiseLoopback() throws Exception {
        InetAddress any = InetAddress.getByName("0.0.0.0");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BindAddress.checkReachable("--address", any, "--advertise-host", "localhost"));
        assertEquals("--advertise-host localhost names this machine's loopback, which a manager on another machine cannot reach, "
                + "while --address 0.0.0.0 serves other machines: give --advertise-host the name or address other machines reach "
                + "this one by, or for a one-machine lab bind --address 127.0.0.1 (the default)", e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> BindAddress.checkReachable("--management-address", InetAddress.getByName("10.0.0.7"), "--advertise-host", "127.0.0.1"));
        // allowed: a name others resolve, no --advertise-host at all, and loopback advertised by a loopback server
        BindAddress.checkReachable("--address", any, "--advertise-host", "fabriclab-fabric.lab.svc");
        BindAddress.checkReachable("--address", any, "--advertise-host", null);
        BindAddress.checkReachable("--address", InetAddress.getByName("127.0.0.1"), "--advertise-host", "localhost");
        BindAddress.checkReachable("--address", InetAddress.getByName("127.0.2.10"), "--advertise-host", "localhost");
    }
}
