package org.fabriclab.agent.link;

import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The fidelity monitor of one event loop: a task that asks to run every {@link #PERIOD_NS} and
 * measures how late it ran (how far the loop ran behind, its backlog of work), and the one-second
 * slots in which the loop's nodes keep their worst link lag, so that the worst lag over any recent
 * interval can be read without a reader resetting what another reads. Lags are kept in model time
 * (the loop's lateness divided by the dilation in force when measured). Confined to its loop.
 */
final class LagProbe implements Runnable {
    /** How often the probe asks to run, in wall time. */
    static final long PERIOD_NS = 1_000_000;
    /** The length of one slot of worst lags, in wall time. */
    static final long SLOT_NS = 1_000_000_000;
    /** Slots kept: the longest interval a reader can ask about, in seconds, plus the current one. */
    static final int SLOTS = 64;
    /**
     * The lag a faithful emulation stays within, in model time: a link's catch-up window
     * ({@link LiveNode#CATCH_UP_NS}), within which a late wake-up or delivery costs its link no
     * rate (the next frame starts where the last ended). Worst over an interval, it counts every
     * preemption and collector pause of the JVM (a loaded machine stalls a process for 100 ms and
     * more); D makes them short in model time.
     */
    static final long BOUND_NS = LiveNode.CATCH_UP_NS;

    private final EventLoop loop;
    private final ModelClock clock;
    private final long[] loopLag = new long[SLOTS];
    private final List<LiveNode> nodes = new ArrayList<>();
    /** The current slot's index into every ring. */
    int index;
    private long slotEnds;
    private long due;

    LagProbe(EventLoop loop, ModelClock clock) {
        this.loop = loop;
        this.clock = clock;
        loop.execute(() -> {
            long now = System.nanoTime();
            slotEnds = now + SLOT_NS;
            due = now + PERIOD_NS;
            loop.schedule(this, PERIOD_NS, TimeUnit.NANOSECONDS);
        });
    }

    /** Keeps {@code node}'s link lags in this probe's slots (on the loop). */
    void add(LiveNode node) {
        loop.execute(() -> nodes.add(node));
    }

    @Override
    public void run() {
        long now = System.nanoTime();
        long late = clock.modelNanos(now - due);
        if (late > loopLag[index]) {
            loopLag[index] = late;
        }
        if (now >= slotEnds) {
            index = (index + 1) % SLOTS;
            loopLag[index] = 0;
            for (LiveNode n : nodes) {
                n.clearLagSlot(index);
            }
            slotEnds = Math.max(slotEnds + SLOT_NS, now);
        }
        due = now + PERIOD_NS;
        try {
            loop.schedule(this, PERIOD_NS, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) {
            // the loop is shutting down: nothing left to watch
        }
    }

    /** The slots covering the last {@code windowMillis} of wall time, the current one included (at least 1). */
    static int slots(long windowMillis) {
        long s = (windowMillis * 1_000_000 + SLOT_NS - 1) / SLOT_NS + 1;
        return (int) Math.max(1, Math.min(SLOTS, s));
    }

    /** The index {@code back} slots before the current one. */
    int indexBack(int back) {
        return ((index - back) % SLOTS + SLOTS) % SLOTS;
    }

    /** The loop's worst lateness over the last {@code slots} slots, model ns (on the loop). */
    long loopLag(int slots) {
        long worst = 0;
        for (int b = 0; b < slots; b++) {
            worst = Math.max(worst, loopLag[indexBack(b)]);
        }
        return worst;
    }
}
