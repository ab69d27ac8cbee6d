package org.fabriclab.routing.dragonfly;

/**
 * The routing state a packet carries through a Dragonfly, packed in one {@code long}: the 64-bit
 * route field of the packet header, which on a torus holds Angara's source route instead (a fabric
 * is one or the other). 0 is a fresh packet: no intermediate, no decision taken, no stamp.
 *
 * <pre>
 *  63      55 54 53 52 51          44 43           32 31                              0
 *  +---------+--+--+--+--------------+---------------+---------------------------------+
 *  | unused  |D |R |N | interRouter+1| interGroup+1  | stamp (ns, low 32 bits)         |
 *  +---------+--+--+--+--------------+---------------+---------------------------------+
 * </pre>
 * N: routed through an intermediate (non-minimal); R: the intermediate was reached, the packet is
 * on its way to the destination; D: the one later decision an algorithm allows has been taken
 * (PAR's re-evaluation, Q-adaptive's choice at the first router of an intermediate group). The
 * stamp is when the packet arrived at the router it last left (Q-adaptive's reward is the time from
 * there to the next router); times are compared modulo 2^32 ns, so a hop may take up to 2 s.
 * Groups up to {@link #MAX_GROUPS}, routers per group up to {@link #MAX_ROUTERS}.
 */
public final class DragonflyHeader {
    /** Groups the header can name. */
    public static final int MAX_GROUPS = 4094;
    /** Routers per group the header can name. */
    public static final int MAX_ROUTERS = 254;
    public static final long NONMINIMAL = 1L << 52;
    public static final long REACHED = 1L << 53;
    public static final long DECIDED = 1L << 54;
    private static final int GROUP_SHIFT = 32;
    private static final int ROUTER_SHIFT = 44;
    private static final long GROUP_MASK = 0xFFFL << GROUP_SHIFT;
    private static final long ROUTER_MASK = 0xFFL << ROUTER_SHIFT;
    private static final long STAMP_MASK = 0xFFFFFFFFL;

    private DragonflyHeader() {
    }

    /** The intermediate group, or -1. */
    public static int interGroup(long w) {
        return (int) ((w & GROUP_MASK) >>> GROUP_SHIFT) - 1;
    }

    /** The intermediate router's index in its group, or -1 (any router of the group). */
    public static int interRouter(long w) {
        return (int) ((w & ROUTER_MASK) >>> ROUTER_SHIFT) - 1;
    }

    /** {@code w} routed through intermediate {@code group} (and {@code router}, or -1 for any), not yet reached. */
    public static long nonminimal(long w, int group, int router) {
        return (w & STAMP_MASK) | NONMINIMAL | ((long) (group + 1) << GROUP_SHIFT) | ((long) (router + 1) << ROUTER_SHIFT)
                | (w & DECIDED);
    }

    /** {@code w} with the routing choice undone (a source router deciding again), the stamp kept. */
    public static long minimal(long w) {
        return w & STAMP_MASK;
    }

    public static boolean has(long w, long flag) {
        return (w & flag) != 0;
    }

    /** The stamp: when the packet arrived at the router it last left, ns modulo 2^32. */
    public static int stamp(long w) {
        return (int) w;
    }

    public static long withStamp(long w, long timeNs) {
        return (w & ~STAMP_MASK) | (timeNs & STAMP_MASK);
    }
}
