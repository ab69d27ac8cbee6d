package org.fabriclab.agent.core;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.fabriclab.routing.text.Excerpt;

/**
 * A NIC's per-flow congestion control, the same on both clocks ({@link HostCore} runs it): a flow
 * is the host's traffic to one destination LID. The sender asks {@link #sendAt} when a flow's next
 * packet may go and reports {@link #sent}; the receiver's NIC answers a data packet with a control
 * packet where the algorithm asks ({@link #reply}: an ACK echoing the data packet's NIC send time,
 * coalesced as {@link Acks} says, or a CNP for an ECN-marked one), and the sender's NIC hands the control packets it gets to
 * {@link #acked} (with the RTT) and {@link #notified}. Three algorithms: {@link Dcqcn}, {@link
 * Swift} and {@link RlCc}; and {@link AckOnly}, the ACKs of Swift's and RL-CC's transport without a control.
 *
 * <p>Per-flow state lives in one {@code long[]}, a slot per flow, which grows (doubling) when a
 * new destination shows up: nothing is allocated per packet in steady state. An algorithm that
 * keeps state for every flow it sends on (Swift, RL-CC: {@link Slots#BY_LID}) finds a flow's slot
 * at its LID, its state's first field non-zero once started: a packet or ACK then reads one
 * cache line of flow state, not a line of a LID-to-slot table first (at a thousand hosts of a
 * thousand flows each, both miss the cache: the table's load was half of Swift's samples in
 * congestion control, docs/benchmarks.md). One that keeps state for a few flows only (DCQCN: the flows it cut)
 * numbers them in the order they come ({@link Slots#COMPACT}). Confined to the thread driving the
 * host.
 */
public abstract sealed class CongestionControl permits Dcqcn, Swift, RlCc, AckOnly {
    /** {@link #sendAt}'s answer for a flow that waits for an acknowledgement, not for a time. */
    public static final long WAIT = Long.MAX_VALUE;
    /** {@link #reply}'s answer when the receiver sends nothing back. */
    public static final int NO_REPLY = -1;
    private static final int INITIAL = 16;

    /** The host link's rate: a flow's rate never exceeds it. */
    protected final double lineGbps;
    /** How a flow's slot is found from its LID. */
    enum Slots {
        /**
         * The slot is the LID: state for LIDs up to the highest seen (the fabric's LIDs are dense;
         * a live host's highest unicast LID, 0xBFFF, would take a few MB); a slot is started when
         * its first field is 0, which the algorithm's {@link #start} must never leave it.
         */
        BY_LID,
        /** Slots numbered in the order the flows first show up, through a table by LID: state for those flows only. */
        COMPACT
    }

    private final boolean byLid;
    /** {@link Slots#COMPACT}: per LID, its flow's slot plus one (0: none yet). */
    private int[] slotOfLid = new int[INITIAL];
    private int flows;

    /** Longs per flow in {@link #f}. */
    private final int stride;
    /**
     * Per flow, its state side by side ({@code stride} longs from {@code slot * stride}; doubles as
     * their bits): a packet touches one or two cache lines of its flow, not one per field.
     */
    long[] f = new long[0];

    /** How the receiver acknowledges data packets, for an algorithm that asks for ACKs. */
    private final Acks acks;

    CongestionControl(double lineGbps, int stride, Acks acks, Slots slots) {
        if (!(lineGbps > 0)) {
            throw new IllegalArgumentException("congestion control needs a positive line rate, not " + lineGbps + " Gbps");
        }
        this.lineGbps = lineGbps;
        this.stride = stride;
        this.acks = acks;
        this.byLid = slots == Slots.BY_LID;
    }

