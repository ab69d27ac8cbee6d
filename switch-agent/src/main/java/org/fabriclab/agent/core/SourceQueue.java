package org.fabriclab.agent.core;

/**
 * A host's source queue: packets its traffic source has created (their creation times and flows)
 * and its NIC has not yet taken, up to a fixed number; a packet created while it is full is
 * refused (counted), as an application would be told to back off. Besides, at most one packet
 * already made ({@link #hold}): the driver checks for room on lane 0 before it knows a packet's
 * lane, and one whose lane's send queue is full waits here to go first, instead of being lost.
 * Primitive arrays, nothing allocated per packet; confined to the thread driving the host.
 */
public final class SourceQueue {
    /** Packets a host's source may hold before its NIC takes them, unless told otherwise (both drivers). */
    public static final int PACKETS = 1024;
    /** The most a source queue may be told to hold. */
    public static final int MAX_PACKETS = 1 << 20;
    private final int capacity;
    private final long[] created;
    private final int[] flow;
    private int head;
    private int count;
    private long refused;
    private int held = PacketPool.NONE;

    /** A queue of {@link #PACKETS}. */
    public SourceQueue() {
        this(PACKETS);
    }

    /**
     * A queue of {@code capacity} packets: a large one models an application that queues what the
     * fabric does not take yet; a small one (a NIC's injection buffer) one that is held back.
     */
    public SourceQueue(int capacity) {
        if (capacity < 1 || capacity > MAX_PACKETS) {
            throw new IllegalArgumentException("a source queue holds 1.." + MAX_PACKETS + " packets, not " + capacity);
        }
        this.capacity = capacity;
        created = new long[capacity];
        flow = new int[capacity];
    }

    /**
     * A packet created at {@code t}, of {@code flowId} (the driver's: -1 when the pattern picks the
     * destination).
     *
     * @return false (and counted as refused) if the queue was full
     */
    public boolean add(long t, int flowId) {
        if (count == capacity) {
            refused++;
            return false;
        }
        int slot = head + count < capacity ? head + count : head + count - capacity;
        created[slot] = t;
        flow[slot] = flowId;
        count++;
        return true;
    }

    /**
     * Queues a message of {@code k} packets of {@code flowId} made at {@code t}: all of them, or
     * none when fewer than {@code k} fit (all {@code k} counted refused). Returns whether it was queued.
     */
    public boolean addMessage(long t, int flowId, int k) {
        if (capacity - count < k) {
            refused += k;
            return false;
        }
        for (int i = 0; i < k; i++) {
            add(t, flowId);
        }
        return true;
    }

    /** Counts {@code n} packets refused without queueing them (a source that fell far behind). */
    public void refuse(long n) {
        refused += n;
    }

    public boolean isEmpty() {
        return count == 0;
    }

    /** True if nothing waits: no packet queued, none held. */
    public boolean isIdle() {
        return count == 0 && held == PacketPool.NONE;
    }

    /** Keeps packet {@code h}, refused by its lane's full send queue, to be offered first; none may be held already. */
    public void hold(int h) {
        assert held == PacketPool.NONE;
        held = h;
    }

    /** The held packet, or {@link PacketPool#NONE}. */
    public int held() {
        return held;
    }

    /** The held packet went to the NIC. */
    public void unhold() {
        held = PacketPool.NONE;
    }

    public boolean isFull() {
        return count == capacity;
    }

    /** Packets it can take now: a message is queued whole or refused whole. */
    public int room() {
        return capacity - count;
    }

    /** Packets it holds at most. */
    public int capacity() {
        return capacity;
    }

    /** Creation time of the oldest packet; the queue must not be empty. */
    public long headCreated() {
        return created[head];
    }

    /** Flow of the oldest packet; the queue must not be empty. */
    public int headFlow() {
        return flow[head];
    }

    /** Takes the oldest packet off the queue. */
    public void remove() {
        assert count > 0;
        head = head + 1 == capacity ? 0 : head + 1;
        count--;
    }

    /** Packets refused so far. */
    public long refused() {
        return refused;
    }
}
