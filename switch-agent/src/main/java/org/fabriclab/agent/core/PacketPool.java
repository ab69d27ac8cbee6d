package org.fabriclab.agent.core;

/**
 * Packets as {@code int} handles into primitive arrays, so that the hot path allocates nothing per
 * packet: a handle is taken from a free list when a packet enters a node and given back when it
 * leaves. The header fields live in the arrays; {@link #payload} holds what the driver attaches
 * (the live agent's frame buffer; nothing in the simulator).
 *
 * <p>Not thread-safe: a pool belongs to one node and is confined to the thread driving it.
 */
public final class PacketPool {
    /** Returned by {@link #allocate()} when every slot is in use. */
    public static final int NONE = -1;

    public final int[] dlid;
    public final int[] slid;
    public final int[] flow;
    public final int[] seq;
    public final int[] bytes;
    public final byte[] sl;
    public final byte[] vl;
    public final byte[] hops;
    public final long[] timestamp;
    public final Object[] payload;
    private final int[] free;
    private int freeCount;

    public PacketPool(int capacity) {
        dlid = new int[capacity];
        slid = new int[capacity];
        flow = new int[capacity];
        seq = new int[capacity];
        bytes = new int[capacity];
        sl = new byte[capacity];
        vl = new byte[capacity];
        hops = new byte[capacity];
        timestamp = new long[capacity];
        payload = new Object[capacity];
        free = new int[capacity];
        for (int i = 0; i < capacity; i++) {
            free[i] = capacity - 1 - i;
        }
        freeCount = capacity;
    }

    public int capacity() {
        return free.length;
    }

    public int inUse() {
        return free.length - freeCount;
    }

    /** A free handle, or {@link #NONE}. */
    public int allocate() {
        return freeCount == 0 ? NONE : free[--freeCount];
    }

    /** Gives a handle back; its payload reference is dropped (the caller released what it held). */
    public void release(int h) {
        assert freeCount < free.length : "release of handle " + h + " into a full pool";
        payload[h] = null;
        free[freeCount++] = h;
    }
}
