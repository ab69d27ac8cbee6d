package org.fabriclab.agent.core;

/**
 * Packets as {@code int} handles into primitive arrays, so that the hot path allocates nothing per
 * packet: a handle is taken from a free list when a packet enters a node and given back when it
 * leaves (in the simulator one pool serves every node and a handle travels with its packet). The
 * header fields live in one {@code int[]}, a packet's side by side; {@link #payload} holds what the
 * driver attaches (the live agent's frame buffer; nothing in the simulator).
 *
 * <p>Not thread-safe: a pool belongs to one node and is confined to the thread driving it.
 */
public final class PacketPool {
    /** Returned by {@link #allocate()} when every slot is in use. */
    public static final int NONE = -1;
    // a packet's header fields side by side (two packets per cache line): touching a packet at a
    // hop costs one cache miss, not one per field
    private static final int STRIDE = 8;
    private static final int DLID = 0;
    private static final int SLID = 1;
    private static final int FLOW = 2;
    private static final int SEQ = 3;
    private static final int BYTES = 4;
    private static final int SL = 5;
    private static final int VL = 6;
    private static final int HOPS = 7;

    private final int[] header;
    private final long[] timestamp;
    /** What the driver attaches to a packet (the live agent's frame buffer; nothing in the simulator). */
    public final Object[] payload;
    private final int[] free;
    private int freeCount;

    public PacketPool(int capacity) {
        header = new int[capacity * STRIDE];
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

    public int dlid(int h) {
        return header[h * STRIDE + DLID];
    }

    public void dlid(int h, int v) {
        header[h * STRIDE + DLID] = v;
    }

    public int slid(int h) {
        return header[h * STRIDE + SLID];
    }

    public void slid(int h, int v) {
        header[h * STRIDE + SLID] = v;
    }

    public int flow(int h) {
        return header[h * STRIDE + FLOW];
    }

    public void flow(int h, int v) {
        header[h * STRIDE + FLOW] = v;
    }

    public int seq(int h) {
        return header[h * STRIDE + SEQ];
    }

    public void seq(int h, int v) {
        header[h * STRIDE + SEQ] = v;
    }

    /** Bytes of the whole frame. */
    public int bytes(int h) {
        return header[h * STRIDE + BYTES];
    }

    public void bytes(int h, int v) {
        header[h * STRIDE + BYTES] = v;
    }

    public int sl(int h) {
        return header[h * STRIDE + SL];
    }

    public void sl(int h, int v) {
        header[h * STRIDE + SL] = v;
    }

    public int vl(int h) {
        return header[h * STRIDE + VL];
    }

    public void vl(int h, int v) {
        header[h * STRIDE + VL] = v;
    }

    /** Switches the packet has left so far. */
    public int hops(int h) {
        return header[h * STRIDE + HOPS];
    }

    public void hops(int h, int v) {
        header[h * STRIDE + HOPS] = v;
    }

    /** When the packet was sent (the driver's clock, ns). */
    public long timestamp(int h) {
        return timestamp[h];
    }

    public void timestamp(int h, long v) {
        timestamp[h] = v;
    }
}
