package org.fabriclab.testkit;

import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.util.Collections;
import java.util.Optional;

/** This machine's addresses, for tests of what a server listens on and whom it takes calls from. */
public final class Addresses {
    private Addresses() {
    }

    /** This machine's first IPv4 address that is not loopback (or link-local), if it has one. */
    public static Optional<InetAddress> outside() throws SocketException {
        for (NetworkInterface i : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (i.isUp() && !i.isLoopback()) {
                for (InetAddress a : Collections.list(i.getInetAddresses())) {
                    if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                        return Optional.of(a);
                    }
                }
            }
        }
        return Optional.empty();
    }

    /** True if a TCP connection to {@code address:port} is accepted; false if refused (nothing listens there). */
    public static boolean accepts(InetAddress address, int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(address, port), 10_000);
            return true;
        } catch (ConnectException refused) {
            return false;
        }
    }
}
