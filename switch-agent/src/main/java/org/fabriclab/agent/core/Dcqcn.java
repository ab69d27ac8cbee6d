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
    private double[] rc = new double[0];
    private double[] rt = new double[0];
    private double[] alpha = new double[0];
    private long[] nextSend = new long[0];
    private long[] alphaDue = new long[0];
    private long[] timerDue = new long[0];
    private long[] bytes = new long[0];
    private int[] timerCount = new int[0];
    private int[] byteCount = new int[0];
    /** The receiver's side, per source LID: when it last sent that flow a CNP (0: never; times are offset by 1). */
    private long[] lastCnp = new long[16];
    private long cuts;

    Dcqcn(Params p, double lineGbps) {
        super(lineGbps);
        this.p = p;
    }

    @Override
    void grow(int n) {
        if (n <= rc.length) {
            return;
        }
        int c = Math.max(n, rc.length * 2);
        rc = Arrays.copyOf(rc, c);
        rt = Arrays.copyOf(rt, c);
        alpha = Arrays.copyOf(alpha, c);
        nextSend = Arrays.copyOf(nextSend, c);
        alphaDue = Arrays.copyOf(alphaDue, c);
        timerDue = Arrays.copyOf(timerDue, c);
        bytes = Arrays.copyOf(bytes, c);
        timerCount = Arrays.copyOf(timerCount, c);
        byteCount = Arrays.copyOf(byteCount, c);
    }

    @Override
    void start(int s) {
        rc[s] = lineGbps;
        rt[s] = lineGbps;
        alpha[s] = 1;
        alphaDue[s] = NEVER;
        timerDue[s] = NEVER;
        nextSend[s] = Long.MIN_VALUE;
    }

    @Override
    public long sendAt(int dlid, long now) {
        int s = slot(dlid);
        return nextSend[s];
    }

    @Override
    public void sent(int dlid, int frameBytes, long now) {
        int s = slot(dlid);
        advance(s, now);
        if (timerDue[s] != NEVER) {
            bytes[s] += frameBytes;
            if (bytes[s] >= p.byteCounter) {
                bytes[s] -= p.byteCounter;
                byteCount[s]++;
                increase(s);
            }
        }
        nextSend[s] = Math.max(nextSend[s], now) + (long) Math.ceil(frameBytes * 8 / rc[s]);
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
    public void acked(int dlid, long rttNs, long now) {
        // DCQCN has no ACK clock: its receiver sends CNPs only
    }

    @Override
    public void notified(int dlid, long now) {
        int s = slot(dlid);
        advance(s, now);
        cuts++;
        rt[s] = rc[s];
        rc[s] = Math.max(p.minRateGbps, rc[s] * (1 - alpha[s] / 2));
        alpha[s] = (1 - p.g) * alpha[s] + p.g;
        alphaDue[s] = now + p.alphaPeriodNs;
        timerDue[s] = now + p.timerNs;
        timerCount[s] = 0;
        byteCount[s] = 0;
        bytes[s] = 0;
    }

    /** Applies alpha's decays and the rate increase timer's expiries due by {@code now}. */
    private void advance(int s, long now) {
        if (now >= alphaDue[s]) {
            long steps = (now - alphaDue[s]) / p.alphaPeriodNs + 1;
            alpha[s] *= Math.pow(1 - p.g, steps);
            alphaDue[s] += steps * p.alphaPeriodNs;
        }
        while (now >= timerDue[s]) {
            timerCount[s]++;
            increase(s);
            if (rc[s] >= lineGbps) {
                timerDue[s] = NEVER; // back at the line rate: nothing left to recover until the next CNP
                break;
            }
            timerDue[s] += p.timerNs;
        }
    }

    /** One rate increase event: fast recovery, additive or hyper increase by the two counts. */
    private void increase(int s) {
        int t = timerCount[s];
        int b = byteCount[s];
        if (Math.min(t, b) > p.fastRecovery) {
            rt[s] = Math.min(lineGbps, rt[s] + (Math.min(t, b) - p.fastRecovery) * p.rhaiGbps);
        } else if (Math.max(t, b) >= p.fastRecovery) {
            rt[s] = Math.min(lineGbps, rt[s] + p.raiGbps);
        }
        rc[s] = Math.min(lineGbps, (rt[s] + rc[s]) / 2);
    }

    @Override
    public double rateGbps(int dlid, long now) {
        int s = slotIfAny(dlid);
        if (s < 0) {
            return lineGbps;
        }
        advance(s, now);
        return rc[s];
    }

    /** Alpha of the flow to {@code dlid} (1 for a flow not seen yet). */
    public double alpha(int dlid) {
        int s = slotIfAny(dlid);
        return s < 0 ? 1 : alpha[s];
    }

    /** The target rate of the flow to {@code dlid}, Gbps. */
    public double targetGbps(int dlid) {
        int s = slotIfAny(dlid);
        return s < 0 ? lineGbps : rt[s];
    }

    /** Rate cuts (CNPs acted on) so far. */
    public long cuts() {
        return cuts;
    }
}