    /**
     * How a receiver's NIC acknowledges a flow's data packets (Swift's and RL-CC's ACKs; {@link
     * HostCore} does it): one ACK per {@code every} packets of a flow, as NICs coalesce them and as
     * Swift's paper counts them (an ACK says how many packets it acknowledges, {@code num_acked}),
     * echoing the newest one's NIC send time. Packets short of {@code every} are acknowledged {@code
     * delayNs} after the first of them arrived, so a flow's tail (and a window smaller than {@code
     * every}) is never left waiting: a per-flow timer, run on the host's own wake-ups (the clock of
     * whichever driver runs it, as paced flows are). A timer's ACK echoes the send time plus the time
     * the receiver held it, so the sender's RTT is the fabric's, not the coalescing's (Swift's
     * remote-delay correction: its paper takes the receiver's ACK delay out of the fabric delay).
     *
     * @param every   data packets of a flow per ACK ({@code ack_every}, 1 to {@link #MAX_EVERY})
     * @param delayNs the longest a received packet waits for its ACK ({@code ack_delay_us}, above 0, at most {@link #MAX_DELAY_US} us)
     */
    public record Acks(int every, long delayNs) {
        /** The most packets one ACK may wait for: a window of 64 packets is most of a 100 Gb/s link's RTT here. */
        public static final int MAX_EVERY = 64;
        /** The longest timer, us: a millisecond (a fabric's RTTs are microseconds). */
        public static final double MAX_DELAY_US = 1_000;
        /** An ACK per data packet (the timer never runs). */
        public static final Acks EVERY_PACKET = new Acks(1, 1_000);

        /** @throws IllegalArgumentException naming the parameter out of range */
        public Acks {
            if (every < 1 || every > MAX_EVERY) {
                throw new IllegalArgumentException("ack_every must be a whole number of packets from 1 to " + MAX_EVERY + ", not " + every);
            }
            if (delayNs <= 0 || delayNs > MAX_DELAY_US * 1e3) {
                throw new IllegalArgumentException("ack_delay_us must be above 0 and at most " + MAX_DELAY_US + " us, not " + delayNs / 1e3);
            }
        }

        /** Adds {@code ack_every} and {@code ack_delay_us} to a parameter table's getters, read from a settings record by {@code acks}. */
        static <P> void getters(Map<String, Function<P, Object>> m, Function<P, Acks> acks) {
            m.put("ack_every", p -> (double) acks.apply(p).every);
            m.put("ack_delay_us", p -> acks.apply(p).delayNs / 1e3);
        }

        /** The settings a table of {@code --cc-param} names gives. */
        static Acks of(Map<String, Object> v) {
            double every = number(v, "ack_every");
            if (every != Math.rint(every) || every < 1 || every > MAX_EVERY) {
                throw new IllegalArgumentException("--cc-param ack_every=" + plain(every) + ": a whole number of packets from 1 to " + MAX_EVERY + " is needed");
            }
            double delayUs = number(v, "ack_delay_us"); // checked before rounding: 0.0001 us is not a timer
            if (!(delayUs >= 0.001 && delayUs <= MAX_DELAY_US)) {
                throw new IllegalArgumentException("--cc-param ack_delay_us=" + plain(delayUs) + ": 0.001 to " + plain(MAX_DELAY_US)
                        + " us is needed");
            }
            return new Acks((int) every, Math.round(delayUs * 1e3));
        }

        /** {@code d} as a user writes it: 4, 2.5, 0.0001. */
        private static String plain(double d) {
            return BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
        }
    }

    /** Data packets of a flow per ACK ({@link Acks#every}; 1 for an algorithm without ACKs). */
    public final int ackEvery() {
        return acks.every();
    }

    /** The longest a received data packet waits for its ACK, ns ({@link Acks#delayNs}). */
    public final long ackDelayNs() {
        return acks.delayNs();
    }

    /** What {@code --cc} names and its parameters: makes one host's congestion control. */
    public sealed interface Settings permits Dcqcn.Params, Swift.Params, RlCc.Params, AckOnly.Params {
        /** The algorithm's command-line name. */
        String name();

        /** One host's state, on a link of {@code lineGbps}. */
        CongestionControl create(double lineGbps);

        /** The parameters by name, with their values, as {@code --cc-param} takes them (numbers, or a string for a file's name). */
        Map<String, Object> values();

