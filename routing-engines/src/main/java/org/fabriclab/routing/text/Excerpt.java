package org.fabriclab.routing.text;

/**
 * What an error message may carry of the input it refuses: a quote cut to {@value #QUOTED}
 * characters, and a whole message cut to {@value #MESSAGE}. A message that echoes its input
 * whole grows with it: 64 KB of a gRPC field echoed in a status description is a 64 KB trailer,
 * which HTTP/2 peers refuse (grpc-java's default limit on a header block is 8 KiB), so the caller
 * loses the connection instead of reading why its call was refused. Control characters are
 * written as {@code \\uXXXX} (a tab as {@code \\t}: the files we read, ibnetdiscover's among them,
 * are full of tabs), so a quote cannot forge a log line.
 */
public final class Excerpt {
    /** Characters of an input quoted in a message; the rest is cut and its length said. */
    public static final int QUOTED = 200;
    /** Characters of a whole message (a gRPC status description, a log line's reason). */
    public static final int MESSAGE = 1024;

    private Excerpt() {
    }

    /** {@code s} in double quotes, cut to {@link #QUOTED} characters: {@code "abc"} or {@code "abc..." (65536 characters)}. */
    public static String quote(String s) {
        if (s == null) {
            return "null";
        }
        String q = '"' + escaped(cut(s, QUOTED), true) + '"';
        return s.length() <= QUOTED ? q : q.substring(0, q.length() - 1) + "...\" (" + s.length() + " characters)";
    }

    /**
     * {@code s} as a message repeats it between quotes of its own ({@code 'abc'}): cut to {@link #QUOTED}
     * characters, saying how long it was ({@code abc... (65536 characters)}), control characters
     * escaped, so a 64 KB bad value never comes back as a 64 KB message or a forged log line.
     */
    public static String bare(String s) {
        if (s == null) {
            return "null";
        }
        String shown = escaped(cut(s, QUOTED), false);
        return s.length() <= QUOTED ? shown : shown + "... (" + s.length() + " characters)";
    }

    /** {@code s} cut to {@link #MESSAGE} characters, saying how long it was; null stays null. */
    public static String message(String s) {
        if (s == null || s.length() <= MESSAGE) {
            return s;
        }
        String tail = "... (" + s.length() + " characters in all)";
        return cut(s, MESSAGE - tail.length()) + tail;
    }

    /**
     * {@code reason} and then {@code suffix} (what happened, as "; nothing was changed"), in at most
     * {@link #MESSAGE} characters: the reason is cut, never the suffix.
     */
    public static String message(String reason, String suffix) {
        String r = String.valueOf(reason);
        if (r.length() + suffix.length() <= MESSAGE) {
            return r + suffix;
        }
        String cut = "... (" + r.length() + " characters)";
        return cut(r, MESSAGE - suffix.length() - cut.length()) + cut + suffix;
    }

    /** The first {@code max} characters, never splitting a surrogate pair. */
    private static String cut(String s, int max) {
        if (s.length() <= max) {
            return s;
        }
        int end = Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max;
        return s.substring(0, end);
    }

    /**
     * {@code s} with control characters as {@code \\uXXXX} (a tab as {@code \\t}), and with {@code quotes} its double
     * quotes and backslashes escaped.
     */
    private static String escaped(String s, boolean quotes) {
        StringBuilder b = null;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isISOControl(c) || quotes && (c == '"' || c == '\\')) {
                if (b == null) {
                    b = new StringBuilder(s.length() + 16).append(s, 0, i);
                }
                b.append(c == '\t' ? "\\t" : Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : "\\" + c);
            } else if (b != null) {
                b.append(c);
            }
        }
        return b == null ? s : b.toString();
    }
}
