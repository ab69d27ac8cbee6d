package org.fabriclab.agent.core;

import java.util.Arrays;

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
    /**
     * Ints before the first packet, so that every packet's 32 bytes lie in one cache line: an
     * {@code int[]}'s elements start 16 bytes into the object, and a large array (the simulator's
     * pool) starts on a heap region's boundary, so without this pad every other packet would
     * straddle two lines and cost two misses at each hop.
     */
    private static final int PAD = 4;
    private static final int DLID = 0;
    private static final int SLID = 1;
    private static final int FLOW = 2;
    private static final int SEQ = 3;
    private static final int BYTES = 4;
    /**
     * Service level (bits 0-7), lane (8-15), hops so far (16-23), the host's routing mode (24-27,
     * {@code org.fabriclab.routing.dragonfly.RoutingMode#code}) and congestion control's bits (28-31:
     * {@link #KIND_MASK}, {@link #CE}, {@link #ECT}) in one field. Every accessor masks its own bits
     * and keeps the others.
     */
    private static final int LANES = 5;
    private static final int HOPS_SHIFT = 16;
    private static final int HOPS_BITS = 0xFF << HOPS_SHIFT;
    private static final int MODE_SHIFT = 24;
    private static final int MODE_MASK = 0xF << MODE_SHIFT;
    /** Congestion control's bits of {@code LANES}: 28-31 (a live DATA frame's reserved byte, high nibble). */
    private static final int CC_SHIFT = 28;
    private static final int CC_BITS = 0xF << CC_SHIFT;
    /** A packet's kind (bits 28-29 of {@code LANES}): data, or a congestion-control packet, {@link #ACK} or {@link #CNP}. */
    public static final int DATA = 0;
    /** A receiver's acknowledgement, echoing a data packet's NIC send time (Swift's RTT). */
    public static final int ACK = 1;
    /** A congestion notification packet (DCQCN): a marked data packet reached the receiver. */
    public static final int CNP = 2;
    /** {@link #cc}'s kind bits. */
    public static final int KIND_MASK = 0x3;
    /** {@link #cc}'s ECN congestion-experienced bit: a switch marked the packet (RFC 3168's CE). */
    public static final int CE = 0x4;
    /** {@link #cc}'s ECN-capable-transport bit: the sender reacts to marks, switches may mark it (RFC 3168's ECT). */
    public static final int ECT = 0x8;
    /** A source route's directions, low and high words (0: none; {@code org.fabriclab.routing.torus.SourceRoute}). */
    private static final int ROUTE_LO = 6;
    private static final int ROUTE_HI = 7;

    /** The most packets one pool holds: its headers are one {@code int[]} of {@code PAD + capacity * STRIDE} ints. */
    public static final int MAX_CAPACITY = (Integer.MAX_VALUE - 8 - PAD) / STRIDE;
    /** The least heap a packet of a pool takes: its header ints, two {@code long}s, a free-list int and a (compressed) reference. */
    public static final int MIN_BYTES_PER_PACKET = STRIDE * Integer.BYTES + 2 * Long.BYTES + Integer.BYTES + 4;

    private int[] header;
    private long[] timestamp;
    private long[] sent;
    /** What the driver attaches to a packet (the live agent's frame buffer; nothing in the simulator). */
    public Object[] payload;
    private int[] free;
    private int freeCount;
    /** The most handles the pool grows to. */
    private final int limit;
    private long refusals;

    /** A pool of {@code capacity} handles that never grows. */
    public PacketPool(int capacity) {
        this(capacity, capacity);
    }

    /**
     * A pool of {@code capacity} handles that doubles, up to {@code limit}, when every handle is in
     * use: where buffers counted in blocks ({@link CreditBlocks}) can hold more small packets than
     * their slots, the pool is sized for the slots and grows only if small packets fill them.
     *
     * @throws IllegalArgumentException a capacity below 1, or a limit below it or above {@link #MAX_CAPACITY}
     */
    public PacketPool(int capacity, int limit) {
        if (capacity < 1 || limit < capacity || limit > MAX_CAPACITY) {
            throw new IllegalArgumentException("a packet pool of " + capacity + " packets growing to " + limit + " is outside 1.."
                    + MAX_CAPACITY);
        }
        this.limit = limit;
        header = new int[PAD + capacity * STRIDE];
        timestamp = new long[capacity];
        sent = new long[capacity];
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

    /** The handles this pool may grow to. */
    public int limit() {
        return limit;
    }

    /** How many times {@link #allocate} found every handle in use at the pool's {@link #limit} and returned {@link #NONE}. */
    public long refusals() {
        return refusals;
    }

    /** Doubles the handles (up to {@link #limit}); the new ones are free, the lowest taken first. Returns false at the limit. */
    private boolean grow() {
        int old = free.length;
        int to = (int) Math.min(limit, 2L * old);
        if (to == old) {
            return false;
        }
        header = Arrays.copyOf(header, PAD + to * STRIDE);
        timestamp = Arrays.copyOf(timestamp, to);
        sent = Arrays.copyOf(sent, to);
        payload = Arrays.copyOf(payload, to);
        free = new int[to];
        for (int i = 0; i < to - old; i++) {
            free[i] = to - 1 - i;
        }
        freeCount = to - old;
        return true;
    }

    public int inUse() {
        return free.length - freeCount;
    }

    /**
     * A free handle, or {@link #NONE}; its source route and congestion-control bits are cleared (a
     * data packet routed by tables, not ECN-capable, unless told otherwise).
     */
    public int allocate() {
        if (freeCount == 0 && !grow()) {
            refusals++;
            return NONE;
        }
        int h = free[--freeCount];
        header[at(h) + ROUTE_LO] = 0;
        header[at(h) + ROUTE_HI] = 0;
        header[at(h) + LANES] &= ~(CC_BITS | MODE_MASK); // a reused handle carries no old kind, marks or routing mode
        return h;
    }

    /** Gives a handle back; its payload reference is dropped (the caller released what it held). */
    public void release(int h) {
        assert freeCount < free.length : "release of handle " + h + " into a full pool";
        payload[h] = null;
        free[freeCount++] = h;
    }

    private static int at(int h) {
        return PAD + h * STRIDE;
    }

    public int dlid(int h) {
        return header[at(h) + DLID];
    }

    public void dlid(int h, int v) {
        header[at(h) + DLID] = v;
    }

    public int slid(int h) {
        return header[at(h) + SLID];
    }

    public void slid(int h, int v) {
        header[at(h) + SLID] = v;
    }

    public int flow(int h) {
        return header[at(h) + FLOW];
    }

    public void flow(int h, int v) {
        header[at(h) + FLOW] = v;
    }

    public int seq(int h) {
        return header[at(h) + SEQ];
    }

    public void seq(int h, int v) {
        header[at(h) + SEQ] = v;
    }

    /** Bytes of the whole frame. */
    public int bytes(int h) {
        return header[at(h) + BYTES];
    }

    public void bytes(int h, int v) {
        header[at(h) + BYTES] = v;
    }

    public int sl(int h) {
        return header[at(h) + LANES] & 0xFF;
    }

    public void sl(int h, int v) {
        int i = at(h) + LANES;
        header[i] = (header[i] & ~0xFF) | (v & 0xFF);
    }

    public int vl(int h) {
        return (header[at(h) + LANES] >>> 8) & 0xFF;
    }

    public void vl(int h, int v) {
        int i = at(h) + LANES;
        header[i] = (header[i] & ~0xFF00) | ((v & 0xFF) << 8);
    }

    /**
     * Switches the packet has left so far, modulo 256 (the live frame's one byte; a Dragonfly path
     * takes at most 7, a torus source route at most its length). Only a packet caught in a transient
     * routing loop goes further, and its count wraps without touching the mode or the congestion bits.
     */
    public int hops(int h) {
        return (header[at(h) + LANES] & HOPS_BITS) >>> HOPS_SHIFT;
    }

    public void hops(int h, int v) {
        int i = at(h) + LANES;
        header[i] = (header[i] & ~HOPS_BITS) | ((v & 0xFF) << HOPS_SHIFT);
    }

    /** The routing mode the sending host asked for ({@code RoutingMode} code, 0: none). */
    public int mode(int h) {
        return (header[at(h) + LANES] & MODE_MASK) >>> MODE_SHIFT;
    }

    public void mode(int h, int code) {
        int i = at(h) + LANES;
        header[i] = (header[i] & ~MODE_MASK) | ((code & 0xF) << MODE_SHIFT);
    }

    /** Congestion control's four bits: the kind ({@link #KIND_MASK}: {@link #DATA}, {@link #ACK}, {@link #CNP}), {@link #CE}, {@link #ECT}. */
    public int cc(int h) {
        return (header[at(h) + LANES] & CC_BITS) >>> CC_SHIFT;
    }

    /** Sets the four congestion-control bits ({@code v} 0 to 15), keeping every other bit of the field. */
    public void cc(int h, int v) {
        int i = at(h) + LANES;
        header[i] = (header[i] & ~CC_BITS) | ((v & 0xF) << CC_SHIFT);
    }

    /** The packet's kind: {@link #DATA}, {@link #ACK} or {@link #CNP}. */
    public int kind(int h) {
        return cc(h) & KIND_MASK;
    }

    /** The packet's source route ({@code SourceRoute} encoding), or 0 if the switches route it by their tables. */
    public long route(int h) {
        return ((long) header[at(h) + ROUTE_HI] << 32) | (header[at(h) + ROUTE_LO] & 0xFFFFFFFFL);
    }

    public void route(int h, long route) {
        header[at(h) + ROUTE_LO] = (int) route;
        header[at(h) + ROUTE_HI] = (int) (route >>> 32);
    }

    /** When the packet was sent (the driver's clock, ns). */
    public long timestamp(int h) {
        return timestamp[h];
    }

    public void timestamp(int h, long v) {
        timestamp[h] = v;
    }

    /**
     * When the sender's NIC put the packet on the wire (the driver's clock, ns; {@link HostCore}
     * writes it). Apart from {@link #timestamp} (the creation time latencies are counted from): the
     * in-network latency and congestion control's RTT are counted from this one.
     */
    public long sent(int h) {
        return sent[h];
    }

    public void sent(int h, long v) {
        sent[h] = v;
    }
}
