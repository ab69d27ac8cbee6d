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
    /** Packets a host's source may hold before its NIC takes them (both drivers). */
    public static final int PACKETS = 1024;
    private static final int MASK = PACKETS - 1;
    private final long[] created = new long[PACKETS];
    private final int[] flow = new int[PACKETS];
    private int head;
    private int count;
    private long refused;
    private int held = PacketPool.NONE;

    /**
     * A packet created at {@code t}, of {@code flowId} (the driver's: -1 when the pattern picks the
     * destination).
     *
     * @return false (and counted as refused) if the queue was full
     */
    public boolean add(long t, int flowId) {
        if (count == PACKETS) {
            refused++;
            return false;
        }
        int slot = (head + count) & MASK;
        created[slot] = t;
        flow[slot] = flowId;
        count++;
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
        return count == PACKETS;
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
        head = (head + 1) & MASK;
        count--;
    }

    /** Packets refused so far. */
    public long refused() {
        return refused;
    }
}
