package org.fabriclab.emulator.sim;

import java.util.Arrays;

/**
 * The simulator's pending events, earliest first, ties in the order they were scheduled (so a run
 * is deterministic). An event is a slot of four ints in one array (type, node, port, argument).
 *
 * <p>A calendar queue: most delays are short (a frame's time on the wire, a link's delay, the gap
 * between a host's packets), so events within {@link #WHEEL} ns of the current time go into one
 * FIFO bucket per nanosecond, O(1) to add and to take; later ones wait in a 4-ary heap of keys
 * (time and scheduling counter packed in one {@code long}) and move into their bucket the moment
 * the current time comes within {@link #WHEEL} ns of theirs, before anything else can be
 * scheduled for that nanosecond, so every bucket stays in scheduling order. Nothing is allocated
 * per event once the arrays have grown to the largest number of events pending at once. Times
 * must stay below {@link #MAX_TIME} ns (about 9 minutes).
 */
final class EventQueue {
    /** Bits of the scheduling counter in a heap key. */
    static final int ORDER_BITS = 24;
    /** The latest time an event may have. */
    static final long MAX_TIME = (1L << (63 - ORDER_BITS)) - 1;
    /** Nanoseconds covered by the buckets (a power of two). */
    static final int WHEEL = 4096;
    private static final int MASK = WHEEL - 1;
    private static final int STRIDE = 4;
    private static final int NONE = -1;

    /** Per slot: type, node, port, argument. */
    private int[] slots;
    /** Per slot: its time, and the next slot in its bucket. */
    private long[] times;
    private int[] next;
    private final int[] bucketHead = new int[WHEEL];
    private final int[] bucketTail = new int[WHEEL];
    /** Events in buckets, in [cursor, cursor + WHEEL). */
    private int inWheel;
    private long cursor;
    // the heap of later events: keys and slots side by side
    private long[] keys;
    private int[] heap;
    private int heapSize;
    private int[] free;
    private int freeCount;
    private long scheduled;
    private long poppedTime;

    EventQueue(int capacity) {
        capacity = Math.max(16, capacity);
        slots = new int[capacity * STRIDE];
        times = new long[capacity];
        next = new int[capacity];
        keys = new long[capacity];
        heap = new int[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = capacity - 1 - i;
        }
        freeCount = capacity;
        Arrays.fill(bucketHead, NONE);
        Arrays.fill(bucketTail, NONE);
    }

    boolean isEmpty() {
        return inWheel == 0 && heapSize == 0;
    }

    /** Time of the earliest event; the queue must not be empty. */
    long peekTime() {
        advance();
        return cursor;
    }

    /** Schedules an event at {@code at}, which must not be before the time of the event last popped. */
    void push(long at, int kind, int n, int p, int a) {
        assert at >= poppedTime && at <= MAX_TIME : "time " + at + " (now " + poppedTime + ")";
        if (freeCount == 0) {
            grow();
        }
        int e = free[--freeCount];
        int b = e * STRIDE;
        slots[b] = kind;
        slots[b + 1] = n;
        slots[b + 2] = p;
        slots[b + 3] = a;
        times[e] = at;
        long seq = scheduled++;
        if (at - cursor < WHEEL) {
            append(e, at);
        } else {
            heapPush((at << ORDER_BITS) | (seq & ((1L << ORDER_BITS) - 1)), e);
        }
    }

    /** Removes the earliest event and returns its slot; read it with the getters, then {@link #release}. */
    int pop() {
        advance();
        int i = (int) (cursor & MASK);
        int e = bucketHead[i];
        bucketHead[i] = next[e];
        if (next[e] == NONE) {
            bucketTail[i] = NONE;
        }
        inWheel--;
        poppedTime = times[e];
        return e;
    }

    void release(int e) {
        free[freeCount++] = e;
    }

    /** Time of the event {@link #pop} returned last. */
    long poppedTime() {
        return poppedTime;
    }

    int type(int e) {
        return slots[e * STRIDE];
    }

    int node(int e) {
        return slots[e * STRIDE + 1];
    }

    int port(int e) {
        return slots[e * STRIDE + 2];
    }

    int arg(int e) {
        return slots[e * STRIDE + 3];
    }

    private void append(int e, long at) {
        int i = (int) (at & MASK);
        next[e] = NONE;
        if (bucketTail[i] == NONE) {
            bucketHead[i] = e;
        } else {
            next[bucketTail[i]] = e;
        }
        bucketTail[i] = e;
        inWheel++;
    }

    /** Moves the cursor to the earliest event, bringing heap events into the wheel as their time comes within it. */
    private void advance() {
        if (inWheel == 0) {
            // nothing in the wheel: jump to the heap's earliest
            cursor = Math.max(cursor, keys[0] >>> ORDER_BITS);
            admit();
        }
        while (bucketHead[(int) (cursor & MASK)] == NONE) {
            cursor++;
            admit();
        }
    }

    /** Heap events now within the wheel's reach go to their buckets, earliest (then first scheduled) first. */
    private void admit() {
        while (heapSize > 0 && (keys[0] >>> ORDER_BITS) - cursor < WHEEL) {
            int e = heap[0];
            heapPop();
            append(e, times[e]);
        }
    }

    private void heapPush(long key, int e) {
        int i = heapSize++;
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            if (keys[parent] <= key) {
                break;
            }
            keys[i] = keys[parent];
            heap[i] = heap[parent];
            i = parent;
        }
        keys[i] = key;
        heap[i] = e;
    }

    private void heapPop() {
        int n = --heapSize;
        if (n == 0) {
            return;
        }
        long key = keys[n];
        int slot = heap[n];
        int i = 0;
        while (true) {
            int c = 4 * i + 1;
            if (c >= n) {
                break;
            }
            int best = c;
            long bestKey = keys[c];
            int end = Math.min(c + 4, n);
            for (int k = c + 1; k < end; k++) {
                if (keys[k] < bestKey) {
                    best = k;
                    bestKey = keys[k];
                }
            }
            if (bestKey >= key) {
                break;
            }
            keys[i] = bestKey;
            heap[i] = heap[best];
            i = best;
        }
        keys[i] = key;
        heap[i] = slot;
    }

    private void grow() {
        int old = times.length;
        int n = old * 2;
        slots = Arrays.copyOf(slots, n * STRIDE);
        times = Arrays.copyOf(times, n);
        next = Arrays.copyOf(next, n);
        keys = Arrays.copyOf(keys, n);
        heap = Arrays.copyOf(heap, n);
        free = Arrays.copyOf(free, n);
        for (int i = old; i < n; i++) {
            free[freeCount++] = n - 1 - (i - old);
        }
    }
}
