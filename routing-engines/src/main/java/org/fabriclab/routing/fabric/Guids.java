package org.fabriclab.routing.fabric;

import org.fabriclab.routing.text.Excerpt;

/** Formatting and parsing of 64-bit GUIDs as InfiniBand tools print them ({@code 0x0002c90300a1b2c3}). */
public final class Guids {
    private Guids() {
    }

    /** Formats a GUID as OpenSM does: {@code 0x} and 16 lower-case hex digits. */
    public static String format(long guid) {
        return String.format("0x%016x", guid);
    }

    /**
     * Parses a GUID written in hex, with or without {@code 0x}.
     *
     * @throws NumberFormatException if the text is not a hex number of at most 16 digits
     */
    public static long parse(String text) {
        String t = text.trim();
        if (t.startsWith("0x") || t.startsWith("0X")) {
            t = t.substring(2);
        }
        if (t.isEmpty() || t.length() > 16 || !t.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            // the parser's own message ('For input string: "xyz" under radix 16') says neither what nor how
            throw new NumberFormatException("not a 64-bit hex GUID: '" + Excerpt.bare(text) + "'");
        }
        return Long.parseUnsignedLong(t, 16);
    }
}
