package org.fabriclab.routing.dragonfly;

import java.util.Locale;
import java.util.regex.Pattern;
import org.fabriclab.routing.text.Excerpt;

/**
 * Where Q-adaptive's learning starts: a router's Q-table before any packet, in nanoseconds, by one
 * of three policies ({@link Policy}). The paper initialises it with "the theoretical packet
 * delivery time without any congestion through a minimal routing path" (section 5.1), and its
 * simulator computes that as the time to reach the destination group: the column of a global port
 * leading straight to the row's group holds one global hop, every other column one global and one
 * local hop ({@link #minimal}). A hop is the packet's time on the wire plus the cable's delay. Rows
 * of the router's own group are never read (it routes minimally there) and hold 0 whatever the
 * policy.
 */
public final class QSeeds {
    /**
     * {@code qtable_seed}'s prefix of a stored snapshot's name ({@code snapshot:NAME}): the engine
     * seeds by {@code minimal} and whoever keeps the snapshots (the daemon's state directory) puts
     * the snapshot's values in its place.
     */
    public static final String SNAPSHOT = "snapshot:";
    /** A snapshot's name: a file name of its own, no path separator, no leading dot, bounded. */
    public static final Pattern SNAPSHOT_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    /** {@link #SNAPSHOT_NAME} in words. */
    public static final String SNAPSHOT_NAME_RULE = "1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit "
            + "(no path separators)";

    private QSeeds() {
    }

    /**
     * The snapshot {@code qtable_seed} names ({@code snapshot:NAME}), or null for a policy.
     *
     * @throws IllegalArgumentException for a name that is no snapshot name
     */
    public static String snapshotName(String value) {
        if (value == null || !value.strip().startsWith(SNAPSHOT)) {
            return null;
        }
        String name = value.strip().substring(SNAPSHOT.length());
        if (!SNAPSHOT_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("qtable_seed=" + Excerpt.bare(value) + ": the snapshot's name is not " + SNAPSHOT_NAME_RULE);
        }
        return name;
    }

    /**
     * The seed policies, as the engine parameter {@code qtable_seed} names them. Learning is
     * hysteretic: a value falls by {@code alpha} (0.2) of the gap when a route proves quicker than
     * it says, and rises by only {@code beta} (0.04) when slower. So:
     * <ul>
     *   <li>{@code minimal} (the paper's): every value a lower bound of the real time (no queueing),
     *       the direct port the least; a router starts minimal and learns congestion from below, at
     *       the slow rate; the paper's convergence is measured from here;</li>
     *   <li>{@code hops}: the fewest hops to the group through each port times one nominal hop
     *       time; detours ranked by length (minimal ranks every indirect port alike), values above
     *       the real time where a hop is local (they fall fast) and below it where global;</li>
     *   <li>{@code zero}: every port looks free; with the minimal port at 0 no port can be a
     *       fraction quicker (Equation 2), so the router keeps minimal until feedback has raised
     *       the minimal port's value at the slow rate: the slowest start under adversarial traffic.</li>
     * </ul>
     */
    public enum Policy {
        MINIMAL, HOPS, ZERO;

        /** The name {@code qtable_seed} takes. */
        public String key() {
            return name().toLowerCase(Locale.ROOT);
        }

        /**
         * The policy named {@code key} ({@code minimal}, {@code hops}, {@code zero}).
         *
         * @throws IllegalArgumentException naming the value and the policies there are
         */
        public static Policy of(String key) {
            for (Policy p : values()) {
                if (p.key().equals(key == null ? "" : key.strip())) {
                    return p;
                }
            }
            throw new IllegalArgumentException("qtable_seed=" + Excerpt.bare(key) + " is no seed policy; there are minimal (the paper's), hops "
                    + "(hop count x hop_ns), zero, and " + SNAPSHOT + "NAME (a snapshot the daemon keeps)");
        }
    }

    /**
     * The paper's seed for router {@code r}.
     *
     * @param localHopNs  a packet's time across a local link (serialisation plus delay)
     * @param globalHopNs a packet's time across a global link
     */
    public static float[] minimal(DragonflySwitch r, double localHopNs, double globalHopNs) {
        return fill(r, (t, p) -> r.kind(p) == DragonflySwitch.GLOBAL && r.peer(p) == t ? globalHopNs : globalHopNs + localHopNs);
    }

