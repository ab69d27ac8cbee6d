package org.fabriclab.emulator.sim;

/**
 * Steady-state detection ({@code --until-steady}): watches a run in consecutive windows of
 * simulated delivery time and says when it has stopped changing, so that the measured window can
 * start then instead of after a fixed warm-up.
 *
 * <p>The test, at the end of every window from the {@link Simulation.Steady#WINDOWS}-th on: over
 * the last {@code WINDOWS} windows, every window's mean latency (of the packets delivered in it,
 * creation to delivery, whenever created) and every window's throughput (bytes delivered in it)
 * lie within {@code tolerance} of those windows' mean, and every window delivered a packet. A
 * trend shows as its first and last windows straying from the middle; an excursion (a burst of
 * exploration, a queue filling) as one window straying. It is BookSim2's warm-up test
 * ({@code warmup_thres} on latency, {@code acc_warmup_thres} on accepted rate: the change between
 * consecutive sample periods within 5%) made stricter, every window of a span against the span's
 * mean rather than each against the one before: a slow drift that changes little from one window
 * to the next but much over the span (Q-adaptive learning under adversarial traffic) is not taken
 * for a steady state. A saturated run with bounded source queues is steady once its queues are
 * full: the throughput is the fabric's, the latency bounded by the queues.
 *
 * <p>Allocates nothing after construction; {@link #delivered} runs once per packet. Confined to the
 * simulation's thread.
 */
final class SteadyState {
    private final double tolerance;
    /** Per window of the last {@code WINDOWS}, a ring: packets delivered, their latencies' sum (ns), their bytes. */
    private final long[] packets;
    private final long[] latencyNs;
    private final long[] bytes;
    /** Windows closed so far. */
    private int closed;
    // the window being filled
    private long openPackets;
    private long openLatencyNs;
    private long openBytes;

    SteadyState(Simulation.Steady steady) {
        tolerance = steady.tolerance();
        packets = new long[Simulation.Steady.WINDOWS];
        latencyNs = new long[Simulation.Steady.WINDOWS];
        bytes = new long[Simulation.Steady.WINDOWS];
    }

    /** A packet of {@code frameBytes} was delivered {@code latency} ns after its creation, in the window being filled. */
    void delivered(long latency, int frameBytes) {
        openPackets++;
        openLatencyNs += latency;
        openBytes += frameBytes;
    }

    /** Closes the window being filled and opens the next; true if the run is steady by the test above. */
    boolean closeWindow() {
        int i = closed % packets.length;
        packets[i] = openPackets;
        latencyNs[i] = openLatencyNs;
        bytes[i] = openBytes;
        openPackets = 0;
        openLatencyNs = 0;
        openBytes = 0;
        closed++;
        if (closed < packets.length) {
            return false;
        }
        double meanLatency = 0;
        double meanBytes = 0;
        for (int w = 0; w < packets.length; w++) {
            if (packets[w] == 0) {
                return false;
            }
            meanLatency += (double) latencyNs[w] / packets[w];
            meanBytes += bytes[w];
        }
        meanLatency /= packets.length;
        meanBytes /= packets.length;
        for (int w = 0; w < packets.length; w++) {
            if (Math.abs((double) latencyNs[w] / packets[w] - meanLatency) > tolerance * meanLatency
                    || Math.abs(bytes[w] - meanBytes) > tolerance * meanBytes) {
                return false;
            }
        }
        return true;
    }
}
