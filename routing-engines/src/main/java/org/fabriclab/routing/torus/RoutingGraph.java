package org.fabriclab.routing.torus;

import java.util.Arrays;

/**
 * The routing graph of the Angara paper (section 3.1): per torus node {@code u}, the vertices
 * {@code begin}, {@code FS_j} (a first, positive, non-standard step in direction j was taken),
 * {@code dirbit_k} (the steps so far form the direction list k: per dimension none, + or -, taken
 * in the order +X+Y+Z+K-X-Y-Z-K), {@code LS_j} (a last, negative, non-standard step) and
 * {@code end}, {@code 3^n + 2n + 1} in all; a path from {@code begin(u)} to {@code end(v)} is a
 * route the Angara rules allow from u to v (Theorem 1), and every edge that moves along a link
 * names its channel. Built on int arrays (compressed rows); immutable once built.
 *
 * <p>Vertex {@code u * perNode() + local}, with local {@code 0} = begin, {@code 1 + j} = FS_j
 * ({@code j < n}), {@code n + k} = dirbit_k ({@code 1 <= k < 3^n}, k's base-3 digit for dimension
 * j: 0 none, 1 plus, 2 minus), {@code n + 3^n + j} = LS_j (direction {@code n + j}), {@code 2n +
 * 3^n} = end.
 *
 * <p>{@link #withDeadlockFreeTurns} adds the turns of section 3.2 that break the direction order
 * without closing a cycle in the channel dependency graph (Theorem 2).
 */
public final class RoutingGraph {
    private final Torus torus;
    private final int n;
    private final int dirbits;
    private final int perNode;
    private final int[] start;
    private final int[] target;
    private final int[] link;

    private RoutingGraph(Torus torus, int[] start, int[] target, int[] link) {
        this.torus = torus;
        this.n = torus.dimensions();
        this.dirbits = pow3(n);
        this.perNode = dirbits + 2 * n + 1;
        this.start = start;
        this.target = target;
        this.link = link;
    }

    static int pow3(int n) {
        int p = 1;
        for (int i = 0; i < n; i++) {
            p *= 3;
        }
        return p;
    }

    /** The routing graph of the rules of section 3.1 (FS/LS steps that keep the direction order) on {@code torus}'s links. */
    public static RoutingGraph of(Torus torus) {
        return build(torus, null);
    }

    /**
     * The routing graph with the deadlock-free turns of section 3.2 added ({@link DeadlockFreeTurns}):
     * a first positive step may be followed by a lower direction, and a last negative step may
     * follow a higher one, where the channel dependency graph stays free of cycles with turns.
     */
    public static RoutingGraph withDeadlockFreeTurns(Torus torus) {
        return build(torus, DeadlockFreeTurns.of(torus));
    }

    /**
     * Builds the graph; {@code extraTurns}, if given, are the deadlock-free turns of section 3.2 to
     * add: {@code extraTurns[c]} lists directions a packet that arrived over channel c may turn to
     * against the direction order.
     */
    static RoutingGraph build(Torus torus, int[][] extraTurns) {
        int n = torus.dimensions();
        int dirs = 2 * n;
        int dirbits = pow3(n);
        int perNode = dirbits + 2 * n + 1;
        int vertices = torus.nodes() * perNode;
        int[] start = new int[vertices + 1];
        IntList target = new IntList(vertices * 4);
        IntList link = new IntList(vertices * 4);
        int end = 2 * n + dirbits;
        for (int u = 0; u < torus.nodes(); u++) {
            int base = u * perNode;
            for (int local = 0; local < perNode; local++) {
                start[base + local] = target.size;
                if (local == 0) {
                    // begin: a first non-standard positive step, a first standard step, or the end
                    for (int d = 0; d < n; d++) {
                        step(torus, u, d, 1 + d, perNode, target, link);
                    }
                    for (int d = 0; d < dirs; d++) {
                        step(torus, u, d, n + digit(d, n), perNode, target, link);
                    }
                } else if (local <= n) {
                    int fs = local - 1;
                    for (int d = fs + 1; d < dirs; d++) {
                        step(torus, u, d, n + digit(d, n), perNode, target, link);
                    }
                    if (extraTurns != null) {
                        // section 3.2: after a first positive step, a turn against the order the CDG allows
                        int arrived = torus.arrivalChannel(u, fs);
                        if (arrived >= 0 && extraTurns[arrived] != null) {
                            for (int d : extraTurns[arrived]) {
                                if (d < fs) {
                                    step(torus, u, d, n + digit(d, n), perNode, target, link);
                                }
                            }
                        }
                    }
                } else if (local < n + dirbits) {
                    int k = local - n;
                    int last = lastDirection(k, n);
                    for (int d = last; d < dirs; d++) {
                        int dim = d % n;
                        int used = (k / pow3(dim)) % 3;
                        int sign = d < n ? 1 : 2;
                        if (used == 0 || used == sign) {
                            step(torus, u, d, n + (used == 0 ? k + sign * pow3(dim) : k), perNode, target, link);
                        }
                    }
                    for (int d = Math.max(n, last + 1); d < dirs; d++) {
                        step(torus, u, d, n + dirbits + (d - n), perNode, target, link);
                    }
                    if (extraTurns != null) {
                        // section 3.2: a last negative step against the order, where the CDG allows the turn
                        int arrived = torus.arrivalChannel(u, last);
                        if (arrived >= 0 && extraTurns[arrived] != null) {
                            for (int d : extraTurns[arrived]) {
                                if (d >= n && d < last) {
                                    step(torus, u, d, n + dirbits + (d - n), perNode, target, link);
                                }
                            }
                        }
                    }
                } else if (local == end) {
                    continue; // end: no way on
                }
                if (local != end) {
                    target.add(base + end);
                    link.add(-1);
                }
            }
        }
        start[vertices] = target.size;
        return new RoutingGraph(torus, start, target.toArray(), link.toArray());
    }

