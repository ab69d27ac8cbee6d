package org.fabriclab.routing.text;

/**
 * Input repeated in an error message, bounded: a message names the value it refuses, but a 64 KB
 * node set or engine name must not come back as a 64 KB gRPC status description (it broke the
 * client's connection) or a screenful of log. Up to {@value #MAX} characters are repeated whole;
 * longer input as its first {@value #HEAD} characters and its length. Control characters (binary
 * input) are shown as {@code ?}, so a message stays one printable line.
 */
public final class Echo {
    /** Input of up to this many characters is repeated whole. */
    public static final int MAX = 80;
    /** How much of longer input is repeated. */
    public static final int HEAD = 60;

    private Echo() {
    }

    /** {@code text} as a message repeats it. */
    public static String of(String text) {
        if (text == null) {
            return "null";
        }
        boolean cut = text.length() > MAX;
        String shown = cut ? text.substring(0, HEAD) : text;
        StringBuilder b = new StringBuilder(shown.length() + 32);
        for (int i = 0; i < shown.length(); i++) {
            char c = shown.charAt(i);
            b.append(Character.isISOControl(c) ? '?' : c);
        }
        if (cut) {
            b.append("... (").append(text.length()).append(" characters)");
        }
        return b.toString();
    }
}
