package org.fabriclab.emulator.sim;

import java.util.Arrays;
import org.fabriclab.agent.core.NicCounters;
import org.fabriclab.agent.core.PortCounterArray;

/**
 * The NICs' modelled responses on their way back to their senders (the round trips of {@link
 * NicCounters}), held by the simulator as it holds packets on the wire, and counted at their
 * senders' counters in batches once their return time has come.
 *
 * <p>Why not each sender's own heap ({@code HostCore#responseReturns}, which the live hosts use):
 * the response is made at its receiver's event, and putting it in its sender's heap there touched
 * the sender's core and heap, lines that event would not otherwise touch (a cache miss or two per
 * packet at a thousand hosts, docs/benchmarks.md). Here it is appended where the last one went.
 * The simulator runs events in time order, so responses are made in order of their delivery; a
 * response's way back takes one of few times (the no-load time between two switches and the
 * links to them: three on a three-level fat tree, a handful on a Dragonfly), so one FIFO per such
 * time holds its responses in order of return. {@link #settle} pops every FIFO's due heads.
 *
 * <p>Exactness: a sender's counters hold every response due by {@code now} once {@link #settle}
 * has run with {@code now}, the same set its own heap gave at its events; the simulator settles
 * before an application-aware chooser reads the counters (its one reader during a run) and at the
 * end. Sums do not depend on the order they are added in. Costs: an append per response, and per
 * settle that counts something a look at each FIFO's head; with {@code K} distinct times back
 * (small on the fabrics this lab builds), {@code O(K)} for a settle that counts, {@code O(1)} for
 * one that does not. Confined to the simulation's thread.
 */
final class ResponsesInFlight {
    /** An entry's longs: its return time, its round trip (return less NIC send), its sender and hops. */
    private static final int AT = 0;
    private static final int RTT = 1;
    private static final int WHO = 2;
    private static final int STRIDE = 3;
    private static final int HOPS_BITS = 16;

    /** Per endpoint, its NIC's counters. */
    private final PortCounterArray[] nic;
    /** Per FIFO: its time back, and its ring of entries ({@link #STRIDE} longs each), head and count. */
    private long[] delay = new long[0];
    private long[][] ring = new long[0][];
    private int[] head = new int[0];
    private int[] count = new int[0];
    /** The earliest head's return time ({@link Long#MAX_VALUE}: none held). */
    private long nextDue = Long.MAX_VALUE;
    /** The FIFO of the last response added: most come from the same few. */
    private int last = -1;
    private long held;

    /** Responses to the NICs whose counters are {@code nic} (per endpoint). */
    ResponsesInFlight(PortCounterArray[] nic) {
        this.nic = nic.clone();
    }

    /**
     * The response to endpoint {@code sender}'s packet, sent at {@code sentAt} and delivered at
     * {@code now} after {@code hops} links between switches, comes back {@code back} ns later.
     */
    void add(int sender, long sentAt, int hops, long back, long now) {
        assert hops >= 0 && hops < 1 << HOPS_BITS;
        long at = now + back;
        if (back <= 0) {
            NicCounters.countRoundTrip(nic[sender], at - sentAt, hops);
            return;
        }
        int q = last >= 0 && delay[last] == back ? last : fifo(back);
        last = q;
        long[] r = ring[q];
        int n = count[q];
        if (n * STRIDE == r.length) {
            r = grow(q);
        }
        int i = head[q] + n * STRIDE;
        i = i < r.length ? i : i - r.length;
        assert n == 0 || r[(i == 0 ? r.length : i) - STRIDE + AT] <= at : "responses made out of time order";
        r[i + AT] = at;
        r[i + RTT] = at - sentAt;
        r[i + WHO] = (long) sender << HOPS_BITS | hops;
        count[q] = n + 1;
        held++;
        if (at < nextDue) {
            nextDue = at;
        }
    }

    /** Counts at their senders every response due by {@code now}. */
    void settle(long now) {
        if (nextDue > now) {
            return;
        }
        long next = Long.MAX_VALUE;
        for (int q = 0; q < ring.length; q++) {
            long[] r = ring[q];
            int h = head[q];
            int n = count[q];
            while (n > 0 && r[h + AT] <= now) {
                long who = r[h + WHO];
                NicCounters.countRoundTrip(nic[(int) (who >>> HOPS_BITS)], r[h + RTT], (int) (who & (1 << HOPS_BITS) - 1));
                h += STRIDE;
                h = h < r.length ? h : 0;
                n--;
                held--;
            }
            head[q] = h;
            count[q] = n;
            if (n > 0 && r[h + AT] < next) {
                next = r[h + AT];
            }
        }
        nextDue = next;
    }

    /** Responses on their way back, not yet counted. */
    long held() {
        return held;
    }

    /** The FIFO of responses {@code back} ns on their way, a new one if none has that time. */
    private int fifo(long back) {
        for (int q = 0; q < delay.length; q++) {
            if (delay[q] == back) {
                return q;
            }
        }
        int q = delay.length;
        delay = Arrays.copyOf(delay, q + 1);
        ring = Arrays.copyOf(ring, q + 1);
        ring[q] = new long[64 * STRIDE];
        head = Arrays.copyOf(head, q + 1);
        count = Arrays.copyOf(count, q + 1);
        delay[q] = back;
        return q;
    }

    /** Doubles FIFO {@code q}'s ring, its entries from its start in order. */
    private long[] grow(int q) {
        long[] r = ring[q];
        long[] g = new long[2 * r.length];
        int h = head[q];
        System.arraycopy(r, h, g, 0, r.length - h);
        System.arraycopy(r, 0, g, r.length - h, h);
        head[q] = 0;
        ring[q] = g;
        return g;
    }
}
