package org.fabriclab.routing.fabric;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * A set of hosts written as on a batch system's command line: names and bracketed ranges separated
 * by commas, {@code H0_0_[0-3],G1_S[0-2]_H0,node[01-16,20]}; a range keeps the zero padding of its
 * first number. The result is the set of endpoints (linked ports) of those CAs.
 */
public final class NodeSet {
    private NodeSet() {
    }

    /**
     * Parses a node set.
     *
     * @throws IllegalArgumentException naming the first unknown name, a switch given as a host, or a bad range
     */
    public static BitSet parse(Fabric f, String text) {
        BitSet set = new BitSet(f.endpointCount());
        for (String item : splitTopLevel(text)) {
            for (String name : expand(item)) {
                int node = f.nodeByName(name).orElseThrow(() ->
                        new IllegalArgumentException("node set: no node named \"" + name + "\" in " + f.kind()));
                if (f.isSwitch(node)) {
                    throw new IllegalArgumentException("node set: \"" + name + "\" is a switch; give hosts (CAs)");
                }
                for (int p = 1; p <= f.portCount(node); p++) {
                    int e = f.endpointOfPort(f.globalPort(node, p));
                    if (e != Fabric.NONE) {
                        set.set(e);
                    }
                }
            }
        }
        if (set.isEmpty()) {
            throw new IllegalArgumentException("node set '" + text + "' names no cabled host");
        }
        return set;
    }

    private static List<String> splitTopLevel(String text) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        StringBuilder cur = new StringBuilder();
        for (char c : text.toCharArray()) {
            if (c == '[') {
                depth++;
            } else if (c == ']') {
                depth--;
            }
            if (c == ',' && depth == 0) {
                add(out, cur);
            } else {
                cur.append(c);
            }
        }
        add(out, cur);
        if (depth != 0) {
            throw new IllegalArgumentException("node set '" + text + "': unbalanced brackets");
        }
        return out;
    }

    private static void add(List<String> out, StringBuilder cur) {
        String s = cur.toString().strip();
        if (!s.isEmpty()) {
            out.add(s);
        }
        cur.setLength(0);
    }

    /** Expands the first bracket of {@code item}, recursively for the rest. */
    static List<String> expand(String item) {
        int open = item.indexOf('[');
        if (open < 0) {
            return List.of(item);
        }
        int close = item.indexOf(']', open);
        if (close < 0) {
            throw new IllegalArgumentException("node set item '" + item + "': '[' without ']'");
        }
        String prefix = item.substring(0, open);
        String suffix = item.substring(close + 1);
        List<String> out = new ArrayList<>();
        for (String part : item.substring(open + 1, close).split(",")) {
            String p = part.strip();
            int dash = p.indexOf('-');
            try {
                if (dash < 0) {
                    for (String rest : expand(suffix)) {
                        out.add(prefix + p + rest);
                    }
                    continue;
                }
                String lo = p.substring(0, dash);
                int a = Integer.parseInt(lo);
                int b = Integer.parseInt(p.substring(dash + 1));
                if (b < a || b - a > 1_000_000) {
                    throw new IllegalArgumentException("node set range '" + p + "' runs backwards or is too long");
                }
                String fmt = lo.length() > 1 && lo.startsWith("0") ? "%0" + lo.length() + "d" : "%d";
                for (int i = a; i <= b; i++) {
                    for (String rest : expand(suffix)) {
                        out.add(prefix + String.format(fmt, i) + rest);
                    }
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("node set range '" + p + "' in '" + item + "' is not N-M");
            }
        }
        return out;
    }
}
