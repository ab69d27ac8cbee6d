package org.fabriclab.agent.core;

import org.fabriclab.routing.dragonfly.RoutingMode;

/**
 * Application-aware routing (De Sensi et al., "Mitigating Network Noise on Dragonfly Networks
 * through Application-Aware Routing", SC'19, section 4.2, Algorithm 1): before each message a
 * host chooses between the default mode ({@link RoutingMode#ADAPTIVE_0}, Adaptive; for all-to-all
 * {@link RoutingMode#ADAPTIVE_1}, Increasingly Minimal Bias: "for MPI_Alltoall communication,
 * Adaptive is replaced with Increasingly Minimal Bias routing because ... this is also the current
 * default behaviour", {@link #forPattern}) and Adaptive with High Bias
 * ({@link RoutingMode#ADAPTIVE_3}) from its NIC counters ({@link NicCounters}), by the paper's
 * cost model of a message of {@code f} flits in {@code p} packets, {@code T = (p + 512) / 1024 * L
 * + f * (s + 1)} (Equation 2; L the packet latency, s the stall cycles per flit): the mode of the
 * smaller estimate. What was measured since the last decision is the mode then in use's; the other
 * mode's latency and stalls are its last measure, or, once that is older than {@link #MAX_AGE}
 * decisions (another phase), this mode's scaled by the scaling factors (the paper's lambda and
 * sigma): {@link #LATENCY_SCALE} and {@link #STALL_SCALE} until this host has measured both modes,
 * then the ratio of the two modes' last measures taken while both were current (see below).
 * Counters are read once {@link #THRESHOLD_BYTES} of messages have been sent since the last read;
 * the messages before go with the high bias (small messages are latency-bound, and the bias's
 * paths are shorter).
 *
 * <p>What differs from the paper: its scaling factors (lambda, sigma) are "a median case over several
 * runs of different microbenchmarks in different allocations" and not given; ours are derived the
 * same way from our own fixed-mode runs ({@code bench/appaware-factors.py} over the Figure 8 runs
 * of docs/data/noise/fig8: the median over the runs of messages of at least {@link
 * #THRESHOLD_BYTES} of the high bias's latency and stalls over the default's). And ours, not the
 * paper's: a host corrects the factors by its own measures. With fixed factors the estimate always
 * leans one way (a factor below 1 makes the default, estimated from the high bias, always look
 * slower, so a host on the high bias never measures the default again however slow the high bias
 * gets; at 1 the estimates tie, the tie goes to the default, and a host on it never tries the high
 * bias), and a job whose best mode depends on its placement (the default over one shared global
 * link, the high bias elsewhere) is on the wrong side of any one factor (docs/reproductions.md,
 * Figure 8, "Where it failed, counted", decision by decision). So once
 * both modes' measures are current (neither older than {@link #MAX_AGE} decisions), their ratio
 * becomes this host's factor, and a measure that ages out is re-estimated by it: a host keeps the
 * relation it last measured between the modes, scaled to the network the mode in use now meets.
 * The paper's own correction, "the algorithm will store the last values observed for latency and
 * stalls for both routing algorithms", lasts only until those are discarded. The price of ours: once
 * a host has settled, no decision compares two current measures again, so a later change in which
 * mode is quicker (another job, a new phase) moves it only through the stalls, and a host whose
 * first measures misled it stays misled. The latency read is Aries': the
 * round trips of this host's own packets ({@link PortCounterArray#NIC_LATENCY_NS}, {@link
 * NicCounters}: NIC send to the modelled response's return, counted when it is back), so what is
 * measured since the last decision is the latency of what this host sent, most of it in the mode
 * then in use (a response still on its way at a decision is booked to the mode chosen then, as
 * Aries' counters would book it).
 * Until 2026-11-27 it read the packets this host received, in their senders' modes, which in a
 * closed loop made a rank book its peer's mode's latency to its own choice and oscillate
 * (docs/reproductions.md, Figure 8). Allocates nothing; confined to the thread
 * driving the host.
 */
