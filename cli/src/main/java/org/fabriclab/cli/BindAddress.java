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

    /**
     * Refuses (IllegalArgumentException) a management server bound to {@code bind}, an address
     * other machines reach (a wildcard or an interface's), whose endpoints would name this machine's
     * loopback ({@code advertise}: {@code localhost}, {@code 127.x.x.x}, {@code ::1}): a manager
     * elsewhere, told that endpoint by discovery, would dial its own machine. A server bound to
     * loopback is reached by a manager on this machine only, which may be told loopback (a
     * one-machine lab). Only names that mean loopback on every machine are refused: another name
     * is resolved by the manager's machine, not this one.
     */
    public static void checkReachable(String bindOption, InetAddress bind, String advertiseOption, String advertise) {
        if (advertise == null || bind.isLoopbackAddress() || !namesLoopback(advertise)) {
            return;
        }
        throw new IllegalArgumentException(advertiseOption + " " + advertise + " names this machine's loopback, which a manager on "
                + "another machine cannot reach, while " + bindOption + " " + bind.getHostAddress() + " serves other machines: give "
                + advertiseOption + " the name or address other machines reach this one by, or for a one-machine lab bind "
                + bindOption + " " + LOOPBACK + " (the default)");
    }

    /** Whether host name or address {@code host} is loopback wherever it is resolved (no lookup made). */
    static boolean namesLoopback(String host) {
        String h = host.toLowerCase(java.util.Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        if (h.equals("localhost") || h.endsWith(".localhost") || h.equals("localhost.localdomain") || h.equals("ip6-localhost")
                || h.equals("ip6-loopback")) {
            return true;
        }
        if (h.matches("\\d{1,3}(\\.\\d{1,3}){3}") || h.matches("[0-9a-f:.]+") && h.contains(":")) {
            try {
                return InetAddress.getByName(h).isLoopbackAddress(); // a literal: parsed, never looked up
            } catch (UnknownHostException e) {
                return false;
            }
        }
        return false;
    }
}
