package org.fabriclab.routing.torus;

/**
 * One source route packed into a {@code long}, as a packet header carries it (Angara writes the
 * route into the header flit at injection): bits 0 to 4 hold the number of hops, then three bits
 * per hop hold its direction (0 to 7: +X +Y +Z +K -X -Y -Z -K, as {@link Torus} numbers them). Up
 * to {@link #MAX_HOPS} hops; 0 is "no route" (the switches route by their tables). The hop a switch
 * takes is the packet's hop count so far: the first switch reads direction 0.
 */
public final class SourceRoute {
    /** The longest route a header holds: 5 + 3 x 19 = 62 bits. */
    public static final int MAX_HOPS = 19;

    private SourceRoute() {
    }

    /** @throws IllegalArgumentException for a route longer than {@link #MAX_HOPS} or a direction over 7 */
    public static long encode(byte[] directions) {
        if (directions.length > MAX_HOPS) {
            throw new IllegalArgumentException("a source route of " + directions.length + " hops; a header holds " + MAX_HOPS);
        }
        long r = directions.length;
        for (int h = 0; h < directions.length; h++) {
            if (directions[h] < 0 || directions[h] > 7) {
                throw new IllegalArgumentException("direction " + directions[h] + " at hop " + h + " is not one of 0..7");
            }
            r |= (long) directions[h] << (5 + 3 * h);
        }
        return r;
    }

    public static int length(long route) {
        return (int) (route & 31);
    }

    /** The direction of hop {@code hop} (0-based). */
    public static int direction(long route, int hop) {
        return (int) ((route >>> (5 + 3 * hop)) & 7);
    }
}
