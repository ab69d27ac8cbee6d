package org.fabriclab.agent.core;

/**
 * The unit of lossless credits: 64-byte blocks, as InfiniBand's link-level flow control counts
 * its credits (InfiniBand Architecture Specification vol. 1, section 7.9, link-level flow control:
 * a credit is one 64-byte block of the receiver's buffer, and a packet takes as many as it has
 * started). A buffer of {@code N} packets
 * holds {@code N} of the run's largest packet, {@code N x slotBlocks} blocks; a packet takes
 * {@code ceil(bytes / 64)} of them (at least one, at most a slot: a packet larger than the
 * declared largest is counted as one slot), so a header-only ACK or CNP takes one block of a
 * buffer, not a whole packet's slot, and a run whose packets are all the largest size counts
 * exactly as a packet-counted buffer did.
 *
 * <p>{@link #PACKETS} declares 64-byte packets: every packet takes one block, one credit, as
 * packet-counted credits do (the cores' constructors without a unit, their benchmarks and tests).
 *
 * @param slotBlocks blocks of the largest packet: one buffer slot, what {@code --buffer} counts
 * @param leastBlocks blocks of the smallest packet (at most {@code slotBlocks}): how many packets the
 *     blocks of a buffer can hold at most, which bounds its queue
 */
public record CreditBlocks(int slotBlocks, int leastBlocks) {
    /** Bytes of a credit block (IBA 7.9.4). */
    public static final int BLOCK_BYTES = 64;
    /** Packet-counted: every packet one credit. */
    public static final CreditBlocks PACKETS = new CreditBlocks(1, 1);

    public CreditBlocks {
        if (slotBlocks < 1 || leastBlocks < 1 || leastBlocks > slotBlocks || slotBlocks > blocks(FrameSizes.MAX_FRAME)) {
            throw new IllegalArgumentException("credit blocks: a slot of 1 to " + blocks(FrameSizes.MAX_FRAME) + " blocks (" + slotBlocks
                    + ") and a smallest packet of 1 block to a slot (" + leastBlocks + ")");
        }
    }

    /**
     * The unit of a run whose largest packet is {@code largestBytes} and smallest {@code
     * smallestBytes} (on the wire, as the model counts them). Where both take the same blocks every
     * packet takes a slot, and a credit of a slot's blocks is the same count as one of a slot:
     * {@link #PACKETS}, whose slot is one block (no division where an occupancy is read in slots).
     */
    public static CreditBlocks of(int largestBytes, int smallestBytes) {
        int slot = blocks(largestBytes);
        int least = Math.min(slot, blocks(smallestBytes));
        return least == slot ? PACKETS : new CreditBlocks(slot, least);
    }

    /** Blocks of {@code bytes} (at least one). */
    public static int blocks(int bytes) {
        return bytes <= BLOCK_BYTES ? 1 : (bytes + BLOCK_BYTES - 1) / BLOCK_BYTES;
    }

    /** Blocks a packet of {@code bytes} takes of a buffer: {@link #blocks}, at most one slot. */
    public int cost(int bytes) {
        int b = bytes <= BLOCK_BYTES ? 1 : (bytes + BLOCK_BYTES - 1) >>> 6;
        return b < slotBlocks ? b : slotBlocks;
    }

    /** Blocks of a buffer of {@code packets} slots. */
    public int capacity(int packets) {
        return packets * slotBlocks;
    }

    /**
     * Blocks packet {@code h} of {@code pool} takes: {@link #cost(int)} of its bytes; where every
     * packet of the run is one size (the smallest declared the largest), a slot, without reading
     * its size (the hot path of a run without congestion control stays as it was).
     */
    public int cost(PacketPool pool, int h) {
        return leastBlocks == slotBlocks ? slotBlocks : cost(pool.bytes(h));
    }

    /** Packets a buffer of {@code packets} slots can hold at most (each the smallest). */
    public int mostPackets(int packets) {
        return Math.toIntExact((long) packets * slotBlocks / leastBlocks);
    }

    /** {@code blocks} in whole slots, rounded up: an occupancy in units of the largest packet. */
    public int slots(int blocks) {
        return slotBlocks == 1 ? blocks : (blocks + slotBlocks - 1) / slotBlocks;
    }
}
