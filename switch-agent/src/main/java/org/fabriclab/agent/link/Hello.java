package org.fabriclab.agent.link;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * A decoded link-level hello.
 *
 * @param slotBlocks the 64-byte blocks of one of the sender's buffer slots ({@code CreditBlocks#slotBlocks}):
 *     its credits come back in blocks, so both ends of a link must count a slot alike
 */
public record Hello(long guid, int port, int peerPort, int vls, int bufferPackets, int rateMbps, int latencyNs, int slotBlocks,
                    String endpoint) {
    /** Decodes a HELLO frame (the buffer's reader index at the frame's length field). */
    public static Hello decode(ByteBuf f) {
        int i = f.readerIndex();
        int len = f.getUnsignedShort(i + 27);
        return new Hello(f.getLong(i + 5), f.getUnsignedByte(i + 13), f.getUnsignedByte(i + 14), f.getUnsignedByte(i + 15),
                f.getUnsignedShort(i + 16), f.getInt(i + 18), f.getInt(i + 22), f.getUnsignedByte(i + 26),
                f.toString(i + 29, len, StandardCharsets.UTF_8));
    }
}