    /** An edge from u in direction d to local vertex {@code toLocal} of the neighbour, if the channel exists. */
    private static void step(Torus t, int u, int d, int toLocal, int perNode, IntList target, IntList link) {
        int c = t.channel(u, d);
        int v = t.next(c);
        if (v >= 0) {
            target.add(v * perNode + toLocal);
            link.add(c);
        }
    }

    /** The dirbit index of the single direction d. */
    private static int digit(int d, int n) {
        return (d < n ? 1 : 2) * pow3(d % n);
    }

    /** The last (highest-ordered) direction of direction list k. */
    static int lastDirection(int k, int n) {
        int last = -1;
        for (int j = 0; j < n; j++) {
            int s = (k / pow3(j)) % 3;
            if (s == 1) {
                last = Math.max(last, j);
            } else if (s == 2) {
                last = Math.max(last, n + j);
            }
        }
        return last;
    }

    public Torus torus() {
        return torus;
    }

    /** Vertices per torus node: {@code 3^n + 2n + 1}. */
    public int perNode() {
        return perNode;
    }

    public int vertexCount() {
        return start.length - 1;
    }

    public int edgeCount() {
        return target.length;
    }

    /** {@code begin(u)}. */
    public int begin(int u) {
        return u * perNode;
    }

    /** {@code end(u)}. */
    public int end(int u) {
        return u * perNode + 2 * n + dirbits;
    }

    /** The torus node of vertex v. */
    public int node(int v) {
        return v / perNode;
    }

    /** First out-edge of vertex v; its edges are {@code firstEdge(v) .. firstEdge(v + 1) - 1}. */
    public int firstEdge(int v) {
        return start[v];
    }

    public int edgeTarget(int e) {
        return target[e];
    }

    /** The channel edge e moves along, or -1 for a step to {@code end}. */
    public int edgeLink(int e) {
        return link[e];
    }

    /** What vertex v stands for, for messages and tests: {@code T0_1:begin}, {@code T0_1:FS+X}, {@code T0_1:dirbit(+X-Y)}, ... */
    public String describe(int v) {
        int local = v % perNode;
        String node = torus.name(node(v));
        if (local == 0) {
            return node + ":begin";
        }
        if (local <= n) {
            return node + ":FS" + torus.directionName(local - 1);
        }
        if (local < n + dirbits) {
            StringBuilder sb = new StringBuilder(node).append(":dirbit(");
            int k = local - n;
            for (int d = 0; d < 2 * n; d++) {
                int s = (k / pow3(d % n)) % 3;
                if (s == (d < n ? 1 : 2)) {
                    sb.append(torus.directionName(d));
                }
            }
            return sb.append(')').toString();
        }
        if (local < 2 * n + dirbits) {
            return node + ":LS" + torus.directionName(n + local - n - dirbits);
        }
        return node + ":end";
    }

    /** A growable int array. */
    static final class IntList {
        int[] a;
        int size;

        IntList(int capacity) {
            a = new int[Math.max(16, capacity)];
        }

        void add(int x) {
            if (size == a.length) {
                a = Arrays.copyOf(a, a.length * 2);
            }
            a[size++] = x;
        }

        int[] toArray() {
            return Arrays.copyOf(a, size);
        }
    }
}
