package org.fabriclab.agent.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * RL-CC (Fuhrer et al., "Implementing Reinforcement Learning Datacenter Congestion Control in
 * NVIDIA NICs", 2022): a learned policy sets each flow's rate from what its RTTs say. The receiver
 * acknowledges data packets as Swift's does (the same ACK, RTT echo and coalescing, {@link
 * CongestionControl.Acks}, in {@link HostCore});
 * the sender paces each flow at its rate, starting at the line rate, and once per decision period
 * (by default one RTT: the paper's agent acts per RTT) fills the policy's five features ({@link
 * RlCcPolicy#FEATURES}) and multiplies the rate by {@code 1 + a}, {@code a} the policy's action,
 * clamped to {@code [min_rate_gbps, line rate]}:
 * <ul>
 * <li>{@code rtt_ratio}: the RTT of the ACK that closes the period over the base RTT (the paper's
 *     RTT inflation): {@code base_rtt_us}, the fabric's unloaded RTT, or with 0 the least the flow has
 *     seen. A configured base is the default because flows that start together at the line rate
 *     queue their very first packets behind each other: the least RTTs they see differ by up to
 *     the flows' first packets' time, and the flows that measured a larger base then read less
 *     inflation and take more than their share (16 flows on one switch: a CoV of 0.5);
 * <li>{@code rtt_ratio_prev}: the same at the decision before (1 at the first);
 * <li>{@code rtt_trend}: the two's difference;
 * <li>{@code rate_frac}: the flow's rate over the line rate, before the decision;
 * <li>{@code ack_rate_frac}: the bytes ACKed over the period (packets acknowledged times the flow's frame) per
 *     second, over the line rate.
 * </ul>
 * The first ACK of a flow only opens its first period. Not modelled: the NIC's own delays, loss.
 * The features fill one array per host, reused: a decision allocates nothing. Confined to the
 * thread driving the host.
 */
public final class RlCc extends CongestionControl {
    /** What maps a flow's features to its action: the shipped tree policy, or a teacher while training. */
    @FunctionalInterface
    public interface Decider {
        /**
         * The action for {@code features} (one value per {@link RlCcPolicy#FEATURES} entry, in
         * that order; the array is the caller's and reused): the rate is multiplied by {@code 1 + a}.
         */
        double decide(double[] features);
    }

    /** {@code policy}'s value for the shipped policy ({@link RlCcPolicy#shipped}). */
    public static final String DEFAULT_POLICY = "default";

    /**
     * RL-CC's settings ({@code --cc-param} names in brackets).
     *
     * @param policy      the decider ({@code policy}: a policy file, or {@code default}, the shipped one)
     * @param policyName  the policy as {@code --cc-param policy} named it, for the report
     * @param minRateGbps the least rate a decision leaves ({@code min_rate_gbps}, 0.1 Gb/s, as our DCQCN's)
     * @param periodNs    the decision period ({@code period_us}, 0: one RTT, the RTT of the ACK that closes it)
     * @param baseRttNs   the RTT {@code rtt_ratio} divides by ({@code base_rtt_us}, 0.5 us: ours, the unloaded RTT of one
     *                    100 Gb/s switch with 100 ns cables and 293-byte frames being 454 ns; 0: the least the flow has seen)
     * @param acks        the receiver's ACKs ({@code ack_every}, {@code ack_delay_us}; {@link #ACKS} by default)
     */
    public record Params(Decider policy, String policyName, double minRateGbps, long periodNs, long baseRttNs, Acks acks)
            implements Settings {
        /** The default ACK coalescing. */
        public static final Acks ACKS = Acks.EVERY_PACKET;

        private static final Map<String, Function<Params, Object>> GETTERS = getters();

        private static Map<String, Function<Params, Object>> getters() {
            Map<String, Function<Params, Object>> m = new LinkedHashMap<>();
            m.put("policy", Params::policyName);
            m.put("min_rate_gbps", Params::minRateGbps);
            m.put("period_us", p -> p.periodNs / 1e3);
            m.put("base_rtt_us", p -> p.baseRttNs / 1e3);
            Acks.getters(m, Params::acks);
            return m;
        }

        /** @throws IllegalArgumentException naming the parameter out of range */
        public Params {
            if (policy == null || policyName == null) {
                throw new IllegalArgumentException("rl-cc needs a policy");
            }
            if (!(minRateGbps > 0) || periodNs < 0 || baseRttNs < 0 || acks == null) {
                throw new IllegalArgumentException("rl-cc needs min_rate_gbps above 0, period_us and base_rtt_us not negative, its ACK coalescing");
            }
        }

        /** The longest decision period or base RTT, us: a second (a fabric's RTTs are microseconds). */
        static final double MAX_TIME_US = 1_000_000;

        /** The shipped policy, decisions once per RTT, at least 0.1 Gb/s, a base RTT of 0.5 us, {@link #ACKS}. */
        public static Params defaults() {
            return Shipped.DEFAULTS;
        }

        /** The settings a table of {@code --cc-param} names gives: reads the policy file unless it is {@code default}. */
        static Params of(Map<String, Object> v) {
            String name = (String) v.get("policy");
            Decider policy;
            if (name.equals(DEFAULT_POLICY)) {
                policy = Shipped.DEFAULTS.policy;
            } else {
                try {
                    policy = RlCcPolicy.read(name);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--cc-param policy: " + e.getMessage());
                }
            }
            for (String time : new String[] {"period_us", "base_rtt_us"}) { // checked before rounding: -0.0001 is not 0
                if (number(v, time) < 0 || number(v, time) > MAX_TIME_US) {
                    throw new IllegalArgumentException("rl-cc's " + time + " must be 0.." + MAX_TIME_US + " us, not " + number(v, time));
                }
            }
            return new Params(policy, name, number(v, "min_rate_gbps"), Math.round(number(v, "period_us") * 1e3),
                    Math.round(number(v, "base_rtt_us") * 1e3), Acks.of(v));
        }

        /** These settings with {@code decider} deciding instead (a teacher, while training), named {@code name}. */
        public Params withPolicy(Decider decider, String name) {
            return new Params(decider, name, minRateGbps, periodNs, baseRttNs, acks);
        }

        @Override
        public String name() {
            return "rl-cc";
        }

        /** @throws IllegalArgumentException if {@code min_rate_gbps} is not below {@code lineGbps}: the policy could never act */
        @Override
        public CongestionControl create(double lineGbps) {
            if (minRateGbps >= lineGbps) {
                throw new IllegalArgumentException("rl-cc's min_rate_gbps " + minRateGbps + " is not below the line rate of " + lineGbps
                        + " Gbps: no decision could move a rate");
            }
            return new RlCc(this, lineGbps);
        }

        @Override
        public Map<String, Object> values() {
            return table(this, GETTERS);
        }
    }

    /** The shipped policy, read on first use. */
    private static final class Shipped {
        static final Params DEFAULTS = new Params(RlCcPolicy.shipped(), DEFAULT_POLICY, 0.1, 0, 500, Params.ACKS);
    }

    private final Params p;
    private final Decider policy;
    /** The features of the decision being made: one array per host, reused. */
    private final double[] x = new double[RlCcPolicy.FEATURES.size()];
    private long decisions;
    // per flow, side by side in one array at the flow's LID (one cache line): the rate and the last ratio as their bits, then longs
    /** First: never 0 once started (at least min_rate_gbps), as {@link Slots#BY_LID} asks. */
    private static final int RATE = 0;
    private static final int NEXT_SEND = 1;
    /** The least RTT seen (Long.MAX_VALUE: none yet). */
    private static final int BASE_RTT = 2;
    private static final int PREV_RATIO = 3;
    /** When the current period opened (Long.MIN_VALUE: no ACK yet). */
    private static final int OPENED = 4;
    /** Data packets acknowledged in the current period. */
    private static final int ACKED = 5;
    private static final int FRAME = 6;
    private static final int STRIDE = 7;

    RlCc(Params p, double lineGbps) {
        super(lineGbps, STRIDE, p.acks, Slots.BY_LID);
        this.p = p;
        this.policy = p.policy;
    }

    @Override
    void start(int s) {
        int b = s * STRIDE;
        set(s, RATE, lineGbps);
        f[b + NEXT_SEND] = Long.MIN_VALUE;
        f[b + BASE_RTT] = Long.MAX_VALUE;
        set(s, PREV_RATIO, 1);
        f[b + OPENED] = Long.MIN_VALUE;
    }

    @Override
    public long sendAt(int dlid, long now) {
        int s = slot(dlid); // first: it may grow the array
        return f[s * STRIDE + NEXT_SEND];
    }

    @Override
    public void sent(int dlid, int frameBytes, long now) {
        int s = slot(dlid);
        int b = s * STRIDE;
        f[b + FRAME] = frameBytes;
        f[b + NEXT_SEND] = pacedAfter(f[b + NEXT_SEND], now, frameBytes, get(s, RATE));
    }

    @Override
    public int reply(int slid, boolean marked, long now) {
        return PacketPool.ACK;
    }

    @Override
    public void acked(int dlid, long rttNs, int hops, int packets, long now) {
        int s = slot(dlid);
        int b = s * STRIDE;
        long rtt = Math.max(1, rttNs);
        if (rtt < f[b + BASE_RTT]) {
            f[b + BASE_RTT] = rtt;
        }
        f[b + ACKED] += packets;
        long opened = f[b + OPENED];
        if (opened == Long.MIN_VALUE) {
            f[b + OPENED] = now;
            f[b + ACKED] = 0;
            return;
        }
        long period = now - opened;
        if (period <= 0 || period < (p.periodNs > 0 ? p.periodNs : rtt)) {
            return;
        }
        double ratio = (double) rtt / (p.baseRttNs > 0 ? p.baseRttNs : f[b + BASE_RTT]);
        double prev = get(s, PREV_RATIO);
        double rate = get(s, RATE);
        x[RlCcPolicy.RTT_RATIO] = ratio;
        x[RlCcPolicy.RTT_RATIO_PREV] = prev;
        x[RlCcPolicy.RTT_TREND] = ratio - prev;
        x[RlCcPolicy.RATE_FRAC] = rate / lineGbps;
        x[RlCcPolicy.ACK_RATE_FRAC] = f[b + ACKED] * f[b + FRAME] * 8.0 / period / lineGbps;
        double a = policy.decide(x);
        set(s, RATE, Math.min(lineGbps, Math.max(p.minRateGbps, rate * (1 + a))));
        set(s, PREV_RATIO, ratio);
        f[b + OPENED] = now;
        f[b + ACKED] = 0;
        decisions++;
    }

    @Override
    public void notified(int dlid, long now) {
        // RL-CC reads RTTs only: no CNPs reach it
    }

    @Override
    public double rateGbps(int dlid, long now) {
        int s = slotIfAny(dlid);
        return s < 0 ? lineGbps : get(s, RATE);
    }

    /** The least RTT the flow to {@code dlid} has seen, ns ({@link Long#MAX_VALUE}: none yet). */
    public long baseRttNs(int dlid) {
        int s = slotIfAny(dlid);
        return s < 0 ? Long.MAX_VALUE : f[s * STRIDE + BASE_RTT];
    }

    /** Decisions taken so far, over all flows. */
    public long decisions() {
        return decisions;
    }
}
