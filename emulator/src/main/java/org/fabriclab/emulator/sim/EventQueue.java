package org.fabriclab.emulator.sim;

import java.util.Arrays;

/**
 * The simulator's pending events, earliest first, ties in the order they were scheduled (so a run
 * is deterministic). An event is one {@code long}: its type, node, port and argument packed
 * together ({@link #event}), read back with {@link #type}, {@link #node}, {@link #port} and
 * {@link #arg}.
 *
 * <p>A calendar queue: most delays are short (a frame's time on the wire, a link's delay, the gap
 * between a host's packets), so events within {@link #WHEEL} ns of the current time go into one
 * bucket per nanosecond, an array filled at its end and emptied from its start, O(1) to add and to
 * take; later ones wait in a 4-ary heap of keys (time and scheduling counter packed in one
 * {@code long}) and move into their bucket the moment the current time comes within {@link #WHEEL}
 * ns of theirs, before anything else can be scheduled for that nanosecond, so every bucket stays in
 * scheduling order. The counter has {@link #ORDER_BITS} bits and counts heap events only; when it
 * runs out, the pending heap events are renumbered 0.. in their order (once per 2^24 events sent to
 * the heap), so ties stay first-scheduled-first however many events a run schedules. A bucket is read front to back, so taking events streams through memory
 * instead of chasing one cache line per event; the events of the current nanosecond are the bucket
 * being read, so an event's time is the cursor's and is not stored. Nothing is allocated per
 * event once the arrays have grown to the most events pending at once. Times must stay below
 * {@link #MAX_TIME} ns (about 9 minutes).
 */
final class EventQueue {
    /** Bits of the scheduling counter in a heap key. */
    static final int ORDER_BITS = 24;
    /** Heap events numbered before the pending ones are renumbered. */
    static final int ORDER_LIMIT = 1 << ORDER_BITS;
    /** The latest time an event may have. */
    static final long MAX_TIME = (1L << (63 - ORDER_BITS)) - 1;
    /** Nanoseconds covered by the buckets (a power of two). */
    static final int WHEEL = 4096;
    /** Nodes an event can name: node numbers are 20 bits of the packed event. */
    static final int MAX_NODES = 1 << 20;
    /** Ports an event can name (port numbers are 8 bits, as an LFT's). */
    static final int MAX_PORTS = 1 << 8;
    private static final int MASK = WHEEL - 1;
    /** A bucket's first size: a busy fabric puts hundreds of events in each nanosecond, and growing from small costs copies. */
    private static final int FIRST_BUCKET = 64;

    /** Per nanosecond of the wheel: its events in scheduling order, the next to take, and how many were put. */
    private final long[][] bucket = new long[WHEEL][];
    private final int[] bucketNext = new int[WHEEL];
    private final int[] bucketSize = new int[WHEEL];
    /** Events in buckets, in [cursor, cursor + WHEEL). */
    private int inWheel;
    private long cursor;
    // the heap of later events: keys and events side by side
    private long[] keys;
    private long[] heap;
    private int heapSize;
    /** The order number of the next heap event (below {@link #ORDER_LIMIT}). */
    private int heapOrder;
    private long poppedTime;
    /** The bucket the last wheel event went into, -1 when the last event went to the heap. */
    private int lastBucket = -1;

    EventQueue(int heapCapacity) {
        keys = new long[Math.max(16, heapCapacity)];
        heap = new long[keys.length];
    }

    /** An event: {@code kind} (0 to 15), {@code node} (below {@link #MAX_NODES}), {@code port} (below {@link #MAX_PORTS}), any {@code arg}. */
    static long event(int kind, int node, int port, int arg) {
        assert kind >= 0 && kind < 16 && node >= 0 && node < MAX_NODES && port >= 0 && port < MAX_PORTS;
        return ((long) kind << 60) | ((long) port << 52) | ((long) node << 32) | (arg & 0xFFFFFFFFL);
    }

    /** Event {@code to} (made with type and argument 0) with type {@code kind} and argument {@code arg}. */
    static long with(long to, int kind, int arg) {
        assert type(to) == 0 && arg(to) == 0 && kind >= 0 && kind < 16;
        return to | ((long) kind << 60) | (arg & 0xFFFFFFFFL);
    }

    static int type(long ev) {
        return (int) (ev >>> 60);
    }

    static int node(long ev) {
        return (int) (ev >>> 32) & (MAX_NODES - 1);
    }

    static int port(long ev) {
        return (int) (ev >>> 52) & (MAX_PORTS - 1);
    }

    static int arg(long ev) {
        return (int) ev;
    }

    boolean isEmpty() {
        return inWheel == 0 && heapSize == 0;
    }

    /** Time of the earliest event; the queue must not be empty. */
    long peekTime() {
        advance();
        return cursor;
    }

