package org.fabriclab.agent.core;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * A reliable transport's acknowledgements without congestion control ({@code --cc ack-only}): the
 * receiver acknowledges data packets as Swift's and RL-CC's do ({@link CongestionControl.Acks}:
 * every {@code ack_every}-th packet, a timer for a flow's tail), and the sender sends every packet
 * as soon as its link lets it and ignores the ACKs: an InfiniBand RC queue pair with its fabric's
 * congestion control off. It keeps no state per flow.
 *
 * <p>The baseline that separates what a window-based algorithm's ACKs cost (their packets in the
 * fabric and in the simulator) from what its control does: Swift against {@code ack-only} is the
 * algorithm, {@code ack-only} against {@code none} its ACKs (docs/benchmarks.md, "By load").
 */
public final class AckOnly extends CongestionControl {
    /**
     * Its parameters: the receiver's ACK coalescing alone ({@code ack_every}, {@code ack_delay_us};
     * an ACK per packet by default, as Swift's).
     */
    public record Params(Acks acks) implements Settings {
        public static final Params DEFAULTS = new Params(Acks.EVERY_PACKET);

        private static final Map<String, Function<Params, Object>> GETTERS = getters();

        private static Map<String, Function<Params, Object>> getters() {
            Map<String, Function<Params, Object>> m = new LinkedHashMap<>();
            Acks.getters(m, Params::acks);
            return m;
        }

        /** @throws IllegalArgumentException without the ACK coalescing */
        public Params {
            if (acks == null) {
                throw new IllegalArgumentException("ack-only needs its ACK coalescing (ack_every, ack_delay_us)");
            }
        }

        static Params of(Map<String, Object> v) {
            return new Params(Acks.of(v));
        }

        @Override
        public String name() {
            return "ack-only";
        }

        @Override
        public CongestionControl create(double lineGbps) {
            return new AckOnly(this, lineGbps);
        }

        @Override
        public Map<String, Object> values() {
            return table(this, GETTERS);
        }
    }

    AckOnly(Params p, double lineGbps) {
        super(lineGbps, 1, p.acks, Slots.COMPACT);
    }

    @Override
    void start(int s) {
        // no state per flow: slot() is never asked for one
    }

    @Override
    public long sendAt(int dlid, long now) {
        return now;
    }

    @Override
    public void sent(int dlid, int bytes, long now) {
        // nothing limits a flow
    }

    @Override
    public int reply(int slid, boolean marked, long now) {
        return PacketPool.ACK;
    }

    @Override
    public void acked(int dlid, long rttNs, int hops, int packets, long now) {
        // the transport's ACK, read by no rate control
    }

    @Override
    public void notified(int dlid, long now) {
        // no CNPs: nothing marks for it
    }

    @Override
    public double rateGbps(int dlid, long now) {
        return lineGbps;
    }
}