    /**
     * The hop-count seed for router {@code r}: per row's group and column, the fewest
     * router-to-router hops from {@code r} to a router of that group leaving by the column's port,
     * times {@code hopNs}. One hop through a global port straight to the group; through any other
     * port one hop to the next router, then none if it is in the group, one if it has a global link
     * to it, else two (a local hop to its group's gateway, then the global one).
     *
     * @param next per port of {@code r}, the router at its other end (null for a host port or none)
     */
    public static float[] hops(DragonflySwitch r, DragonflySwitch[] next, double hopNs) {
        if (next.length != r.ports() + 1) {
            throw new IllegalArgumentException("the routers beyond " + r + " are given for " + (next.length - 1) + " ports, not "
                    + r.ports());
        }
        return fill(r, (t, p) -> {
            DragonflySwitch n = next[p];
            if (n == null) {
                throw new IllegalArgumentException("port " + p + " of " + r + " is a Q-table column but leads to no router");
            }
            int beyond = n.group() == t ? 0 : n.globalPort(t) != 0 ? 1 : 2;
            return (1 + beyond) * hopNs;
        });
    }

    /** Every value 0: every port looks free until feedback says otherwise. */
    public static float[] zero(DragonflySwitch r) {
        return new float[r.rows() * r.columns()];
    }

    /** A value per (destination group, non-host port) of another group. */
    private interface Value {
        double of(int group, int port);
    }

    /** Router {@code r}'s table with {@code v} in every row of another group (each host slot alike), 0 in its own group's. */
    private static float[] fill(DragonflySwitch r, Value v) {
        int cols = r.columns();
        float[] q = new float[r.rows() * cols];
        for (int t = 0; t < r.groups(); t++) {
            if (t == r.group()) {
                continue;
            }
            for (int c = 0; c < cols; c++) {
                float x = (float) v.of(t, r.portOfColumn(c));
                for (int slot = 0; slot < r.hostsPerRouter(); slot++) {
                    q[r.row(t, slot) * cols + c] = x;
                }
            }
        }
        return q;
    }

    /**
     * What a router that learnt under routing {@code before} starts from under {@code after}, the
     * same router's routing after the fabric changed (a link failed or came back): the learnt value
     * where the row's minimal path and the column's port are as they were, the new seed elsewhere.
     * A row (destination group, host slot) keeps its learnt values if the router's minimal way to
     * the group is the same ({@link #sameWay}: its own global link to the group, or the local link
     * to the same gateway router; of parallel links, any one left); within it, a column keeps its
     * value if its port leads where it led (the same kind, the same router or group), so a failed
     * parallel link's column goes and its siblings' stay. A row whose minimal way changed is reseeded whole: its values described
     * paths that are no longer the minimal ones. Rows of the router's own group hold 0 as ever.
     *
     * @param learnt the values the router holds under {@code before}
     * @return the seed for {@code after}, or null where nothing carries over (another router or
     *         Dragonfly, no Q-table, values of another shape): then {@code after}'s own seed
     */
    public static CarriedOver carryOver(DragonflySwitch before, float[] learnt, DragonflySwitch after) {
        if (before == null || after == null || before.qSeed() == null || after.qSeed() == null || learnt == null
                || learnt.length != before.rows() * before.columns() || before.groups() != after.groups()
                || before.hostsPerRouter() != after.hostsPerRouter() || before.group() != after.group() || before.index() != after.index()) {
            return null;
        }
        float[] seed = after.qSeed().clone();
        int cols = after.columns();
        int oldCols = before.columns();
        int kept = 0;
        int reseeded = 0;
        for (int t = 0; t < after.groups(); t++) {
            if (t == after.group()) {
                continue;
            }
            boolean same = sameWay(before, after, t);
            for (int slot = 0; slot < after.hostsPerRouter(); slot++) {
                if (!same) {
                    reseeded++;
                    continue;
                }
                kept++;
                int row = after.row(t, slot);
                for (int c = 0; c < cols; c++) {
                    int p = after.portOfColumn(c);
                    int old = before.column(p);
                    if (old >= 0 && before.kind(p) == after.kind(p) && before.peer(p) == after.peer(p)) {
                        seed[row * cols + c] = learnt[before.row(t, slot) * oldCols + old];
                    }
                }
            }
        }
        return new CarriedOver(seed, kept, reseeded);
    }

    /**
     * True if router {@code before} and the same router {@code after} a routing change go
     * minimally to group {@code t} the same way: both by a global link of their own to it, or both
     * by a local link to the same gateway router. The place the minimal hop leads, not the port
     * number: where parallel links lead there ({@code trunk=N}), losing the lowest leaves the way
     * as it was through the others, whose learnt values still describe it.
     */
    static boolean sameWay(DragonflySwitch before, DragonflySwitch after, int t) {
        int b = DragonflyRules.towardGroup(before, t);
        int a = DragonflyRules.towardGroup(after, t);
        return before.kind(b) == after.kind(a) && before.peer(b) == after.peer(a);
    }

    /**
     * A seed carried over a routing change ({@link #carryOver}): the values, and the rows of other
     * groups that kept their learnt values and that were reseeded.
     */
    public record CarriedOver(float[] seed, int rowsKept, int rowsReseeded) {
    }
}
