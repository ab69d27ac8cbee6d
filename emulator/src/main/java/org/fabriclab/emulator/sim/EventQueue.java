package org.fabriclab.emulator.sim;

import java.util.Arrays;

/**
 * The simulator's pending events, earliest first, ties in the order they were scheduled (so a run
 * is deterministic). An event is a slot in primitive arrays (time, type, node, port, argument)
 * and the queue a 4-ary heap of slot numbers: nothing is allocated per event once the arrays have
 * grown to the largest number of events pending at once.
 */
final class EventQueue {
    private long[] time;
    private long[] order;
    private byte[] type;
    private int[] node;
    private int[] port;
    private int[] arg;
    private int[] heap;
    private int size;
    private int[] free;
    private int freeCount;
    private long scheduled;

    EventQueue(int capacity) {
        capacity = Math.max(16, capacity);
        time = new long[capacity];
        order = new long[capacity];
        type = new byte[capacity];
        node = new int[capacity];
        port = new int[capacity];
        arg = new int[capacity];
        heap = new int[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = capacity - 1 - i;
        }
        freeCount = capacity;
    }

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    /** Events scheduled since the start. */
    long scheduled() {
        return scheduled;
    }

    /** Time of the earliest event; the queue must not be empty. */
    long peekTime() {
        return time[heap[0]];
    }

    void push(long at, int kind, int n, int p, int a) {
        if (freeCount == 0) {
            grow();
        }
        int e = free[--freeCount];
        time[e] = at;
        order[e] = scheduled++;
        type[e] = (byte) kind;
        node[e] = n;
        port[e] = p;
        arg[e] = a;
        int i = size++;
        // sift up
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            int pe = heap[parent];
            if (!before(e, pe)) {
                break;
            }
            heap[i] = pe;
            i = parent;
        }
        heap[i] = e;
    }

    /** Removes the earliest event and returns its slot; read it with the getters, then {@link #release}. */
    int pop() {
        int top = heap[0];
        int last = heap[--size];
        if (size > 0) {
            // sift down
            int i = 0;
            while (true) {
                int c = 4 * i + 1;
                if (c >= size) {
                    break;
                }
                int best = c;
                int end = Math.min(c + 4, size);
                for (int k = c + 1; k < end; k++) {
                    if (before(heap[k], heap[best])) {
                        best = k;
                    }
                }
                if (!before(heap[best], last)) {
                    break;
                }
                heap[i] = heap[best];
                i = best;
            }
            heap[i] = last;
        }
        return top;
    }

    void release(int e) {
        free[freeCount++] = e;
    }

    long time(int e) {
        return time[e];
    }

    int type(int e) {
        return type[e];
    }

    int node(int e) {
        return node[e];
    }

    int port(int e) {
        return port[e];
    }

    int arg(int e) {
        return arg[e];
    }

    private boolean before(int a, int b) {
        return time[a] < time[b] || (time[a] == time[b] && order[a] < order[b]);
    }

    private void grow() {
        int old = time.length;
        int n = old * 2;
        time = Arrays.copyOf(time, n);
        order = Arrays.copyOf(order, n);
        type = Arrays.copyOf(type, n);
        node = Arrays.copyOf(node, n);
        port = Arrays.copyOf(port, n);
        arg = Arrays.copyOf(arg, n);
        heap = Arrays.copyOf(heap, n);
        free = Arrays.copyOf(free, n);
        for (int i = old; i < n; i++) {
            free[freeCount++] = n - 1 - (i - old);
        }
    }
}