        /** The ECN marking the switches must do for it (DCQCN's), or null: none. */
        default EcnMarking marking() {
            return null;
        }
    }

    /** The command-line names, {@code none} first. */
    public static final String[] NAMES = {"none", "dcqcn", "swift", "rl-cc", "ack-only"};

    /**
     * The settings {@code --cc NAME} with {@code --cc-param} {@code overrides} means, null for
     * {@code none}.
     *
     * @throws IllegalArgumentException one line naming the bad name, parameter or value, and the valid ones
     */
    public static Settings settings(String name, Map<String, String> overrides) {
        Settings s = switch (name) {
            case "none" -> null;
            case "dcqcn" -> Dcqcn.Params.DEFAULTS;
            case "swift" -> Swift.Params.DEFAULTS;
            case "rl-cc" -> RlCc.Params.defaults();
            case "ack-only" -> AckOnly.Params.DEFAULTS;
            default -> throw new IllegalArgumentException("Invalid value for option '--cc': " + Excerpt.quote(name)
                    + " is not a congestion control; give one of " + String.join(", ", NAMES));
        };
        if (s == null) {
            if (!overrides.isEmpty()) {
                throw new IllegalArgumentException("--cc-param needs a congestion control (" + algorithms() + "), not none");
            }
            return null;
        }
        Map<String, Object> values = new LinkedHashMap<>(s.values());
        for (Map.Entry<String, String> e : overrides.entrySet()) {
            if (!values.containsKey(e.getKey())) {
                throw new IllegalArgumentException("--cc-param " + Excerpt.bare(e.getKey()) + ": " + name + " has no such parameter; it has "
                        + String.join(", ", values.keySet()));
            }
            if (values.get(e.getKey()) instanceof String) { // a file's name (rl-cc's policy), read by the algorithm's of()
                values.put(e.getKey(), e.getValue());
                continue;
            }
            double d;
            try {
                d = Double.parseDouble(e.getValue());
            } catch (NumberFormatException x) {
                throw new IllegalArgumentException("--cc-param " + e.getKey() + "=" + Excerpt.bare(e.getValue()) + ": not a number");
            }
            if (!Double.isFinite(d)) {
                throw new IllegalArgumentException("--cc-param " + e.getKey() + "=" + Excerpt.bare(e.getValue()) + ": not a finite number");
            }
            values.put(e.getKey(), d);
        }
        try {
            if (s instanceof Dcqcn.Params) {
                return Dcqcn.Params.of(values);
            }
            if (s instanceof AckOnly.Params) {
                return AckOnly.Params.of(values);
            }
            return s instanceof Swift.Params ? Swift.Params.of(values) : RlCc.Params.of(values);
        } catch (IllegalArgumentException x) { // the defaults hold: the values given broke a rule ("ECN pmax 2.0 is not in (0, 1]")
            if (overrides.isEmpty() || x.getMessage().startsWith("--cc-param")) {
                throw x;
            }
            throw new IllegalArgumentException("--cc-param " + overrides.entrySet().stream()
                    .map(o -> Excerpt.bare(o.getKey()) + "=" + Excerpt.bare(o.getValue())).collect(Collectors.joining(" ")) + ": "
                    + x.getMessage(), x);
        }
    }

    /** The algorithms {@code --cc-param} applies to, as errors list them: {@code --cc dcqcn, swift, rl-cc or ack-only}. */
    public static String algorithms() {
        return "--cc " + String.join(", ", Arrays.copyOfRange(NAMES, 1, NAMES.length - 1)) + " or " + NAMES[NAMES.length - 1];
    }

    /**
     * When a flow paced at {@code gbps} may send again after a packet of {@code frameBytes} at
     * {@code now}: its bytes' time at that rate after {@code nextSend} or now, whichever is later.
     */
    static long pacedAfter(long nextSend, long now, int frameBytes, double gbps) {
        return Math.max(nextSend, now) + (long) Math.ceil(frameBytes * 8 / gbps);
    }

