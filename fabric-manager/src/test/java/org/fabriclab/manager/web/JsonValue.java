package org.fabriclab.manager.web;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A strict JSON reader for the tests (the daemon has no JSON library to read its answers back
 * with): objects as maps, arrays as lists, numbers as doubles. Fails on anything that is not JSON,
 * so an answer the browser could not parse fails the test.
 */
final class JsonValue {
    private final String s;
    private int i;

    private JsonValue(String s) {
        this.s = s;
    }

    /** The value of {@code text}, which must be one JSON value and nothing else. */
    static Object parse(String text) {
        JsonValue r = new JsonValue(text);
        Object v = r.value();
        r.space();
        if (r.i != text.length()) {
            throw r.error("trailing characters");
        }
        return v;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> object(String text) {
        return (Map<String, Object>) parse(text);
    }

    /** A list of numbers as ints. */
    static int[] ints(Object list) {
        return ((List<?>) list).stream().mapToInt(x -> ((Double) x).intValue()).toArray();
    }

    private Object value() {
        space();
        if (i >= s.length()) {
            throw error("value expected");
        }
        char c = s.charAt(i);
        switch (c) {
            case '{' -> {
                i++;
                Map<String, Object> m = new LinkedHashMap<>();
                space();
                if (s.charAt(i) == '}') {
                    i++;
                    return m;
                }
                do {
                    space();
                    String k = string();
                    space();
                    expect(':');
                    if (m.put(k, value()) != null) {
                        throw error("duplicate name " + k);
                    }
                    space();
                } while (s.charAt(i++) == ',');
                if (s.charAt(i - 1) != '}') {
                    throw error("} expected");
                }
                return m;
            }
            case '[' -> {
                i++;
                List<Object> l = new ArrayList<>();
                space();
                if (s.charAt(i) == ']') {
                    i++;
                    return l;
                }
                do {
                    l.add(value());
                    space();
                } while (s.charAt(i++) == ',');
                if (s.charAt(i - 1) != ']') {
                    throw error("] expected");
                }
                return l;
            }
            case '"' -> {
                return string();
            }
            default -> {
                for (String word : new String[] {"true", "false", "null"}) {
                    if (s.startsWith(word, i)) {
                        i += word.length();
                        return word.equals("null") ? null : Boolean.valueOf(word);
                    }
                }
                int start = i;
                while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) {
                    i++;
                }
                String n = s.substring(start, i);
                if (!n.matches("-?(0|[1-9]\\d*)(\\.\\d+)?([eE][+-]?\\d+)?")) {
                    throw error("not a JSON number: '" + n + "'");
                }
                return Double.parseDouble(n);
            }
        }
    }

    private String string() {
        expect('"');
        StringBuilder b = new StringBuilder();
        while (s.charAt(i) != '"') {
            char c = s.charAt(i++);
            if (c < 0x20) {
                throw error("control character in a string");
            }
            if (c == '\\') {
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    case '"', '\\', '/' -> b.append(e);
                    default -> throw error("bad escape \\" + e);
                }
            } else {
                b.append(c);
            }
        }
        i++;
        return b.toString();
    }

    private void expect(char c) {
        if (i >= s.length() || s.charAt(i) != c) {
            throw error(c + " expected");
        }
        i++;
    }

    private void space() {
        while (i < s.length() && " \t\r\n".indexOf(s.charAt(i)) >= 0) {
            i++;
        }
    }

    private IllegalArgumentException error(String what) {
        return new IllegalArgumentException(what + " at " + i + " of " + (s.length() > 200 ? s.substring(0, 200) + "..." : s));
    }
}
