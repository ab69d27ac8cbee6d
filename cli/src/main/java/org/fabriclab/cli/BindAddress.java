package org.fabriclab.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The address a server binds and the host name its endpoints carry, as the mains take them: a
 * server binds loopback unless told otherwise ({@code --metrics-address}, {@code emulator up
 * --management-address}, {@code switch-agent --address}), and an endpoint that other machines are
 * told about (a node's management endpoint in its hellos) names a host they can reach.
 */
public final class BindAddress {
    /** The default of every bind-address option: loopback only. */
    public static final String LOOPBACK = "127.0.0.1";

    private BindAddress() {
    }

    /**
     * The address {@code value} of {@code option}, refused (IllegalArgumentException) when it
     * does not resolve.
     */
    public static InetAddress parse(String option, String value) {
        try {
            return InetAddress.getByName(value);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(option + " '" + value + "' is not an address of this machine (" + e.getMessage() + ")");
        }
    }

    /**
     * The host name endpoints carry for a server bound to {@code bind}: {@code advertise} when given;
     * {@code localhost} for the loopback address (127.0.0.1); the bound address itself for any other
     * one (127.0.2.10 too: a test's stand-in for a pod's address). A wildcard
     * bind ({@code 0.0.0.0}) names no host others can reach, so it needs {@code advertiseOption}.
     */
    public static String advertised(String bindOption, InetAddress bind, String advertiseOption, String advertise) {
        if (advertise != null) {
            if (advertise.isBlank() || advertise.contains("/") || advertise.contains(" ")) {
                throw new IllegalArgumentException(advertiseOption + " '" + advertise + "' is not a host name");
            }
            return advertise;
        }
        if (bind.equals(InetAddress.getLoopbackAddress()) || bind.getHostAddress().equals(LOOPBACK)) {
            return "localhost";
        }
        if (bind.isAnyLocalAddress()) {
            throw new IllegalArgumentException(bindOption + " " + bind.getHostAddress() + " binds every interface: give "
                    + advertiseOption + " HOST, the name other machines reach this one by (every node's endpoint carries it)");
        }
        String host = bind.getHostAddress();
        return host.contains(":") ? "[" + host + "]" : host; // an IPv6 address in HOST:PORT
    }
}