public final class AppAwareRouting {
    /** Bytes of messages between counter reads (the paper's 4 KiB, "experimentally set"). */
    public static final int THRESHOLD_BYTES = 4096;
    /**
     * Lambda: the high bias's latency over the default's, until a host has measured both (the median
     * over the Figure 8 fixed-mode runs of messages of 4 KiB and more: bench/appaware-factors.py).
     */
    public static final double LATENCY_SCALE = 0.997;
    /**
     * Sigma: the high bias's stall cycles per flit over the default's, until a host has measured both
     * (the median over the same runs where both modes stalled).
     */
    public static final double STALL_SCALE = 2.03;
    /** Decisions after which a mode's measure is too old and is estimated from the other's. */
    public static final int MAX_AGE = 16;
    /** The model's outstanding-packet window (Aries NICs: 1,024 packets). */
    private static final double WINDOW = 1024;

    private final PortCounterArray counters;
    private final int port;
    private final long messageBytes;
    private final long messagePackets;
    private final long messageFlits;
    /** The mode the high bias is weighed against: ADAPTIVE_0, or ADAPTIVE_1 for all-to-all. */
    private final RoutingMode adaptive;
    private RoutingMode current;
    private long readLatencyNs;
    private long readLatencyPackets;
    private long readFlits;
    private long readWaitNs;
    private double latencyAdaptive = Double.NaN;
    private double stallsAdaptive = Double.NaN;
    private double latencyBiased = Double.NaN;
    private double stallsBiased = Double.NaN;
    private int ageAdaptive;
    private int ageBiased;
    /** This host's lambda and sigma: the ratio of its last current measures of both modes, or the defaults. */
    private double latencyScale = LATENCY_SCALE;
    private double stallScale = STALL_SCALE;
    private long cumulativeBytes;
    private long adaptiveBytes;
    private long biasedBytes;

    /**
     * A chooser reading the NIC counters of {@code counters}' host port {@code port}, for messages
     * of {@code messagePackets} frames of {@code frameBytes} ({@code messageBytes} of payload).
     */
    public AppAwareRouting(PortCounterArray counters, int port, long messageBytes, int messagePackets, int frameBytes) {
        this(counters, port, messageBytes, messagePackets, frameBytes, RoutingMode.ADAPTIVE_0);
    }

    /**
     * As the other constructor, weighing {@code adaptive} (ADAPTIVE_0 or ADAPTIVE_1: the
     * application's default adaptive mode) against the high bias.
     */
    public AppAwareRouting(PortCounterArray counters, int port, long messageBytes, int messagePackets, int frameBytes,
                           RoutingMode adaptive) {
        if (adaptive != RoutingMode.ADAPTIVE_0 && adaptive != RoutingMode.ADAPTIVE_1) {
            throw new IllegalArgumentException("application-aware routing weighs ADAPTIVE_0 or ADAPTIVE_1 against the high bias, not "
                    + adaptive);
        }
        this.adaptive = adaptive;
        this.current = adaptive;
        this.counters = counters;
        this.port = port;
        this.messageBytes = messageBytes;
        this.messagePackets = messagePackets;
        this.messageFlits = (long) messagePackets * NicCounters.flits(frameBytes);
    }

    /**
     * The default mode application-aware routing weighs against the high bias for a job of
     * {@code pattern}, or, closed-loop, of {@code loop} (a closed loop's pattern is not used, as
     * {@code Simulation.Job} says): ADAPTIVE_1 for all-to-all, the open-loop pattern or the
     * closed-loop MPI_Alltoall (MPI_Alltoall's default on Aries, as the paper's library keeps it),
     * ADAPTIVE_0 for the others. The simulator and the live hosts both ask here. Until 2026-11-27
     * only the open-loop pattern was asked, and the closed-loop all-to-all (Figure 8's) weighed
     * ADAPTIVE_0.
     *
     * @param loop the job's closed loop, or null for an open-loop job
     */
    public static RoutingMode forPattern(TrafficPattern pattern, ClosedLoop.Kind loop) {
        boolean allToAll = loop != null ? loop == ClosedLoop.Kind.ALL_TO_ALL : pattern.kind() == TrafficPattern.Kind.ALL_TO_ALL;
        return allToAll ? RoutingMode.ADAPTIVE_1 : RoutingMode.ADAPTIVE_0;
    }

    /** The mode of the next message. */
    public RoutingMode select() {
        return select(messageBytes, messagePackets, messageFlits);
    }

