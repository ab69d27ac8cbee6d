package org.fabriclab.routing.topology;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A parsed topology spec, {@code kind:arg,key=value,...}: {@code fat-tree:k=4,levels=3},
 * {@code torus:4x2x2x2,hosts=1}, {@code paper:ib-ar-c1}, {@code file:PATH}. An argument without
 * {@code =} is positional ({@code 4x2x2x2}, {@code ib-ar-c1}). Reading a parameter marks it used;
 * {@link #checkAllUsed} then refuses typos by name.
 */
public final class TopologySpec {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ns|us|ms|s)");
    private final String text;
    private final String kind;
    private final String positional;
    private final Map<String, String> params;
    private final Set<String> used = new TreeSet<>();

    private TopologySpec(String text, String kind, String positional, Map<String, String> params) {
        this.text = text;
        this.kind = kind;
        this.positional = positional;
        this.params = params;
    }

    /**
     * Parses a spec.
     *
     * @throws IllegalArgumentException for a spec without a kind or with a repeated parameter
     */
    public static TopologySpec parse(String text) {
        String t = text.strip();
        int colon = t.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("bad topology spec '" + text + "': expected KIND:PARAMS, e.g. "
                    + "fat-tree:k=4,levels=3, torus:4x4,hosts=2, dragonfly:p=4,a=8,h=4 or file:PATH");
        }
        String kind = t.substring(0, colon);
        String rest = t.substring(colon + 1);
        if (kind.equals("file")) {
            return new TopologySpec(t, kind, rest, Map.of());
        }
        Map<String, String> params = new LinkedHashMap<>();
        String positional = null;
        for (String part : rest.split(",")) {
            String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            int eq = p.indexOf('=');
            if (eq < 0) {
                if (positional != null) {
                    throw new IllegalArgumentException("bad topology spec '" + text + "': two unnamed arguments '"
                            + positional + "' and '" + p + "'");
                }
                positional = p;
            } else if (params.put(p.substring(0, eq).strip(), p.substring(eq + 1).strip()) != null) {
                throw new IllegalArgumentException("bad topology spec '" + text + "': parameter '"
                        + p.substring(0, eq).strip() + "' given twice");
            }
        }
        return new TopologySpec(t, kind, positional, params);
    }

    public String text() {
        return text;
    }

    public String kind() {
        return kind;
    }

    /** The unnamed argument ({@code 4x2x2x2}), or null. */
    public String positional() {
        return positional;
    }

    /** A whole-number parameter, or the default if absent. */
    public int intParam(String key, int def) {
        String v = params.get(key);
        used.add(key);
        if (v == null) {
            return def;
        }
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(kind + ": parameter " + key + "=" + v + " is not a whole number");
        }
    }

    /** A required whole-number parameter. */
    public int intParam(String key) {
        if (!params.containsKey(key)) {
            throw new IllegalArgumentException(kind + ": parameter '" + key + "' is required (in '" + text + "')");
        }
        return intParam(key, 0);
    }

    /** A parameter's text, or the default if absent. */
    public String stringParam(String key, String def) {
        String v = params.get(key);
        used.add(key);
        return v == null ? def : v;
    }

    /**
     * A duration parameter in nanoseconds, written with its unit ({@code 30ns}, {@code 1.5us},
     * {@code 2ms}); the default if absent.
     */
    public long durationParamNs(String key, long def) {
        String v = params.get(key);
        used.add(key);
        if (v == null) {
            return def;
        }
        Matcher m = DURATION.matcher(v);
        if (!m.matches()) {
            throw new IllegalArgumentException(kind + ": parameter " + key + "=" + v + " is not a duration with its unit, like 30ns or 1.5us");
        }
        double scale = switch (m.group(2)) {
            case "ns" -> 1;
            case "us" -> 1e3;
            case "ms" -> 1e6;
            default -> 1e9;
        };
        double ns = Double.parseDouble(m.group(1)) * scale;
        if (ns > 1e12) {
            throw new IllegalArgumentException(kind + ": parameter " + key + "=" + v + " is longer than this tool simulates (1000 s)");
        }
        return Math.round(ns);
    }

    /** A list parameter written with {@code x} or {@code .} between numbers ({@code m=4x4x8}); null if absent. */
    public int[] listParam(String key) {
        String v = params.get(key);
        used.add(key);
        return v == null ? null : parseList(v, kind + " parameter " + key);
    }

    static int[] parseList(String v, String what) {
        String[] parts = v.split("[x.]");
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Integer.parseInt(parts[i].strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(what + " '" + v + "' is not a list of whole numbers like 4x4x8");
            }
        }
        return out;
    }

    /** Refuses parameters nobody read, naming the ones that exist. */
    public void checkAllUsed(List<String> known) {
        for (String k : params.keySet()) {
            if (!used.contains(k)) {
                throw new IllegalArgumentException(kind + ": unknown parameter '" + k + "'; known parameters: "
                        + String.join(", ", known));
            }
        }
    }

    static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /**
     * The product of {@code factors} (none negative), saturating at {@link Long#MAX_VALUE}: a size
     * check on a spec's dimensions must not wrap (65536^4 is 2^64, which a plain {@code long}
     * product makes 0, and a 0-switch torus passed every bound).
     */
    static long product(int... factors) {
        long p = 1;
        for (int f : factors) {
            if (f == 0) {
                return 0;
            }
            p = p > Long.MAX_VALUE / f ? Long.MAX_VALUE : p * f;
        }
        return p;
    }

    /** {@code n} as a size in a message: the number, or "more than 2^63" where {@link #product} saturated. */
    static String size(long n) {
        return n == Long.MAX_VALUE ? "more than 2^63" : Long.toString(n);
    }
}
