package org.fabriclab.agent.link;

/**
 * What a host sends: to which destination LIDs, how it picks among them, at what rate and size.
 *
 * @param destinations   destination LIDs
 * @param pattern        how each packet's destination is picked
 * @param rateGbps       offered rate; 0 sends as fast as credits allow
 * @param payloadBytes   payload of each packet (the frame adds {@link Frames#DATA_HEADER} bytes)
 * @param packets        packets to send in all; 0 for no limit
 * @param seed           seed of the random picks
 */
public record Traffic(int[] destinations, Pattern pattern, double rateGbps, int payloadBytes, long packets, long seed) {
    /** How a host picks the destination of its next packet. */
    public enum Pattern {
        /** Uniformly at random among the destinations. */
        UNIFORM,
        /** The destinations in turn (all-to-all when they are every other host; one-to-one with one). */
        ROUND_ROBIN
    }

    public Traffic {
        destinations = destinations.clone();
        if (destinations.length == 0) {
            throw new IllegalArgumentException("traffic needs at least one destination LID");
        }
        if (payloadBytes < 0 || payloadBytes > Frames.MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload " + payloadBytes + " bytes is outside 0.." + Frames.MAX_PAYLOAD);
        }
        if (rateGbps < 0 || packets < 0) {
            throw new IllegalArgumentException("rate and packet count must not be negative");
        }
    }
}
