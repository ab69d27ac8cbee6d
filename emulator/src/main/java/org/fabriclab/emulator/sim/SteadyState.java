package org.fabriclab.emulator.sim;

/**
 * Steady-state detection ({@code --until-steady}): watches a run in consecutive windows of
 * simulated delivery time and says when it has stopped changing, so that the measured window can
 * start then instead of after a fixed warm-up.
 *
 * <p>Two parts, at the end of every window. <b>The band</b>: over the last {@link
 * Simulation.Steady#WINDOWS} windows, every window's mean latency (of the packets delivered in it,
 * creation to delivery, whenever created) and every window's throughput (bytes delivered in it)
 * lie within {@code tolerance} of those windows' mean, and every window delivered a packet. It is
 * BookSim2's warm-up test ({@code warmup_thres} on latency, {@code acc_warmup_thres} on accepted
 * rate: the change between consecutive sample periods within 5%) made stricter, every window of a
 * span against the span's mean: it catches an excursion (a burst of exploration, a queue filling)
 * and a fast trend. <b>The drift</b> ({@code drift} above 0, the default): over the <em>last half
 * of the run so far</em> (the windows closed, halved; so it is judged from twice {@code WINDOWS}
 * windows on), the drift of the least-squares line through the windows' mean latencies, and of
 * the one through their throughputs (the slope times the half's length, over the half's mean),
 * lies within {@code drift}; and every window of the half delivered a packet.
 *
 * <p>Why. Ten windows alone cannot tell a drift of a few per cent over their span from the run's
 * own fluctuations (issue 16: PAR at UR 0.8 on the 1,056-node Dragonfly, its latency rising about
 * 2.5% per 20 us until 120 us, was called steady at 24 us by ten 2 us windows and measured 5.7%
 * low; Q-adaptive under ADV+4 at 0.5, its throughput rising 1% per 100 us until about 1 ms, was
 * called steady at 570 us and carried 1.5 points less than after the paper's 900 us). A span that
 * grows with the run sees a drift once the run is about twice as long as the drift is slow,
 * whatever the windows' width: the classic rule of discarding the first half of a run as warm-up,
 * and MSER's (White 1997) condition that the truncation point lie in the series' first half, here
 * judged by the slope. Against the windows' scatter: the fitted drift is the true one plus noise
 * of about the scatter times the square root of 12 over the half's windows, so noise delays a flat
 * run (with 1% scatter, steady at 20 to 30 windows instead of 20) and can pass a drift near the
 * tolerance at the first judged half (a ramp of 2.9% per ten windows with 0.5% scatter, PAR's, in
 * about one seed of ten; never once the half is longer). Requiring the drift plus one standard
 * error within the tolerance (the drift shown small) was replayed too, and held noisy light points
 * two to five times as long for that margin (docs/benchmarks.md, "A steady test that sees slow
 * drifts"). {@code drift} 0 is the band alone from the tenth window on, the test before the fix,
 * which the documented runs of 2026-11-27 (fig5-*.json, fig5-fast-*.json) used.
 *
 * <p>Allocates nothing after construction: per window prefix sums over the cap's windows (four
 * doubles and an int each). {@link #delivered} runs once per packet, {@link #closeWindow} once per
 * window in constant time. Confined to the simulation's thread.
 */
final class SteadyState {
    private final double tolerance;
    private final double drift;
    /** Per window of the last {@code WINDOWS}, a ring: packets delivered, their latencies' sum (ns), their bytes. */
    private final long[] packets;
    private final long[] latencyNs;
    private final long[] bytes;
    /**
     * Prefix sums over every window closed, index i the sum over windows 0..i-1 (with the drift; empty
     * without): windows without packets; their mean latencies, index times mean latency; their
     * bytes, index times bytes.
     */
    private final int[] empty;
    private final double[] latency;
    private final double[] indexLatency;
    private final double[] volume;
    private final double[] indexVolume;
    /** Windows closed so far. */
    private int closed;
    // the window being filled
    private long openPackets;
    private long openLatencyNs;
    private long openBytes;

    /**
     * @param steady     the test's parameters
     * @param maxWindows the most windows that will be closed (the warm-up's cap over the window): the prefix
     *                   sums' size
     */
    SteadyState(Simulation.Steady steady, int maxWindows) {
        tolerance = steady.tolerance();
        drift = steady.drift();
        packets = new long[Simulation.Steady.WINDOWS];
        latencyNs = new long[Simulation.Steady.WINDOWS];
        bytes = new long[Simulation.Steady.WINDOWS];
        int sums = drift > 0 ? maxWindows + 1 : 0;
        empty = new int[sums];
        latency = new double[sums];
        indexLatency = new double[sums];
        volume = new double[sums];
        indexVolume = new double[sums];
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
        if (drift > 0) {
            if (closed + 1 >= empty.length) {
                throw new IllegalStateException("steady-state window " + (closed + 1) + " beyond the " + (empty.length - 1) + " sized for");
            }
            double mean = openPackets == 0 ? 0 : (double) openLatencyNs / openPackets;
            empty[closed + 1] = empty[closed] + (openPackets == 0 ? 1 : 0);
            latency[closed + 1] = latency[closed] + mean;
            indexLatency[closed + 1] = indexLatency[closed] + (double) closed * mean;
            volume[closed + 1] = volume[closed] + openBytes;
            indexVolume[closed + 1] = indexVolume[closed] + (double) closed * openBytes;
        }
        openPackets = 0;
        openLatencyNs = 0;
        openBytes = 0;
        closed++;
        return band() && (drift == 0 || flat());
    }

    /** The band: the last {@code WINDOWS} windows each within the tolerance of their mean, each with a packet. */
    private boolean band() {
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

    /** The drift: over the last half of the windows closed (at least {@code WINDOWS}), each line's within the tolerance. */
    private boolean flat() {
        int n = closed / 2;
        if (n < packets.length) {
            return false;
        }
        int a = closed - n;
        return empty[closed] == empty[a]
                && drift(latency, indexLatency, a, n) <= drift
                && drift(volume, indexVolume, a, n) <= drift;
    }

    /**
     * The least-squares line through windows {@code a..a+n-1}'s values (from the prefix sums of the
     * values and of index times value): the absolute value of its drift, the slope per window times
     * {@code n}, over the values' mean. A span whose mean is 0 (nothing delivered) has no relative
     * drift: infinite.
     */
    static double drift(double[] sum, double[] indexSum, int a, int n) {
        double sy = sum[a + n] - sum[a];
        if (sy <= 0) {
            return Double.POSITIVE_INFINITY;
        }
        // x relative to the span's first window: sum (j - a) y_j = sum j y_j - a sum y_j; then centred
        double sxy = indexSum[a + n] - indexSum[a] - (double) a * sy - (n - 1) / 2.0 * sy;
        double sxx = n * ((double) n * n - 1) / 12.0;
        return Math.abs(sxy / sxx) * n / (sy / n);
    }
}