    /** The mode of the next message, of {@code bytes} in {@code packets} packets of {@code flits} flits in all. */
    RoutingMode select(long bytes, long packets, long flits) {
        observe();
        cumulativeBytes += bytes;
        if (cumulativeBytes < THRESHOLD_BYTES) {
            current = RoutingMode.ADAPTIVE_3;
        } else {
            cumulativeBytes = 0;
            current = decide(packets, flits);
        }
        if (current == adaptive) {
            adaptiveBytes += bytes;
        } else {
            biasedBytes += bytes;
        }
        return current;
    }

    /** Algorithm 1's choice for a message of {@code packets} packets and {@code flits} flits. */
    private RoutingMode decide(long packets, long flits) {
        boolean adaptiveCurrent = ageAdaptive <= MAX_AGE && !Double.isNaN(latencyAdaptive);
        boolean biasedCurrent = ageBiased <= MAX_AGE && !Double.isNaN(latencyBiased);
        if (adaptiveCurrent && biasedCurrent) { // both measured lately: this host's factors (ours, see the class comment)
            latencyScale = latencyBiased / latencyAdaptive;
            if (stallsAdaptive > 0 && stallsBiased > 0) {
                stallScale = stallsBiased / stallsAdaptive;
            }
        }
        if (current == adaptive) {
            if (!biasedCurrent) {
                latencyBiased = latencyAdaptive * latencyScale;
                stallsBiased = stallsAdaptive * stallScale;
            }
        } else if (!adaptiveCurrent) {
            latencyAdaptive = latencyBiased / latencyScale;
            stallsAdaptive = stallsBiased / stallScale;
        }
        if (Double.isNaN(latencyAdaptive) || Double.isNaN(latencyBiased) || Double.isNaN(stallsAdaptive) || Double.isNaN(stallsBiased)) {
            return current; // nothing measured yet
        }
        double share = (packets + WINDOW / 2) / WINDOW;
        double unbiased = share * latencyAdaptive + flits * (stallsAdaptive + 1);
        double biased = share * latencyBiased + flits * (stallsBiased + 1);
        return biased < unbiased ? RoutingMode.ADAPTIVE_3 : adaptive;
    }

    /** What the counters moved by since the last read: the latency and stalls of the mode in use. */
    private void observe() {
        long latencyNs = counters.getNode(PortCounterArray.NIC_LATENCY_NS);
        long latencyPackets = counters.getNode(PortCounterArray.NIC_LATENCY_PACKETS);
        long flits = counters.getNode(PortCounterArray.NIC_REQUEST_FLITS);
        long waitNs = counters.get(port, PortCounterArray.XMIT_WAIT_NS);
        double latency = latencyPackets > readLatencyPackets
                ? NicCounters.cycles(latencyNs - readLatencyNs) / (double) (latencyPackets - readLatencyPackets) : Double.NaN;
        double stalls = flits > readFlits ? NicCounters.cycles(waitNs - readWaitNs) / (double) (flits - readFlits) : Double.NaN;
        readLatencyNs = latencyNs;
        readLatencyPackets = latencyPackets;
        readFlits = flits;
        readWaitNs = waitNs;
        ageAdaptive++;
        ageBiased++;
        if (current == adaptive) {
            if (!Double.isNaN(latency)) {
                latencyAdaptive = latency;
                ageAdaptive = 0;
            }
            if (!Double.isNaN(stalls)) {
                stallsAdaptive = stalls;
            }
        } else {
            if (!Double.isNaN(latency)) {
                latencyBiased = latency;
                ageBiased = 0;
            }
            if (!Double.isNaN(stalls)) {
                stallsBiased = stalls;
            }
        }
    }

    /** The mode of the last message. */
    public RoutingMode current() {
        return current;
    }

    /** The default adaptive mode it weighs against the high bias (ADAPTIVE_0, or ADAPTIVE_1 for all-to-all). */
    public RoutingMode adaptive() {
        return adaptive;
    }

    /** Message bytes sent with the default mode (the paper's "percentage of traffic sent by Default routing"). */
    public long adaptiveBytes() {
        return adaptiveBytes;
    }

    /** Message bytes sent with Adaptive with High Bias. */
    public long biasedBytes() {
        return biasedBytes;
    }
}
