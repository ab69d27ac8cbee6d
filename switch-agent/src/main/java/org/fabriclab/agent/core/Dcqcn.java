package org.fabriclab.agent.core;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * DCQCN (Zhu et al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015), the
 * RL-CC paper's hardware baseline. Switches mark ECN-capable packets by their output queue ({@link
 * EcnMarking}); the receiver (the paper's notification point) sends a CNP for a marked packet, at
 * most one per flow every {@code N}; the sender (reaction point) paces each flow at its current
 * rate {@code Rc} and on a CNP sets its target {@code Rt = Rc}, cuts {@code Rc *= 1 - alpha/2} and
 * raises {@code alpha = (1 - g) alpha + g}; without a CNP for {@code K}, {@code alpha *= 1 - g}.
 * After a cut, rate increase events come from a timer (every {@code T}) and a byte counter (every
 * {@code B} bytes sent): while both counts are below {@code F}, fast recovery ({@code Rc = (Rt +
 * Rc) / 2}); once either reaches {@code F}, additive increase ({@code Rt += R_AI}, then the same
 * average); once both exceed {@code F}, hyper increase ({@code Rt += i R_HAI}, i the smaller count
 * beyond {@code F}). A flow starts at the line rate.
 *
 * <p>Timers run lazily: their expiries up to now are applied when the flow next sends or gets a
 * CNP (a paced flow sends at least every packet's time at the minimum rate, well within {@code T}),
 * so no event is scheduled per flow. Confined to the thread driving the host.
 */
public final class Dcqcn extends CongestionControl {
    private static final long NEVER = Long.MAX_VALUE;

    /**
     * DCQCN's parameters (`--cc-param` names in brackets); defaults are the DCQCN paper's where it
     * gives one, which the RL-CC paper's DCQCN baseline runs with.
     *
     * @param marking         the switches' ECN marking ({@code kmin_bytes} 5 KB, {@code kmax_bytes} 200 KB, {@code pmax} 1%)
     * @param g               alpha's gain ({@code g}, 1/256)
     * @param alphaPeriodNs   K, alpha's update period without a CNP ({@code alpha_period_us}, 55 us)
     * @param cnpIntervalNs   N, the receiver's least gap between CNPs of one flow ({@code cnp_interval_us}, 50 us)
     * @param timerNs         T, the rate increase timer ({@code timer_us}, 55 us)
     * @param byteCounter     B, bytes sent per rate increase event ({@code byte_counter_bytes}, 10 MB)
     * @param fastRecovery    F, increase events of fast recovery ({@code f}, 5)
     * @param raiGbps         R_AI, the additive increase step ({@code rai_gbps}, 40 Mb/s)
     * @param rhaiGbps        R_HAI, the hyper increase step ({@code rhai_gbps}, 100 Mb/s: the RL-CC text gives none)
     * @param minRateGbps     the least rate a cut leaves ({@code min_rate_gbps}, 0.1 Gb/s: ours)
     */
    public record Params(EcnMarking marking, double g, long alphaPeriodNs, long cnpIntervalNs, long timerNs, long byteCounter,
                         int fastRecovery, double raiGbps, double rhaiGbps, double minRateGbps) implements Settings {
        public static final Params DEFAULTS = new Params(EcnMarking.DCQCN, 1.0 / 256, 55_000, 50_000, 55_000, 10_000_000, 5,
                0.04, 0.1, 0.1);

        private static final Map<String, Function<Params, Object>> GETTERS = getters();

        private static Map<String, Function<Params, Object>> getters() {
            Map<String, Function<Params, Object>> m = new LinkedHashMap<>();
            m.put("kmin_bytes", p -> (double) p.marking.kminBytes());
            m.put("kmax_bytes", p -> (double) p.marking.kmaxBytes());
            m.put("pmax", p -> p.marking.pmax());
            m.put("g", Params::g);
            m.put("alpha_period_us", p -> p.alphaPeriodNs / 1e3);
            m.put("cnp_interval_us", p -> p.cnpIntervalNs / 1e3);
            m.put("timer_us", p -> p.timerNs / 1e3);
            m.put("byte_counter_bytes", p -> (double) p.byteCounter);
            m.put("f", p -> (double) p.fastRecovery);
            m.put("rai_gbps", Params::raiGbps);
            m.put("rhai_gbps", Params::rhaiGbps);
            m.put("min_rate_gbps", Params::minRateGbps);
            return m;
        }

        /** @throws IllegalArgumentException naming the parameter out of range */
        public Params {
            if (!(g > 0 && g < 1)) {
                throw new IllegalArgumentException("dcqcn g " + g + " is not in (0, 1)");
            }
            if (alphaPeriodNs <= 0 || cnpIntervalNs < 0 || timerNs <= 0 || byteCounter <= 0 || fastRecovery < 1) {
                throw new IllegalArgumentException("dcqcn alpha_period_us, timer_us, byte_counter_bytes and f must be positive, "
                        + "cnp_interval_us not negative");
            }
            if (!(raiGbps > 0 && rhaiGbps > 0 && minRateGbps > 0)) {
                throw new IllegalArgumentException("dcqcn rai_gbps, rhai_gbps and min_rate_gbps must be positive");
            }
        }

        /** The parameters a table of {@code --cc-param} names gives. */
        static Params of(Map<String, Object> v) {
            return new Params(new EcnMarking(Math.round(number(v, "kmin_bytes")), Math.round(number(v, "kmax_bytes")), number(v, "pmax")),
                    number(v, "g"), Math.round(number(v, "alpha_period_us") * 1e3), Math.round(number(v, "cnp_interval_us") * 1e3),
                    Math.round(number(v, "timer_us") * 1e3), Math.round(number(v, "byte_counter_bytes")), (int) Math.round(number(v, "f")),
                    number(v, "rai_gbps"), number(v, "rhai_gbps"), number(v, "min_rate_gbps"));
        }

        @Override
        public String name() {
            return "dcqcn";
        }

        @Override
        public CongestionControl create(double lineGbps) {
            return new Dcqcn(this, lineGbps);
        }

        @Override
        public Map<String, Object> values() {
            return table(this, GETTERS);
        }
    }

    private final Params p;
    // per flow, side by side in one array (one or two cache lines per packet at a thousand flows a
    // host, not one per field): longs, the rates and alpha as their bits
    private static final int NEXT_SEND = 0;
    private static final int ALPHA_DUE = 1;
    private static final int TIMER_DUE = 2;
    private static final int BYTES = 3;
    /** The rate increase events since the last cut: the timer's in the high 32 bits, the byte counter's in the low. */
    private static final int COUNTS = 4;
    private static final long TIMER_EVENT = 1L << 32;
    private static final int RC = 5;
    private static final int RT = 6;
    private static final int ALPHA = 7;
    private static final int STRIDE = 8;
    /**
     * Per destination LID, a bit: its flow has been cut and is paced below the line rate or still
     * recovering. The others send as they come (a flow at the line rate is paced by the link
     * itself), without touching their state: only a flow cut once has a slot, so a host talking to a
     * thousand destinations reads a bit per packet, not a cache line.
     */
    private long[] pacedBits = new long[1];
    /** The receiver's side, per source LID: when it last sent that flow a CNP (0: never; times are offset by 1). */
    private long[] lastCnp = new long[16];
    private long cuts;

    Dcqcn(Params p, double lineGbps) {
        super(lineGbps, STRIDE, Acks.EVERY_PACKET, Slots.COMPACT); // no ACKs: its receiver sends CNPs
        this.p = p;
    }

    @Override
    void start(int s) {
        set(s, RC, lineGbps);
        set(s, RT, lineGbps);
        set(s, ALPHA, 1);
        f[s * STRIDE + ALPHA_DUE] = NEVER;
        f[s * STRIDE + TIMER_DUE] = NEVER;
        f[s * STRIDE + NEXT_SEND] = Long.MIN_VALUE;
    }

    private boolean paced(int lid) {
        int w = lid >>> 6;
        return w < pacedBits.length && (pacedBits[w] & 1L << lid) != 0;
    }

    private void paced(int lid, boolean on) {
        int w = lid >>> 6;
        if (w >= pacedBits.length) {
            pacedBits = Arrays.copyOf(pacedBits, Math.max(w + 1, pacedBits.length * 2));
        }
        pacedBits[w] = on ? pacedBits[w] | 1L << lid : pacedBits[w] & ~(1L << lid);
    }

    @Override
    public long sendAt(int dlid, long now) {
        if (!paced(dlid)) {
            return now;
        }
        return f[slot(dlid) * STRIDE + NEXT_SEND];
    }

    @Override
    public void sent(int dlid, int frameBytes, long now) {
        if (!paced(dlid)) {
            return;
        }
        int s = slot(dlid);
        int b = s * STRIDE;
        advance(s, now);
        if (f[b + TIMER_DUE] == NEVER) {
            paced(dlid, false); // back at the line rate, nothing to recover: the link paces it from now on
            return;
        }
        f[b + BYTES] += frameBytes;
        if (f[b + BYTES] >= p.byteCounter) {
            f[b + BYTES] -= p.byteCounter;
            f[b + COUNTS]++;
            increase(s);
        }
        f[b + NEXT_SEND] = pacedAfter(f[b + NEXT_SEND], now, frameBytes, get(s, RC));
    }

    @Override
    public int reply(int slid, boolean marked, long now) {
        if (!marked) {
            return NO_REPLY;
        }
        if (slid >= lastCnp.length) {
            lastCnp = Arrays.copyOf(lastCnp, Math.max(slid + 1, lastCnp.length * 2));
        }
        long last = lastCnp[slid];
        if (last != 0 && now - (last - 1) < p.cnpIntervalNs) {
            return NO_REPLY;
        }
        lastCnp[slid] = now + 1;
        return PacketPool.CNP;
    }

    @Override
    public void acked(int dlid, long rttNs, int hops, int packets, long now) {
        // DCQCN has no ACK clock: its receiver sends CNPs only
    }

    @Override
    public void notified(int dlid, long now) {
        int s = slot(dlid);
        paced(dlid, true);
        int b = s * STRIDE;
        advance(s, now);
        cuts++;
        double rc = get(s, RC);
        double alpha = get(s, ALPHA);
        set(s, RT, rc);
        set(s, RC, Math.max(p.minRateGbps, rc * (1 - alpha / 2)));
        set(s, ALPHA, (1 - p.g) * alpha + p.g);
        f[b + ALPHA_DUE] = now + p.alphaPeriodNs;
        f[b + TIMER_DUE] = now + p.timerNs;
        f[b + COUNTS] = 0;
        f[b + BYTES] = 0;
    }

    /** Applies alpha's decays and the rate increase timer's expiries due by {@code now}. */
    private void advance(int s, long now) {
        int b = s * STRIDE;
        if (now >= f[b + ALPHA_DUE]) {
            long steps = (now - f[b + ALPHA_DUE]) / p.alphaPeriodNs + 1;
            set(s, ALPHA, get(s, ALPHA) * Math.pow(1 - p.g, steps));
            f[b + ALPHA_DUE] += steps * p.alphaPeriodNs;
        }
        while (now >= f[b + TIMER_DUE]) {
            f[b + COUNTS] += TIMER_EVENT;
            increase(s);
            if (get(s, RC) >= lineGbps) {
                f[b + TIMER_DUE] = NEVER; // back at the line rate: nothing left to recover until the next CNP
                break;
            }
            f[b + TIMER_DUE] += p.timerNs;
        }
    }

    /** One rate increase event: fast recovery, additive or hyper increase by the two counts. */
    private void increase(int s) {
        long t = f[s * STRIDE + COUNTS] >>> 32;
        long c = f[s * STRIDE + COUNTS] & 0xFFFFFFFFL;
        double rt = get(s, RT);
        if (Math.min(t, c) > p.fastRecovery) {
            rt = Math.min(lineGbps, rt + (Math.min(t, c) - p.fastRecovery) * p.rhaiGbps);
        } else if (Math.max(t, c) >= p.fastRecovery) {
            rt = Math.min(lineGbps, rt + p.raiGbps);
        }
        set(s, RT, rt);
        set(s, RC, Math.min(lineGbps, (rt + get(s, RC)) / 2));
    }

    @Override
    public double rateGbps(int dlid, long now) {
        int s = slotIfAny(dlid);
        if (s < 0) {
            return lineGbps;
        }
        advance(s, now);
        return get(s, RC);
    }

    /** Alpha of the flow to {@code dlid} (1 for a flow not seen yet). */
    public double alpha(int dlid) {
        int s = slotIfAny(dlid);
        return s < 0 ? 1 : get(s, ALPHA);
    }

    /** The target rate of the flow to {@code dlid}, Gbps. */
    public double targetGbps(int dlid) {
        int s = slotIfAny(dlid);
        return s < 0 ? lineGbps : get(s, RT);
    }

    /** Rate cuts (CNPs acted on) so far. */
    public long cuts() {
        return cuts;
    }
}