    /**
     * Schedules {@code ev} ({@link #event}) at {@code at}, which must not be before the time
     * {@link #peekTime} or {@link #pop} last reached (an earlier one would land a lap of the wheel
     * late).
     */
    void push(long at, long ev) {
        assert at >= cursor && at <= MAX_TIME : "time " + at + " (now " + cursor + ")";
        if (at - cursor < WHEEL) {
            append((int) (at & MASK), ev);
        } else {
            if (heapOrder == ORDER_LIMIT) {
                renumber();
            }
            heapPush((at << ORDER_BITS) | heapOrder++, ev);
            lastBucket = -1;
        }
    }

    /**
     * Numbers the pending heap events 0.. in the order they come out (time, then order number), so
     * the counter can start again above them: taken out earliest first, they form a sorted array,
     * which is a heap as it stands.
     */
    private void renumber() {
        int n = heapSize;
        if (n >= ORDER_LIMIT) {
            throw new IllegalStateException(n + " events pending beyond the wheel; the queue orders at most " + (ORDER_LIMIT - 1));
        }
        long[] sortedKeys = new long[keys.length];
        long[] sortedEvents = new long[heap.length];
        for (int i = 0; i < n; i++) {
            sortedKeys[i] = (keys[0] >>> ORDER_BITS << ORDER_BITS) | i;
            sortedEvents[i] = heap[0];
            heapPop();
        }
        keys = sortedKeys;
        heap = sortedEvents;
        heapSize = n;
        heapOrder = n;
    }

    /**
     * Whether an event is due before {@code end}; if so {@link #pop} takes the earliest. Unlike
     * {@link #peekTime}, moves the current time no further than {@code end}, so that events can
     * still be scheduled from there on (the windowed loop takes a window's events out, then
     * schedules what they cause at the window's end or later).
     */
    boolean hasBefore(long end) {
        if (inWheel == 0) {
            if (heapSize == 0 || (keys[0] >>> ORDER_BITS) >= end) {
                return false;
            }
            cursor = Math.max(cursor, keys[0] >>> ORDER_BITS);
            admit();
        }
        while (bucketSize[(int) (cursor & MASK)] == 0) {
            if (cursor + 1 >= end) {
                return false;
            }
            cursor++;
            admit();
        }
        return cursor < end;
    }

    /** Removes the earliest event and returns it; its time is {@link #poppedTime}. */
    long pop() {
        advance();
        int i = (int) (cursor & MASK);
        long ev = bucket[i][bucketNext[i]++];
        if (bucketNext[i] == bucketSize[i]) {
            bucketNext[i] = 0;
            bucketSize[i] = 0;
        }
        inWheel--;
        poppedTime = cursor;
        return ev;
    }

    /** Time of the event {@link #pop} returned last. */
    long poppedTime() {
        return poppedTime;
    }

    private void append(int i, long ev) {
        long[] b = bucket[i];
        int n = bucketSize[i];
        if (b == null || n == b.length) {
            b = bucket[i] = b == null ? new long[FIRST_BUCKET] : Arrays.copyOf(b, n * 2);
        }
        b[n] = ev;
        bucketSize[i] = n + 1;
        inWheel++;
        lastBucket = i;
    }

    /**
     * Replaces the event scheduled last with {@code replacement}, if that was {@code expected} and
     * went into the wheel (it is still pending and nothing was scheduled after it): two messages
     * sent at once on one link (a credit and what rides with it) become one event. False, and
     * nothing changed, otherwise.
     */
    boolean amendLast(long expected, long replacement) {
        if (lastBucket < 0) {
            return false;
        }
        int n = bucketSize[lastBucket];
        if (n == 0 || bucket[lastBucket][n - 1] != expected) {
            return false;
        }
        bucket[lastBucket][n - 1] = replacement;
        return true;
    }

    /** Moves the cursor to the earliest event, bringing heap events into the wheel as their time comes within it. */
    private void advance() {
        if (inWheel == 0) {
            // nothing in the wheel: jump to the heap's earliest
            cursor = Math.max(cursor, keys[0] >>> ORDER_BITS);
            admit();
        }
        while (bucketSize[(int) (cursor & MASK)] == 0) {
            cursor++;
            admit();
        }
    }

    /** Heap events now within the wheel's reach go to their buckets, earliest (then first scheduled) first. */
    private void admit() {
        while (heapSize > 0 && (keys[0] >>> ORDER_BITS) - cursor < WHEEL) {
            long at = keys[0] >>> ORDER_BITS;
            long ev = heap[0];
            heapPop();
            append((int) (at & MASK), ev);
        }
    }

    private void heapPush(long key, long ev) {
        if (heapSize == keys.length) {
            keys = Arrays.copyOf(keys, heapSize * 2);
            heap = Arrays.copyOf(heap, heapSize * 2);
        }
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
        heap[i] = ev;
    }

    private void heapPop() {
        int n = --heapSize;
        if (n == 0) {
            return;
        }
        long key = keys[n];
        long ev = heap[n];
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
        heap[i] = ev;
    }
}
