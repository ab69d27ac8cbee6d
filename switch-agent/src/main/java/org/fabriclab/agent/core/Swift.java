package org.fabriclab.agent.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Swift (Kumar et al., "Swift: Delay is Simple and Effective for Congestion Control in the
 * Datacenter", SIGCOMM 2020), the RL-CC paper's delay-based baseline. The receiver acknowledges
 * every {@code ack_every}-th data packet ({@link CongestionControl.Acks}), echoing the newest one's NIC send time; the
 * sender keeps a congestion window per flow in packets and, per ACK of {@code num_acked} packets
 * with delay {@code d} (the RTT): below the target delay, additive increase ({@code cwnd += ai *
 * num_acked / cwnd}, or {@code ai * num_acked} below one packet: the paper's Algorithm 1, so that
 * coalesced ACKs grow the window as fast as one per packet); at or above it, multiplicative
 * decrease {@code cwnd *= max(1 - beta (d - target) / d, 1 - max_mdf)}, at most once per RTT.
 * A window of one packet or more limits the packets in flight; below one, packets are paced one
 * every {@code RTT / cwnd}.
 *
 * <p>Flow-based target scaling (the paper's "flow-based scaling" of the target) and topology-based
 * scaling (a part per switch on the path, read from the ACK's hop count) are parameters, off by
 * default ({@link Params#fsRangeNs}, {@link Params#hopScaleNs}). Not modelled: its retransmission timer
 * (the fabric is lossless) and the endpoint (host) delay apart from the fabric's. Confined to the
 * thread driving the host.
 */
public final class Swift extends CongestionControl {
    /**
     * Swift's parameters ({@code --cc-param} names in brackets).
     *
     * @param targetNs   the target delay ({@code target_us}, 4 us: ours, for one 100 Gb/s switch; the paper's 25 us is its fabric's base)
     * @param ai         additive increment, packets per RTT ({@code ai}, 1)
     * @param beta       multiplicative decrease factor ({@code beta}, 0.8)
     * @param maxMdf     the largest decrease at once ({@code max_mdf}, 0.5)
     * @param minCwnd    the smallest window, packets ({@code min_cwnd}, 0.001)
     * @param maxCwnd    the largest window, packets ({@code max_cwnd}, 256)
     * @param initCwnd   a flow's first window, packets ({@code init_cwnd}, 16)
     * @param fsRangeNs  Swift's flow-based target scaling: the most a small window adds to the target
     *                   ({@code fs_range_us}, 0: off, the default), rising as {@code 1 / sqrt(cwnd)} from 0 at
     *                   {@code fs_max_cwnd} to {@code fs_range} at {@code fs_min_cwnd}
     * @param fsMinCwnd  the window at which the scaling is whole ({@code fs_min_cwnd}, 0.1)
     * @param fsMaxCwnd  the window from which it is none ({@code fs_max_cwnd}, 100)
     * @param hopScaleNs Swift's topology-based target scaling: the target grows by this much per switch
     *                   on the path ({@code hop_scale_us}, 0: off, the default), so that a flow crossing
     *                   more switches, whose base RTT is longer, is not cut for it
     * @param acks       the receiver's ACKs ({@code ack_every}, {@code ack_delay_us}; {@link #ACKS} by default)
     */
    public record Params(long targetNs, double ai, double beta, double maxMdf, double minCwnd, double maxCwnd, double initCwnd,
                         long fsRangeNs, double fsMinCwnd, double fsMaxCwnd, long hopScaleNs, Acks acks) implements Settings {
        /** The default ACK coalescing. */
        public static final Acks ACKS = Acks.EVERY_PACKET;
        public static final Params DEFAULTS = new Params(4_000, 1, 0.8, 0.5, 0.001, 256, 16, 0, 0.1, 100, 0, ACKS);

        /** Without target scaling, an ACK per packet. */
        public Params(long targetNs, double ai, double beta, double maxMdf, double minCwnd, double maxCwnd, double initCwnd) {
            this(targetNs, ai, beta, maxMdf, minCwnd, maxCwnd, initCwnd, 0, 0.1, 100, 0, Acks.EVERY_PACKET);
        }

        /** With flow-based target scaling only, an ACK per packet. */
        public Params(long targetNs, double ai, double beta, double maxMdf, double minCwnd, double maxCwnd, double initCwnd,
                      long fsRangeNs, double fsMinCwnd, double fsMaxCwnd) {
            this(targetNs, ai, beta, maxMdf, minCwnd, maxCwnd, initCwnd, fsRangeNs, fsMinCwnd, fsMaxCwnd, 0, Acks.EVERY_PACKET);
        }

        private static final Map<String, Function<Params, Object>> GETTERS = getters();

        private static Map<String, Function<Params, Object>> getters() {
            Map<String, Function<Params, Object>> m = new LinkedHashMap<>();
            m.put("target_us", p -> p.targetNs / 1e3);
            m.put("ai", Params::ai);
            m.put("beta", Params::beta);
            m.put("max_mdf", Params::maxMdf);
            m.put("min_cwnd", Params::minCwnd);
            m.put("max_cwnd", Params::maxCwnd);
            m.put("init_cwnd", Params::initCwnd);
            m.put("fs_range_us", p -> p.fsRangeNs / 1e3);
            m.put("fs_min_cwnd", Params::fsMinCwnd);
            m.put("fs_max_cwnd", Params::fsMaxCwnd);
            m.put("hop_scale_us", p -> p.hopScaleNs / 1e3);
            Acks.getters(m, Params::acks);
            return m;
        }

        /** @throws IllegalArgumentException naming the parameter out of range */
        public Params {
            if (targetNs <= 0 || !(ai > 0) || !(beta > 0 && beta <= 1) || !(maxMdf > 0 && maxMdf < 1)) {
                throw new IllegalArgumentException("swift needs target_us and ai above 0, beta in (0, 1] and max_mdf in (0, 1)");
            }
            if (!(minCwnd > 0 && minCwnd <= initCwnd && initCwnd <= maxCwnd)) {
                throw new IllegalArgumentException("swift needs 0 < min_cwnd <= init_cwnd <= max_cwnd, not " + minCwnd + ", " + initCwnd
                        + ", " + maxCwnd);
            }
            if (fsRangeNs < 0 || !(fsMinCwnd > 0 && fsMinCwnd < fsMaxCwnd)) {
                throw new IllegalArgumentException("swift needs fs_range_us >= 0 and 0 < fs_min_cwnd < fs_max_cwnd");
            }
            if (hopScaleNs < 0) {
                throw new IllegalArgumentException("swift needs hop_scale_us >= 0, not " + hopScaleNs / 1e3);
            }
            if (acks == null) {
                throw new IllegalArgumentException("swift needs its ACK coalescing (ack_every, ack_delay_us)");
            }
        }

        static Params of(Map<String, Object> v) {
            return new Params(Math.round(number(v, "target_us") * 1e3), number(v, "ai"), number(v, "beta"), number(v, "max_mdf"),
                    number(v, "min_cwnd"), number(v, "max_cwnd"), number(v, "init_cwnd"), Math.round(number(v, "fs_range_us") * 1e3),
                    number(v, "fs_min_cwnd"), number(v, "fs_max_cwnd"), Math.round(number(v, "hop_scale_us") * 1e3), Acks.of(v));
        }

        @Override
        public String name() {
            return "swift";
        }

        @Override
        public CongestionControl create(double lineGbps) {
            return new Swift(this, lineGbps);
        }

        @Override
        public Map<String, Object> values() {
            return table(this, GETTERS);
        }
    }

    private final Params p;
    // per flow, side by side in one array at the flow's LID (one cache line per packet at a thousand
    // flows a host): the window as its bits, then longs
    /** First: never 0 once started (at least min_cwnd), as {@link Slots#BY_LID} asks. */
    private static final int CWND = 0;
    private static final int INFLIGHT = 1;
    private static final int LAST_DECREASE = 2;
    private static final int NEXT_SEND = 3;
    private static final int RTT = 4;
    private static final int FRAME = 5;
    private static final int STRIDE = 6;

    private final double fsA;
    private final double fsB;

    Swift(Params p, double lineGbps) {
        super(lineGbps, STRIDE, p.acks, Slots.BY_LID);
        this.p = p;
        fsA = p.fsRangeNs / (1 / Math.sqrt(p.fsMinCwnd) - 1 / Math.sqrt(p.fsMaxCwnd));
        fsB = -fsA / Math.sqrt(p.fsMaxCwnd);
    }

    private double window(int s) {
        return get(s, CWND);
    }

    @Override
    void start(int s) {
        int b = s * STRIDE;
        set(s, CWND, p.initCwnd);
        f[b + LAST_DECREASE] = Long.MIN_VALUE;
        f[b + NEXT_SEND] = Long.MIN_VALUE;
        f[b + RTT] = p.targetNs;
    }

    @Override
    public long sendAt(int dlid, long now) {
        int s = slot(dlid);
        int b = s * STRIDE;
        double w = window(s);
        if (w >= 1) {
            return f[b + INFLIGHT] < w ? now : WAIT;
        }
        return f[b + INFLIGHT] == 0 ? Math.max(now, f[b + NEXT_SEND]) : WAIT;
    }

    @Override
    public void sent(int dlid, int frameBytes, long now) {
        int s = slot(dlid);
        int b = s * STRIDE;
        f[b + INFLIGHT]++;
        f[b + FRAME] = frameBytes;
        double w = window(s);
        if (w < 1) {
            f[b + NEXT_SEND] = now + (long) (f[b + RTT] / w);
        }
    }

    @Override
    public int reply(int slid, boolean marked, long now) {
        return PacketPool.ACK;
    }

    @Override
    public void acked(int dlid, long rttNs, int hops, int packets, long now) {
        int s = slot(dlid);
        int b = s * STRIDE;
        f[b + INFLIGHT] = Math.max(0, f[b + INFLIGHT] - packets);
        f[b + RTT] = Math.max(1, rttNs);
        double w = window(s);
        double target = target(w) + (double) hops * p.hopScaleNs;
        if (rttNs < target) {
            w += w >= 1 ? p.ai * packets / w : p.ai * packets;
        } else if (f[b + LAST_DECREASE] == Long.MIN_VALUE || now - f[b + LAST_DECREASE] >= rttNs) {
            w *= Math.max(1 - p.beta * (rttNs - target) / rttNs, 1 - p.maxMdf);
            f[b + LAST_DECREASE] = now;
        }
        set(s, CWND, Math.min(p.maxCwnd, Math.max(p.minCwnd, w)));
    }

    /**
     * The target delay for a window of {@code w}: the base target plus, with flow-based scaling,
     * {@code clamp(a / sqrt(w) + b, 0, fs_range)}, {@code a} and {@code b} making it {@code fs_range}
     * at {@code fs_min_cwnd} and 0 at {@code fs_max_cwnd} (the Swift paper's flow-based scaling): many flows'
     * small windows get a larger target, so that they share a bottleneck instead of being cut below it.
     */
    double target(double w) {
        if (fsA == 0) {
            return p.targetNs;
        }
        return p.targetNs + Math.min(p.fsRangeNs, Math.max(0, fsA / Math.sqrt(w) + fsB));
    }

    @Override
    public void notified(int dlid, long now) {
        // Swift reads delay only: no CNPs reach it
    }

    /** The flow's window over its last RTT, capped at the line rate (the line rate for a flow not seen yet). */
    @Override
    public double rateGbps(int dlid, long now) {
        int s = slotIfAny(dlid);
        return s < 0 ? lineGbps : Math.min(lineGbps, window(s) * f[s * STRIDE + FRAME] * 8.0 / f[s * STRIDE + RTT]);
    }

    /** The window of the flow to {@code dlid}, packets. */
    public double cwnd(int dlid) {
        int s = slotIfAny(dlid);
        return s < 0 ? p.initCwnd : window(s);
    }

    /** Packets of the flow to {@code dlid} sent and not yet acknowledged. */
    public int inflight(int dlid) {
        int s = slotIfAny(dlid);
        return s < 0 ? 0 : (int) f[s * STRIDE + INFLIGHT];
    }
}
