package org.fabriclab.agent.mgmt;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * Where a node's servers listen and how others are told to reach them. Safe by default: the
 * loopback address, unless an option names another one; an address that does not resolve is
 * refused while the options are checked, before anything is started.
 */
public final class Endpoints {
    /** The default address of every management and data-link server: this machine only. */
    public static final String LOOPBACK = "localhost";

    private Endpoints() {
    }

    /**
     * The socket address {@code option} asks to bind: {@code address} (a name or literal) and
     * {@code port} (0: any free one).
     *
     * @throws IllegalArgumentException naming the option and the value, if the address does not
     *                                  resolve or the port is out of range
     */
    public static InetSocketAddress bind(String option, String address, int port) {
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("the port of " + option + " must be 0..65535, not " + port);
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(address), port);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(option + " '" + address + "' is not an address of this machine (" + e.getMessage() + ")");
        }
    }

    /**
     * The host others dial to reach a server bound to {@code address}: the address as given, an
     * IPv6 literal in brackets, or for a wildcard ({@code 0.0.0.0}, {@code ::}) this machine's name.
     */
    public static String advertised(String address) {
        try {
            InetAddress a = InetAddress.getByName(address);
            if (a.isAnyLocalAddress()) {
                return InetAddress.getLocalHost().getHostName();
            }
        } catch (UnknownHostException e) {
            return address;
        }
        return address.indexOf(':') >= 0 && !address.startsWith("[") ? "[" + address + "]" : address;
    }
}
