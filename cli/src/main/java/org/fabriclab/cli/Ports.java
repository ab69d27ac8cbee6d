package org.fabriclab.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.SocketException;
import java.net.UnknownHostException;

/**
 * Checks of the addresses and ports the mains listen on and connect to, made before anything
 * starts, each refusal one line naming the option and the value ({@link IllegalArgumentException},
 * which {@link Cli} prints with exit code 2): a port outside 0..65535, a port another process
 * listens on, a host name that does not resolve. The servers' own bind failures later (another
 * process took the port in between) are worded the same through {@link #inUse}.
 */
public final class Ports {
    private Ports() {
    }

    /** {@code port} is a TCP port number (0: any free port). */
    public static void check(String option, int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(option + " " + port + " is not a TCP port (0..65535; 0 takes any free one)");
        }
    }

    /** The address {@code host} names. */
    public static InetAddress resolve(String option, String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException | SecurityException e) {
            throw new IllegalArgumentException(option + ": host '" + host + "' does not resolve (" + e.getMessage() + ")");
        }
    }

    /**
     * Checks that {@code at} can be listened on now: a port in range that no other process listens
     * on, at an address of this machine (a trial bind, closed at once; port 0 too, since an address
     * this machine does not have refuses even that, which was found only after the fabric started).
     */
    public static void free(String option, InetSocketAddress at) {
        check(option, at.getPort());
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(true); // as the servers bind: a port left in TIME_WAIT is free
            s.bind(at);
        } catch (IOException e) {
            throw inUse(option, at, e);
        }
    }

    /**
     * {@link #free} for a main's two listening sockets, first refusing the same port for both where
     * their addresses overlap (the same address, or either every interface): the second server's
     * bind would fail after the first started, blamed on "another process".
     */
    public static void freeBoth(String optionA, InetSocketAddress a, String optionB, InetSocketAddress b) {
        InetAddress x = a.getAddress();
        InetAddress y = b.getAddress();
        boolean overlap = x == null || y == null || x.isAnyLocalAddress() || y.isAnyLocalAddress() || x.equals(y);
        if (a.getPort() != 0 && a.getPort() == b.getPort() && overlap) {
            throw new IllegalArgumentException(optionA + " and " + optionB + " are both " + a.getPort() + ": each server needs a port of "
                    + "its own; give two different ports (or 0, any free one)");
        }
        free(optionA, a);
        free(optionB, b);
    }

    /** The one-line refusal of a port that could not be listened on: an address not of this machine, or a port held. */
    public static IllegalArgumentException inUse(String option, InetSocketAddress at, Exception cause) {
        InetAddress a = at.getAddress();
        String where = (a == null || a.isAnyLocalAddress() ? "every interface" : a.getHostAddress());
        if (a != null && !ofThisMachine(a)) {
            return new IllegalArgumentException(option + " " + at.getPort() + ": cannot listen on " + where + " (" + cause.getMessage()
                    + "): it is not an address of this machine; give one of its addresses, 127.0.0.1 (the default) or 0.0.0.0 (every "
                    + "interface) to the option that names the address");
        }
        return new IllegalArgumentException(option + " " + at.getPort() + ": cannot listen on port " + at.getPort() + " of " + where
                + " (" + cause.getMessage() + "): another process holds it? Give another port, or 0 for any free one");
    }

    /** A wildcard, a loopback address, or one of this machine's interfaces' (unknown counts as this machine's). */
    private static boolean ofThisMachine(InetAddress a) {
        try {
            return a.isAnyLocalAddress() || a.isLoopbackAddress() || NetworkInterface.getByInetAddress(a) != null;
        } catch (SocketException e) {
            return true;
        }
    }
}
