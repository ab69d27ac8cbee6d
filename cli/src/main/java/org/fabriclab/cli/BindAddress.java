package org.fabriclab.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.function.Predicate;

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
     * Refuses (IllegalArgumentException) a server bound to {@code bind}, an address other machines
     * reach (a wildcard or an interface's), whose endpoint would name this machine's loopback
     * ({@code advertise}, any spelling of it: {@link #namesLoopback}): the manager or a peer
     * elsewhere, told that endpoint (by discovery, or the switch's {@code ready} line), would dial
     * its own machine. A server bound to loopback is reached from this machine only, which may be
     * told loopback (a one-machine lab). Only names that mean loopback on every machine are
     * refused: another name is resolved by the dialling machine, not this one. A wildcard ({@link
     * #namesWildcard}) is refused whatever the bind: it is no address to dial (on Linux, dialling
     * it reaches the dialler's own machine).
     */
    public static void checkReachable(String bindOption, InetAddress bind, String advertiseOption, String advertise) {
        if (advertise != null && namesWildcard(advertise)) {
            throw new IllegalArgumentException(advertiseOption + " " + advertise + " is a wildcard address, which binds every interface "
                    + "but is no address to dial (on Linux dialling it reaches the dialler's own machine): give " + advertiseOption
                    + " the name or address other machines reach this one by, or leave it out to advertise the address " + bindOption
                    + " binds (localhost for the default, " + LOOPBACK + "; a wildcard bind needs " + advertiseOption + ")");
        }
        if (advertise == null || bind.isLoopbackAddress() || !namesLoopback(advertise)) {
            return;
        }
        throw new IllegalArgumentException(advertiseOption + " " + advertise + " names this machine's loopback, which the manager or a "
                + "peer on another machine would dial as its own, while " + bindOption + " " + bind.getHostAddress() + " serves other "
                + "machines: give " + advertiseOption + " the name or address other machines reach this one by, or for a one-machine "
                + "lab bind " + bindOption + " " + LOOPBACK + " (the default)");
    }

    /**
     * Whether host name or address {@code host} is loopback wherever it is resolved, without a
     * lookup: {@code localhost} and the names under it (RFC 6761), in any case, with or without
     * the root's trailing dot, and the loopback names of /etc/hosts ({@code localhost.localdomain},
     * {@code ip6-localhost}, {@code ip6-loopback}); an IPv4 address in 127/8 in any form the
     * dialling machine may read: {@code inet_aton}'s (the C resolver's, which a Java client falls
     * back to for what is no Java literal: one to four parts, each decimal, octal with a leading
     * {@code 0} or hex with {@code 0x}, the last filling the bytes left, so {@code 127.1}, {@code
     * 2130706433}, {@code 0x7f.1}, {@code 0177.0.0.1}) or Java's (leading zeros decimal: {@code
     * 0127.0.0.1}); an IPv6 loopback literal, {@code ::1} in any of its forms, an IPv4-mapped
     * loopback, bracketed or not, with or without a zone.
     */
    static boolean namesLoopback(String host) {
        String h = unbracketed(host);
        if (h.contains(":")) {
            return ipv6(h, InetAddress::isLoopbackAddress);
        }
        String name = h.endsWith(".") ? h.substring(0, h.length() - 1) : h; // a fully qualified name: the root's dot
        if (name.equals("localhost") || name.endsWith(".localhost") || name.equals("localhost.localdomain")
                || name.equals("ip6-localhost") || name.equals("ip6-loopback")) {
            return true;
        }
        return ipv4(h, true) >>> 24 == 127 || ipv4(h, false) >>> 24 == 127;
    }

    /**
     * Whether host address {@code host} is the wildcard (any local address), without a lookup:
     * {@code 0.0.0.0} in any form {@link #namesLoopback} reads 127/8 in ({@code 0}, {@code 0x0},
     * {@code 0.0}, {@code 00.0.0.0}), and {@code ::} in any of its forms, bracketed or not, with
     * or without a zone, IPv4-mapped too.
     */
    static boolean namesWildcard(String host) {
        String h = unbracketed(host);
        if (h.contains(":")) {
            return ipv6(h, InetAddress::isAnyLocalAddress);
        }
        return ipv4(h, true) == 0 || ipv4(h, false) == 0;
    }

    /** {@code host} in lower case, without the brackets of an IPv6 literal in HOST:PORT. */
    private static String unbracketed(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return h.startsWith("[") && h.endsWith("]") ? h.substring(1, h.length() - 1) : h;
    }

    /** Whether {@code h} (no brackets) is an IPv6 literal that {@code is}; parsed by Java, which looks up nothing with a colon in it. */
    private static boolean ipv6(String h, Predicate<InetAddress> is) {
        int zone = h.indexOf('%');
        String literal = zone < 0 ? h : h.substring(0, zone);
        if (!literal.matches("[0-9a-f:.]+")) {
            return false;
        }
        try {
            return is.test(InetAddress.getByName(literal));
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /**
     * IPv4 address {@code h} as a number, by {@code inet_aton}'s rules ({@code octalAndHex}) or
     * Java's (decimal parts only, leading zeros decimal); -1 when it is none by those rules.
     */
    private static long ipv4(String h, boolean octalAndHex) {
        String[] parts = h.split("\\.", -1);
        if (parts.length > 4) {
            return -1;
        }
        long address = 0;
        for (int i = 0; i < parts.length; i++) {
            long v = ipv4Part(parts[i], octalAndHex);
            // each part but the last is one byte; the last fills the bytes left
            long max = i < parts.length - 1 ? 0xFF : (1L << (8 * (4 - i))) - 1;
            if (v < 0 || v > max) {
                return -1;
            }
            address = i < parts.length - 1 ? address | v << (8 * (3 - i)) : address | v;
        }
        return address;
    }

    /** A part of an IPv4 address: decimal, or with {@code octalAndHex} hex ({@code 0x}) and octal (a leading {@code 0}); -1 if none. */
    private static long ipv4Part(String part, boolean octalAndHex) {
        int radix = 10;
        String digits = part;
        if (octalAndHex && part.startsWith("0x")) {
            radix = 16;
            digits = part.substring(2);
        } else if (octalAndHex && part.length() > 1 && part.startsWith("0")) {
            radix = 8;
            digits = part.substring(1);
        }
        if (digits.isEmpty()) {
            return -1;
        }
        for (int i = 0; i < digits.length(); i++) {
            if (Character.digit(digits.charAt(i), radix) < 0) {
                return -1;
            }
        }
        String significant = digits.replaceFirst("^0+(?=.)", ""); // any number of leading zeros, as strtoul takes them
        return significant.length() > 12 ? -1 : Long.parseLong(significant, radix); // 12 digits: past any part's range, within a long
    }
}
