package org.fabriclab.agent.link;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/** A decoded link-level hello. */
public record Hello(long guid, int port, int peerPort, int vls, int bufferPackets, int rateMbps, int latencyNs, String endpoint) {
    /** Decodes a HELLO frame (the buffer's reader index at the frame's length field). */
    public static Hello decode(ByteBuf f) {
        int i = f.readerIndex();
        int len = f.getUnsignedShort(i + 26);
        return new Hello(f.getLong(i + 5), f.getUnsignedByte(i + 13), f.getUnsignedByte(i + 14), f.getUnsignedByte(i + 15),
                f.getUnsignedShort(i + 16), f.getInt(i + 18), f.getInt(i + 22), f.toString(i + 28, len, StandardCharsets.UTF_8));
    }
}
