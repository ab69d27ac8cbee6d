package org.fabriclab.routing.torus;

import java.util.Arrays;
import java.util.BitSet;

/**
 * Source routes among a set of torus nodes, as Angara's routers hold them: per source, per
 * destination, the directions of the route, which the router writes into a packet's header at
 * injection (nothing is looked up on the way). Routes are stored one after another in one byte array
 * of directions, with a start and a length per pair; a pair with no route allowed by the rules is
 * marked unroutable, not left out.
 */
public final class SourceRoutes {
    /** The longest route a pair can hold (its length is kept in a byte). */
    static final int MAX_HOPS = 255;

    private final Torus torus;
    private final String engine;
    private final int[] members;
    /** Every route's directions, one after another; pair {@code i * size + j} starts at {@code start[p]}. */
    private final byte[] pool;
    private final int[] start;
    private final byte[] length;
    private final BitSet unroutable;

    private SourceRoutes(Torus torus, String engine, int[] members, byte[] pool, int[] start, byte[] length, BitSet unroutable) {
        this.torus = torus;
        this.engine = engine;
        this.members = members;
        this.pool = pool;
        this.start = start;
        this.length = length;
        this.unroutable = unroutable;
    }

    public Torus torus() {
        return torus;
    }

    /** The engine that made them. */
    public String engine() {
        return engine;
    }

    /** Number of nodes in the set. */
    public int size() {
        return members.length;
    }

    /** The set index of torus node u, or -1 if it is not in the set. */
    public int indexOf(int u) {
        int i = Arrays.binarySearch(members, u);
        return i >= 0 ? i : -1;
    }

    /** The route from member i to member j as directions (empty for i == j or an unroutable pair). */
    public byte[] directions(int i, int j) {
        int p = i * members.length + j;
        return Arrays.copyOfRange(pool, start[p], start[p] + length(i, j));
    }

    /** The torus node of set member i (members in ascending node order). */
    public int member(int i) {
        return members[i];
    }

    /** True if the rules allow no route from member i to member j (with the links there are). */
    public boolean unroutable(int i, int j) {
        return unroutable.get(i * members.length + j);
    }

    /** Pairs with no route. */
    public int unroutableCount() {
        return unroutable.cardinality();
    }

    /** Hops of the route from member i to member j (0 for i == j or an unroutable pair). */
    public int length(int i, int j) {
        return length[i * members.length + j] & 0xFF;
    }

    /** Direction of hop h of the route from member i to member j. */
    public int direction(int i, int j, int h) {
        return pool[start[i * members.length + j] + h];
    }

    /** The route from member i to member j as direction names, e.g. {@code +X+X-Z}. */
    public String describe(int i, int j) {
        if (unroutable(i, j)) {
            return "unroutable";
        }
        StringBuilder sb = new StringBuilder();
        for (int h = 0; h < length(i, j); h++) {
            sb.append(torus.directionName(direction(i, j, h)));
        }
        return sb.toString();
    }

    /**
     * Collects routes pair by pair, in any order, into one growing array of directions (no array
     * per pair: a 4,096-node set has 16.8 million pairs); pairs may share one route's directions.
     * A pair routed twice keeps the last route.
     */
    public static final class Builder {
        private final Torus torus;
        private final int[] members;
        private final int[] indexOf;
        private byte[] pool = new byte[1 << 12];
        private int used;
        private final int[] start;
        private final byte[] length;
        private final BitSet unroutable = new BitSet();

        public Builder(Torus torus, int[] members) {
            this.torus = torus;
            this.members = members.clone();
            Arrays.sort(this.members);
            indexOf = new int[torus.nodes()];
            Arrays.fill(indexOf, -1);
            for (int i = 0; i < this.members.length; i++) {
                indexOf[this.members[i]] = i;
            }
            int pairs = Math.multiplyExact(this.members.length, this.members.length);
            start = new int[pairs];
            length = new byte[pairs];
        }

        /** The set index of torus node u, or -1. */
        public int indexOf(int u) {
            return indexOf[u];
        }

        public int size() {
            return members.length;
        }

        public int member(int i) {
            return members[i];
        }

        /** The route from member i to member j: its directions in order. */
        public Builder route(int i, int j, byte[] dirs) {
            return route(i, j, dirs, 0, dirs.length);
        }

        /** The route from member i to member j: {@code len} directions of {@code dirs} from {@code from}. */
        public Builder route(int i, int j, byte[] dirs, int from, int len) {
            return routeAt(i, j, keep(dirs, from, len), len);
        }

        /**
         * Keeps {@code len} directions of {@code dirs} from {@code from} once, for any number of
         * pairs to share ({@link #routeAt}); where they start.
         */
        public int keep(byte[] dirs, int from, int len) {
            if (len > MAX_HOPS) {
                throw new IllegalArgumentException("a route of " + len + " hops is longer than the " + MAX_HOPS + " a route can hold");
            }
            if (used + len > pool.length) {
                pool = Arrays.copyOf(pool, Math.max(used + len, (int) Math.min(Integer.MAX_VALUE - 8, pool.length * 2L)));
            }
            System.arraycopy(dirs, from, pool, used, len);
            used += len;
            return used - len;
        }

        /** The route from member i to member j: the {@code len} directions kept at {@code start} ({@link #keep}). */
        public Builder routeAt(int i, int j, int start, int len) {
            int p = i * members.length + j;
            this.start[p] = start;
            length[p] = (byte) len;
            return this;
        }

        /** No route from member i to member j. */
        public Builder unroutable(int i, int j) {
            unroutable.set(i * members.length + j);
            return this;
        }

        /** The routes; the builder is spent (its arrays become the routes'). */
        public SourceRoutes build(String engine) {
            int m = members.length;
            for (int i = 0, p = 0; i < m; i++) {
                for (int j = 0; j < m; j++, p++) {
                    if (length[p] == 0 && i != j && !unroutable.get(p)) { // a route between two nodes has a hop
                        throw new IllegalStateException(engine + " left the pair " + torus.name(members[i]) + " -> " + torus.name(members[j])
                                + " without a route or an unroutable mark");
                    }
                }
            }
            return new SourceRoutes(torus, engine, members, Arrays.copyOf(pool, used), start, length, unroutable);
        }
    }
}