    /** {@code values}' entry {@code key} as a double (the parameter tables hold numbers). */
    static double number(Map<String, Object> values, String key) {
        return ((Number) values.get(key)).doubleValue();
    }

    /** The parameter table of a settings record, in declaration order, by {@code getters}. */
    static <P> Map<String, Object> table(P p, Map<String, Function<P, Object>> getters) {
        Map<String, Object> m = new LinkedHashMap<>();
        getters.forEach((k, g) -> m.put(k, g.apply(p)));
        return m;
    }

    /** Flow {@code s}'s field {@code field} that holds a double (as its bits). */
    final double get(int s, int field) {
        return Double.longBitsToDouble(f[s * stride + field]);
    }

    /** Sets flow {@code s}'s double field {@code field} to {@code v}. */
    final void set(int s, int field, double v) {
        f[s * stride + field] = Double.doubleToRawLongBits(v);
    }

    /** The slot of {@code lid}'s flow, made on first use. */
    final int slot(int lid) {
        if (byLid) {
            int b = lid * stride;
            if (b >= f.length) {
                f = Arrays.copyOf(f, Math.max(lid + 1, Math.max(INITIAL, 2 * f.length / stride)) * stride);
            }
            if (f[b] == 0) {
                start(lid);
                assert f[b] != 0 : "a flow's first field must not be 0 once started";
            }
            return lid;
        }
        if (lid >= slotOfLid.length) {
            slotOfLid = Arrays.copyOf(slotOfLid, Math.max(lid + 1, slotOfLid.length * 2));
        }
        int s = slotOfLid[lid] - 1;
        if (s < 0) {
            s = flows++;
            slotOfLid[lid] = s + 1;
            if (flows * stride > f.length) {
                f = Arrays.copyOf(f, Math.max(flows, 2 * f.length / stride) * stride);
            }
            start(s);
        }
        return s;
    }

    /** The slot of {@code lid}'s flow, or -1 if it has none. */
    final int slotIfAny(int lid) {
        if (byLid) {
            return lid * stride < f.length && f[lid * stride] != 0 ? lid : -1;
        }
        return lid < slotOfLid.length ? slotOfLid[lid] - 1 : -1;
    }

    /** Flow {@code s}'s initial state. */
    abstract void start(int s);

    /** When the flow to {@code dlid} may send its next packet: at or before {@code now}, a later time, or {@link #WAIT}. */
    public abstract long sendAt(int dlid, long now);

    /** The NIC put a packet of {@code bytes} to {@code dlid} on the wire at {@code now}. */
    public abstract void sent(int dlid, int bytes, long now);

    /**
     * The receiver got a data packet from {@code slid} ({@code marked}: congestion-experienced):
     * the kind of control packet to send back ({@link PacketPool#ACK}, {@link PacketPool#CNP}) or
     * {@link #NO_REPLY}.
     */
    public abstract int reply(int slid, boolean marked, long now);

    /**
     * An ACK for {@code packets} data packets of the flow to {@code dlid} came back, {@code rttNs}
     * after the newest of them left (less the time the receiver held the ACK), through {@code hops}
     * switches (the ACK's own path: in the fabrics here as long as the data's).
     */
    public abstract void acked(int dlid, long rttNs, int hops, int packets, long now);

    /** {@link #acked(int, long, int, int, long)} for one packet. */
    public final void acked(int dlid, long rttNs, int hops, long now) {
        acked(dlid, rttNs, hops, 1, now);
    }

    /** {@link #acked(int, long, int, int, long)} for one packet, the hop count unknown (0). */
    public final void acked(int dlid, long rttNs, long now) {
        acked(dlid, rttNs, 0, 1, now);
    }

    /** A CNP for the flow to {@code dlid} came back. */
    public abstract void notified(int dlid, long now);

    /** The rate the flow to {@code dlid} is paced at now, Gbps (the line rate for a flow not seen yet). */
    public abstract double rateGbps(int dlid, long now);
}
