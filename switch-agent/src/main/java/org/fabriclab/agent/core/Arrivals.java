package org.fabriclab.agent.core;

import java.util.SplittableRandom;

/**
 * When a host's source creates its packets, so that "offered load" means one thing on both clocks:
 * packets created at a mean rate of the load's bytes per second, whether or not the network takes
 * them, into the host's {@link SourceQueue} (a packet's latency counts its wait there). Allocates
 * nothing; confined to the thread driving the host.
 */
public final class Arrivals {
    /** How the gaps between packets are drawn. */
    public enum Mode {
        /** Exponential gaps: a Poisson process (the default of both drivers). */
        POISSON,
        /** Every gap the mean: evenly paced (the simulator's flows; the live plane's old token bucket, without its bursts). */
        PACED
    }

    private final Mode mode;
    private final double meanGapNs;
    private final SplittableRandom random;
    private final long pacedGapNs;

    /**
     * @param meanGapNs the mean gap between packets in ns (a frame's time at the offered rate)
     * @param random    the host's generator (shared with its {@link Destinations}; PACED draws nothing)
     */
    public Arrivals(Mode mode, double meanGapNs, SplittableRandom random) {
        if (!(meanGapNs > 0)) {
            throw new IllegalArgumentException("the mean gap between packets must be positive, not " + meanGapNs + " ns");
        }
        this.mode = mode;
        this.meanGapNs = meanGapNs;
        this.random = random;
        this.pacedGapNs = Math.max(1, Math.round(meanGapNs));
    }

    /** The mean gap, in ns, between frames of {@code frameBytes} offered at {@code gbps}. */
    public static double meanGapNs(int frameBytes, double gbps) {
        return frameBytes * 8.0 / gbps;
    }

    /** The time to the next packet, at least 1 ns. */
    public long nextGapNs() {
        return mode == Mode.PACED ? pacedGapNs : Math.max(1, (long) (-Math.log(1 - random.nextDouble()) * meanGapNs));
    }
}
