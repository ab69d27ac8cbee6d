package org.fabriclab.routing.fabric;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.function.Consumer;
import org.fabriclab.routing.text.Excerpt;

/**
 * A set of hosts written as on a batch system's command line: names and bracketed ranges separated
 * by commas, {@code H0_0_[0-3],G1_S[0-2]_H0,node[01-16,20]}; a range keeps the zero padding of its
 * first number, and a bracket may also list names ({@code H[a,b]}). The result is the set of
 * endpoints (linked ports) of those CAs.
 *
 * <p>Bounded, and matched lazily: what an item names is counted before any name is made, and a set
 * that names more than twice as many hosts as the fabric has nodes (repeats counted) is refused
 * with that count; the names are then made one at a time and looked up in the fabric, the first
 * unknown one refused. So {@code H[0-999]_[0-999]_[0-999]} (10^9 names, which took 75 s of both
 * cores and then the heap) costs a multiplication, and any set costs at most its text plus twice
 * the fabric's size.
 */
public final class NodeSet {
    private NodeSet() {
    }

    /** One choice of a bracket: a name piece, or the numbers {@code lo..hi} written with {@code format}. */
    private record Part(String literal, long lo, long hi, String format) {
        long size() {
            return literal != null ? 1 : hi - lo == Long.MAX_VALUE ? Long.MAX_VALUE : hi - lo + 1;
        }
    }

    /** One bracket's (or a literal's) choices, in the order written. */
    private record Segment(List<Part> parts) {
        long count() {
            long n = 0;
            for (Part p : parts) {
                n = saturatedAdd(n, p.size());
            }
            return n;
        }

        /** Choice {@code k} of this segment, {@code 0 <= k < count()}. */
        void append(StringBuilder b, long k) {
            for (Part p : parts) {
                if (k < p.size()) {
                    b.append(p.literal() != null ? p.literal() : String.format(p.format(), p.lo() + k));
                    return;
                }
                k -= p.size();
            }
            throw new IllegalStateException("choice out of range");
        }

        static Segment literal(String text) {
            return new Segment(List.of(new Part(text, 0, 0, null)));
        }
    }

    /**
     * Parses a node set.
     *
     * @throws IllegalArgumentException naming the first unknown name, a switch given as a host, a bad
     *                                  range, or a set that names more hosts than the fabric could hold
     */
    public static BitSet parse(Fabric f, String text) {
        BitSet set = new BitSet(f.endpointCount());
        long limit = 2L * Math.max(1, f.nodeCount());
        long total = 0;
        for (String item : splitTopLevel(text)) {
            List<Segment> segments = segments(item);
            long count = count(segments);
            total = saturatedAdd(total, count);
            if (total > limit) {
                String bound = "a set may name at most " + limit + " hosts (twice the " + f.nodeCount() + " nodes of " + f.kind()
                        + ", repeats counted)";
                throw new IllegalArgumentException(count > limit
                        ? "node set: '" + Excerpt.bare(item) + "' names " + (count == Long.MAX_VALUE ? "2^63 or more" : Long.toString(count))
                                + " hosts; " + bound
                        : "node set: with '" + Excerpt.bare(item) + "' the set names more than " + limit + " hosts; " + bound);
            }
            names(segments, count, name -> add(f, set, name));
        }
        if (set.isEmpty()) {
            throw new IllegalArgumentException("node set '" + Excerpt.bare(text) + "' names no cabled host");
        }
        return set;
    }

    private static void add(Fabric f, BitSet set, String name) {
        int node = f.nodeByName(name).orElseThrow(() ->
                new IllegalArgumentException("node set: no node named \"" + Excerpt.bare(name) + "\" in " + f.kind()));
        if (f.isSwitch(node)) {
            throw new IllegalArgumentException("node set: \"" + Excerpt.bare(name) + "\" is a switch; give hosts (CAs)");
        }
        for (int p = 1; p <= f.portCount(node); p++) {
            int e = f.endpointOfPort(f.globalPort(node, p));
            if (e != Fabric.NONE) {
                set.set(e);
            }
        }
    }

    private static List<String> splitTopLevel(String text) {
        List<String> out = new ArrayList<>();
        int depth = 0;
        StringBuilder cur = new StringBuilder();
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
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
            throw new IllegalArgumentException("node set '" + Excerpt.bare(text) + "': unbalanced brackets");
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

    /** An item's literal text and brackets, in order; nothing is expanded. */
    private static List<Segment> segments(String item) {
        List<Segment> out = new ArrayList<>();
        int at = 0;
        while (at < item.length()) {
            int open = item.indexOf('[', at);
            if (open < 0) {
                out.add(Segment.literal(item.substring(at)));
                break;
            }
            if (open > at) {
                out.add(Segment.literal(item.substring(at, open)));
            }
            int close = item.indexOf(']', open);
            if (close < 0) {
                throw new IllegalArgumentException("node set item '" + Excerpt.bare(item) + "': '[' without ']'");
            }
            out.add(bracket(item, item.substring(open + 1, close)));
            at = close + 1;
        }
        return out;
    }

    private static Segment bracket(String item, String inside) {
        List<Part> parts = new ArrayList<>();
        for (String part : inside.split(",", -1)) {
            String p = part.strip();
            int dash = p.indexOf('-');
            if (dash < 0) {
                parts.add(new Part(p, 0, 0, null));
                continue;
            }
            String lo = p.substring(0, dash);
            long a;
            long b;
            try {
                a = Long.parseLong(lo);
                b = Long.parseLong(p.substring(dash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("node set range '" + Excerpt.bare(p) + "' in '" + Excerpt.bare(item) + "' is not N-M");
            }
            if (a < 0 || b < a) {
                throw new IllegalArgumentException("node set range '" + Excerpt.bare(p) + "' runs backwards");
            }
            parts.add(new Part(null, a, b, lo.length() > 1 && lo.startsWith("0") ? "%0" + lo.length() + "d" : "%d"));
        }
        return new Segment(parts);
    }

    /** The names an item stands for, in order (tests; a parse never lists them). */
    static List<String> expand(String item) {
        List<Segment> segments = segments(item);
        List<String> out = new ArrayList<>();
        names(segments, count(segments), out::add);
        return out;
    }

    private static long count(List<Segment> segments) {
        long count = 1;
        for (Segment s : segments) {
            count = saturatedMultiply(count, s.count());
        }
        return count;
    }

    /** Hands {@code each} the {@code count} names of {@code segments} one at a time, the last bracket turning fastest. */
    private static void names(List<Segment> segments, long count, Consumer<String> each) {
        long[] counts = new long[segments.size()];
        for (int s = 0; s < counts.length; s++) {
            counts[s] = segments.get(s).count();
        }
        long[] choice = new long[segments.size()];
        StringBuilder name = new StringBuilder();
        for (long i = 0; i < count; i++) {
            name.setLength(0);
            for (int s = 0; s < counts.length; s++) {
                segments.get(s).append(name, choice[s]);
            }
            each.accept(name.toString());
            for (int s = counts.length - 1; s >= 0; s--) {
                if (++choice[s] < counts[s]) {
                    break;
                }
                choice[s] = 0;
            }
        }
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return r < 0 ? Long.MAX_VALUE : r;
    }

    private static long saturatedMultiply(long a, long b) {
        return a == 0 || b == 0 ? 0 : a > Long.MAX_VALUE / b ? Long.MAX_VALUE : a * b;
    }
}
