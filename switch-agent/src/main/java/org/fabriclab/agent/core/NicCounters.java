package org.fabriclab.agent.core;

/**
 * A channel adapter's NIC counters as Cray Aries offers them to applications (De Sensi et al.,
 * "Mitigating Network Noise on Dragonfly Networks through Application-Aware Routing", SC'19,
 * section 2.3): request flits sent, request flits stalled cycles, and a sampled packet latency.
 * {@link HostCore} counts them in its node's {@link PortCounterArray} (node counters
 * {@link PortCounterArray#NIC_REQUEST_FLITS}, {@link PortCounterArray#NIC_LATENCY_PACKETS},
 * {@link PortCounterArray#NIC_LATENCY_NS}; the stall is the host port's
 * {@link PortCounterArray#XMIT_WAIT_NS}); this class holds the two conversions, a frame's bytes to
 * flits and model time to NIC cycles, so that every reader converts alike.
 *
 * <ul>
 *   <li>A flit is {@link #FLIT_BYTES} bytes: Aries splits a request into one header flit and up to
 *       four payload flits for its 64 bytes of payload (section 2.1), so 16 bytes a payload flit;
 *       our frame is one header flit (its {@link FrameSizes#DATA_HEADER} bytes: addresses, as
 *       Aries' header flit carries them) and its payload in 16-byte flits.
 *   <li>A cycle is one of a {@link #CLOCK_GHZ} GHz NIC clock, one per nanosecond of model time:
 *       the paper converts the latency counter "given the clock frequency of the NIC" without
 *       giving it, so the clock is our choice, stated here and in docs/metrics.md.
 *   <li>The latency counter is Aries' Request Packets Cumulative Latency: "across all the
 *       request-response packets pairs", a request's round trip from its first flit's departure
 *       ("this counter does not include the time a flit waits in NIC queues") to its response's
 *       return, counted by the sender. Every data packet (one in one) is sampled, from its NIC send
 *       (the core stamps it as the packet goes on the wire) to the return of the response its
 *       receiver answers it with ({@link HostCore.Output#respond}). The response is modelled, not
 *       sent: a header-only frame ({@link FrameSizes#DATA_HEADER} bytes, Aries' one response flit)
 *       over the fewest links back to the sender through the empty fabric, each link its frame
 *       time and cable delay ({@code org.fabriclab.routing.analysis.NoLoadLatency}); the sample is
 *       counted when that time has passed after the packet's delivery, not before. So the request's
 *       part is what the packet met (its path, its queues) and the response's is its pair's
 *       constant: a response's own queueing is left out, and the fabric carries no traffic it would
 *       not carry without the counter (a fixed mode's run is the same with it or without).
 *       {@link PortCounterArray#NIC_RECEIVED_HOPS} counts the same packets' hops with them.
 * </ul>
 */
public final class NicCounters {
    /** Bytes of one flit. */
    public static final int FLIT_BYTES = 16;
    /** The NIC clock the stall counter is read in: cycles per nanosecond of model time. */
    public static final double CLOCK_GHZ = 1.0;

    private NicCounters() {
    }

    /** The flits of a frame of {@code frameBytes}: one header flit and the payload's 16-byte flits. */
    public static int flits(int frameBytes) {
        int payload = Math.max(0, frameBytes - FrameSizes.DATA_HEADER);
        return 1 + (payload + FLIT_BYTES - 1) / FLIT_BYTES;
    }

    /**
     * Counts in {@code counters} (a NIC's node counters) one of its packets' round trip of {@code
     * rttNs}, the packet having taken {@code hops} links between switches: the latency counter's
     * packets and nanoseconds, and {@link PortCounterArray#NIC_RECEIVED_HOPS}. The one place they are
     * counted, whoever held the response until it came back (the host core's heap, or the simulator).
     */
    public static void countRoundTrip(PortCounterArray counters, long rttNs, int hops) {
        counters.addNode(PortCounterArray.NIC_LATENCY_PACKETS);
        counters.addNode(PortCounterArray.NIC_LATENCY_NS, rttNs);
        counters.addNode(PortCounterArray.NIC_RECEIVED_HOPS, hops);
    }

    /** NIC cycles in {@code ns} nanoseconds of model time. */
    public static long cycles(long ns) {
        return Math.round(ns * CLOCK_GHZ);
    }
}
