package org.fabriclab.routing.torus;

import java.util.Arrays;
import java.util.BitSet;

/**
 * Source routes among a set of torus nodes, as Angara's routers hold them: per source, per
 * destination, the directions of the route, which the router writes into a packet's header at
 * injection (nothing is looked up on the way). Routes are stored per source as one byte array of
 * directions with offsets per destination; a pair with no route allowed by the rules is marked
 * unroutable, not left out.
 */
public final class SourceRoutes {
    private final Torus torus;
    private final String engine;
    private final int[] members;
    private final byte[][] directions;
    private final int[][] offsets;
    private final BitSet unroutable;

    private SourceRoutes(Torus torus, String engine, int[] members, byte[][] directions, int[][] offsets, BitSet unroutable) {
        this.torus = torus;
        this.engine = engine;
        this.members = members;
        this.directions = directions;
        this.offsets = offsets;
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
        int i = java.util.Arrays.binarySearch(members, u);
        return i >= 0 ? i : -1;
    }

    /** The route from member i to member j as directions (empty for i == j or an unroutable pair). */
    public byte[] directions(int i, int j) {
        return java.util.Arrays.copyOfRange(directions[i], offsets[i][j], offsets[i][j + 1]);
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
        return offsets[i][j + 1] - offsets[i][j];
    }

    /** Direction of hop h of the route from member i to member j. */
    public int direction(int i, int j, int h) {
        return directions[i][offsets[i][j] + h];
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

    /** Collects routes source by source. */
    public static final class Builder {
        private final Torus torus;
        private final int[] members;
        private final int[] indexOf;
        private final byte[][] directions;
        private final int[][] offsets;
        private final byte[][] pending;
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
            directions = new byte[this.members.length][];
            offsets = new int[this.members.length][];
            pending = new byte[this.members.length * this.members.length][];
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

        /** The route from member i to member j: its directions in order (kept until {@link #build}). */
        public Builder route(int i, int j, byte[] dirs) {
            pending[i * members.length + j] = dirs;
            return this;
        }

        /** No route from member i to member j. */
        public Builder unroutable(int i, int j) {
            unroutable.set(i * members.length + j);
            return this;
        }

        public SourceRoutes build(String engine) {
            int m = members.length;
            for (int i = 0; i < m; i++) {
                int total = 0;
                offsets[i] = new int[m + 1];
                for (int j = 0; j < m; j++) {
                    byte[] d = pending[i * m + j];
                    if (d == null && i != j && !unroutable.get(i * m + j)) {
                        throw new IllegalStateException(engine + " left the pair " + torus.name(members[i]) + " -> " + torus.name(members[j])
                                + " without a route or an unroutable mark");
                    }
                    offsets[i][j] = total;
                    total += d == null ? 0 : d.length;
                }
                offsets[i][m] = total;
                directions[i] = new byte[total];
                for (int j = 0; j < m; j++) {
                    byte[] d = pending[i * m + j];
                    if (d != null) {
                        System.arraycopy(d, 0, directions[i], offsets[i][j], d.length);
                        pending[i * m + j] = null;
                    }
                }
            }
            return new SourceRoutes(torus, engine, members, directions, offsets, (BitSet) unroutable.clone());
        }
    }
}
