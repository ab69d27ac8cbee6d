package org.fabriclab.emulator.sim;

import java.util.Arrays;

/**
 * Q-adaptive feedback messages on their way upstream, each a Q-table row and a value (ns), held in
 * slots that an event names by number (an event's argument has room for one number, not a row and
 * a value): {@link #put} takes a free slot, {@link #take} frees it. Grows to the most messages in
 * flight at once, then allocates nothing. Confined to the simulation's thread.
 */
final class FeedbackSlots {
    private int[] row = new int[1024];
    private float[] value = new float[1024];
    private int[] free = new int[1024];
    private int freeCount;
    private int used;

    /** A slot holding {@code r} and {@code v}. */
    int put(int r, float v) {
        int i;
        if (freeCount > 0) {
            i = free[--freeCount];
        } else {
            if (used == row.length) {
                row = Arrays.copyOf(row, used * 2);
                value = Arrays.copyOf(value, used * 2);
                free = Arrays.copyOf(free, used * 2);
            }
            i = used++;
        }
        row[i] = r;
        value[i] = v;
        return i;
    }

    int row(int slot) {
        return row[slot];
    }

    /** The value of slot {@code slot}, which is free from now on. */
    float take(int slot) {
        free[freeCount++] = slot;
        return value[slot];
    }

    /** Messages in flight. */
    int inFlight() {
        return used - freeCount;
    }
}
