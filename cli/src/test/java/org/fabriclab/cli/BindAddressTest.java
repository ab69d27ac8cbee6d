package org.fabriclab.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

/**
 * A server other machines reach may not advertise loopback, however it is spelt (the manager or a
 * peer elsewhere would dial itself); one bound to loopback may (a one-machine lab); a name is left
 * to the dialling machine to resolve.
 */
class BindAddressTest {
    @Test
    void namesThatAreLoopbackEverywhere() {
        for (String h : new String[] {
            // names: any case, the root's trailing dot, the names under localhost, /etc/hosts' own
            "localhost", "localhost.", "LOCALHOST", "LocalHost.", "a.localhost", "a.b.localhost.", "localhost.localdomain",
            "ip6-localhost", "ip6-loopback",
            // 127/8 as inet_aton reads it: one to four parts, decimal, octal (leading 0) or hex (0x), the last filling what is left
            "127.0.0.1", "127.1.2.3", "127.255.255.255", "127.1", "127.0.0", "127.0.1", "127.16777215", "2130706433", "2130706432",
            "0x7f000001", "0X7F000001", "0x7f.1", "0x7F.0.0.1", "0x0000007f.1", "0177.0.0.1", "0177.1", "017700000001", "127.0x0.0.01",
            // and as Java reads a literal: leading zeros decimal
            "0127.0.0.1", "00127.1",
            // ::1 in its forms, bracketed or not, with a zone; an IPv4-mapped loopback
            "::1", "[::1]", "0:0:0:0:0:0:0:1", "0000:0000:0000:0000:0000:0000:0000:0001", "::0:1", "0::1", "[0:0::0001]", "::1%lo",
            "[::1%1]", "::ffff:127.0.0.1", "::FFFF:127.1.2.3"}) {
            assertTrue(BindAddress.namesLoopback(h), h);
        }
        for (String h : new String[] {
            // names another machine resolves its own way
            "fabriclab-fabric.lab.svc", "vm", "localhost-2", "notlocalhost", "localhost.example.com", "127.example.com", "127.0.0.1.example",
            "0x7f.example", "localhost..",
            // other addresses, and what is no address by either reading
            "10.0.0.1", "10.0.0.7", "192.168.1.1", "128.0.0.1", "1.127.0.0", "2147483648", "0x80.1", "0200.0.0.1", "126.255.255.255",
            "127.0.0.1.", "127..1", "127.0.0.256", "127.256.0.1", "4294967296", "0x", "0x7g.1", "0128.0.0.1x", "",
            // IPv6 addresses that are not loopback, and what is no IPv6 literal
            "::2", "[::2]", "fe80::1", "::", "::ffff:10.0.0.1", "::1:0", "1::1", "::1::", "[::1", "::g1"}) {
            assertFalse(BindAddress.namesLoopback(h), h);
        }
    }

    @Test
    void aServerForOtherMachinesMayNotAdvertiseLoopback() throws Exception {
        InetAddress any = InetAddress.getByName("0.0.0.0");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BindAddress.checkReachable("--address", any, "--advertise-host", "localhost"));
        assertEquals("--advertise-host localhost names this machine's loopback, which the manager or a peer on another machine would "
                + "dial as its own, while --address 0.0.0.0 serves other machines: give --advertise-host the name or address other "
                + "machines reach this one by, or for a one-machine lab bind --address 127.0.0.1 (the default)", e.getMessage());
        for (String loopback : new String[] {"127.0.0.1", "localhost.", "127.1", "0x7f.1", "2130706433", "[0:0:0:0:0:0:0:1]"}) {
            assertThrows(IllegalArgumentException.class, () -> BindAddress.checkReachable("--management-address",
                    InetAddress.getByName("10.0.0.7"), "--advertise-host", loopback), loopback);
        }
        // allowed: a name others resolve, no --advertise-host at all, and loopback advertised by a loopback server
        BindAddress.checkReachable("--address", any, "--advertise-host", "fabriclab-fabric.lab.svc");
        BindAddress.checkReachable("--address", any, "--advertise-host", null);
        BindAddress.checkReachable("--address", InetAddress.getByName("127.0.0.1"), "--advertise-host", "localhost");
        BindAddress.checkReachable("--address", InetAddress.getByName("127.0.2.10"), "--advertise-host", "localhost");
    }

    @Test
    void aWildcardIsReadInItsSpellingsWithoutALookup() {
        for (String h : new String[] {
            // 0.0.0.0 as inet_aton reads it (one to four parts, octal, hex) and as Java does (leading zeros decimal)
            "0.0.0.0", "0", "0x0", "0X00000000", "00", "0.0", "0.0.0", "0x0.0", "000.0.0.0", "0.0x0.00.0",
            // :: in its forms, bracketed or not, with a zone; an IPv4-mapped wildcard
            "::", "[::]", "0:0:0:0:0:0:0:0", "0000:0000:0000:0000:0000:0000:0000:0000", "0::0", "::0", "::%eth0", "[::%1]",
            "::ffff:0.0.0.0"}) {
            assertTrue(BindAddress.namesWildcard(h), h);
        }
        for (String h : new String[] {
            "0.0.0.1", "10.0.0.0", "0.1", "1", "0x1", "1.0.0.0", "127.0.0.1", "localhost", "fabriclab-fabric.lab.svc", "vm", "0.example",
            "0.0.0.0.", "0..0", "0.0.0.0.0", "0x", "", "::1", "[::1]", "::2", "fe80::", "::g", "[::"}) {
            assertFalse(BindAddress.namesWildcard(h), h);
        }
    }

    /** A wildcard advertised is no address to dial, whatever the bind: refused, saying what to give instead. */
    @Test
    void aWildcardIsNeverAdvertised() throws Exception {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> BindAddress.checkReachable("--address", InetAddress.getByName("0.0.0.0"), "--advertise-host", "0.0.0.0"));
        assertEquals("--advertise-host 0.0.0.0 is a wildcard address, which binds every interface but is no address to dial (on Linux "
                + "dialling it reaches the dialler's own machine): give --advertise-host the name or address other machines reach this "
                + "one by, or leave it out to advertise the address --address binds (localhost for the default, 127.0.0.1; a wildcard "
                + "bind needs --advertise-host)", e.getMessage());
        for (String bind : new String[] {"127.0.0.1", "10.0.0.7", "::", "::1"}) {
            for (String wildcard : new String[] {"0", "0x0", "::", "[::]", "0:0:0:0:0:0:0:0"}) {
                assertThrows(IllegalArgumentException.class, () -> BindAddress.checkReachable("--management-address",
                        InetAddress.getByName(bind), "--advertise-host", wildcard), bind + " " + wildcard);
            }
        }
        for (String host : new String[] {"0.0.0.1", "10.0.0.0", "fabriclab-fabric.lab.svc", "vm"}) {
            BindAddress.checkReachable("--address", InetAddress.getByName("0.0.0.0"), "--advertise-host", host);
            BindAddress.checkReachable("--address", InetAddress.getByName("127.0.0.1"), "--advertise-host", host);
        }
    }
}
