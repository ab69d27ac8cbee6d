package org.fabriclab.agent.link;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import org.fabriclab.agent.core.FrameSizes;

/**
 * The data-link frames between two nodes' ports. Every frame starts with its length (the bytes
 * after the length field) and a type; integers are big-endian.
 *
 * <pre>
 *  0       4    5
 *  +-------+----+----------------------------------------------------------------+
 *  |  len  |type| body                                                           |
 *  +-------+----+----------------------------------------------------------------+
 *
 *  DATA (1)   5: vl(1) sl(1) hops(1) flags(1) dlid(2) slid(2) flow(4) seq(4) timestamp(8) route(8) payload...
 *                flags: bits 0-3 the routing mode the host asked for (RoutingMode code, 0: none),
 *                       bits 4-7 congestion control's (PacketPool.cc: kind, CE, ECT)
 *  CREDIT (2) 5: vl(1) count(2) [n(1) n x (row(4) value(4))]
 *                                                     credits for 64-byte buffer blocks freed on that lane
 *                                                     (CreditBlocks; at most 65535 a frame), then (when
 *                                                     the frame is longer) Q-adaptive feedback for the receiver:
 *                                                     per message a Q-table row and a value (ns, IEEE float)
 *  HELLO (3)  5: guid(8) port(1) peerPort(1) vls(1) bufferPackets(2) rateMbps(4) latencyNs(4) slotBlocks(1) endpointLen(2) endpoint
 *                                                     slotBlocks: the 64-byte blocks of one buffer slot (CreditBlocks), so
 *                                                     the buffer is bufferPackets x slotBlocks blocks; both ends must agree
 * </pre>
 *
 * A DATA frame travels through the fabric unchanged but for its {@code vl}, {@code hops} and
 * {@code flags} bytes (and its route), which each node rewrites in place: forwarding copies nothing.
 * {@code flags}' high nibble is congestion control's ({@code PacketPool.cc}: the kind, data, ACK
 * or CNP, in bits 4-5, ECN's CE in bit 6 and ECT in bit 7); its low nibble is left to the routing
 * mode. A control packet (ACK, CNP) is a DATA frame without payload whose timestamp echoes the
 * acknowledged packet's NIC send time (a coalesced ACK's: the newest one's, plus the time the
 * receiver held the ACK) and whose {@code seq} is the number of data packets it acknowledges
 * ({@code CongestionControl.Acks}; 1 for a CNP). {@code route} is a source route
 * (as Angara's header flit carries one; {@code org.fabriclab.routing.torus.SourceRoute}), 0 for a
 * packet the switches route by their tables. {@code HELLO} is the link-level
 * hello: each side says who it is, which of its ports this is, which of the peer's ports it believes
 * it is cabled to, its lanes, its input buffer size (the peer's initial credits), its link rate, the
 * propagation delay it was configured with, and its management endpoint. A link runs at the lower
 * of the two rates and the longer of the two delays.
 */
public final class Frames {
    public static final int LENGTH_FIELD = 4;
    public static final int TYPE = 4;
    public static final byte DATA = 1;
    public static final byte CREDIT = 2;
    public static final byte HELLO = 3;

    public static final int VL = 5;
    public static final int SL = 6;
    public static final int HOPS = 7;
    /** A DATA frame's flags byte: the routing mode in its low nibble ({@link #MODE_MASK}), congestion control's bits in its high ({@link #CC_BITS}). */
    public static final int FLAGS = 8;
    /** The routing mode's bits of {@link #FLAGS} ({@code org.fabriclab.routing.dragonfly.RoutingMode#code}). */
    public static final int MODE_MASK = 0x0F;
    /** The shift of congestion control's four bits in {@link #FLAGS}. */
    public static final int CC_SHIFT = 4;
    /** Congestion control's bits in {@link #FLAGS}. */
    public static final int CC_BITS = 0xF << CC_SHIFT;
    public static final int DLID = 9;
    public static final int SLID = 11;
    public static final int FLOW = 13;
    public static final int SEQ = 17;
    public static final int TIMESTAMP = 21;
    public static final int ROUTE = 29;
    /** Bytes of a DATA frame before its payload ({@link FrameSizes#DATA_HEADER}: {@code ROUTE} + 8). */
    public static final int DATA_HEADER = FrameSizes.DATA_HEADER;
    /** Largest payload ({@link FrameSizes#MAX_PAYLOAD}). */
    public static final int MAX_PAYLOAD = FrameSizes.MAX_PAYLOAD;
    /** Largest frame the decoder accepts ({@link FrameSizes#MAX_FRAME}). */
    public static final int MAX_FRAME = FrameSizes.MAX_FRAME;

    private Frames() {
    }

    /** A DATA frame with {@code payloadBytes} of zero payload, routed by the switches' tables. */
    public static ByteBuf data(ByteBufAllocator alloc, int vl, int sl, int dlid, int slid, int flow, int seq,
                               long timestamp, int payloadBytes) {
        return data(alloc, vl, sl, dlid, slid, flow, seq, timestamp, 0, payloadBytes);
    }

    /** A DATA frame with {@code payloadBytes} of zero payload and a source route (0: none), no routing mode. */
    public static ByteBuf data(ByteBufAllocator alloc, int vl, int sl, int dlid, int slid, int flow, int seq,
                               long timestamp, long route, int payloadBytes) {
        return data(alloc, vl, sl, 0, dlid, slid, flow, seq, timestamp, route, payloadBytes);
    }

    /** A DATA frame with {@code payloadBytes} of zero payload, a source route (0: none) and routing mode {@code mode} (0: none). */
    public static ByteBuf data(ByteBufAllocator alloc, int vl, int sl, int mode, int dlid, int slid, int flow, int seq,
                               long timestamp, long route, int payloadBytes) {
        if ((mode & ~MODE_MASK) != 0) {
            throw new IllegalArgumentException("routing mode code " + mode + " outside 0.." + MODE_MASK);
        }
        ByteBuf b = alloc.buffer(DATA_HEADER + payloadBytes);
        b.writeInt(DATA_HEADER + payloadBytes - LENGTH_FIELD).writeByte(DATA).writeByte(vl).writeByte(sl).writeByte(0)
                .writeByte(mode).writeShort(dlid).writeShort(slid).writeInt(flow).writeInt(seq).writeLong(timestamp).writeLong(route);
        b.writeZero(payloadBytes);
        return b;
    }

    /** Congestion control's four bits ({@code PacketPool.cc}) of DATA frame {@code f}, at its reader index. */
    public static int ccBits(ByteBuf f) {
        return (f.getByte(f.readerIndex() + FLAGS) >>> CC_SHIFT) & 0xF;
    }

    /** Writes congestion control's four bits into DATA frame {@code f}'s flags, keeping their low nibble (the routing mode's). */
    public static void ccBits(ByteBuf f, int bits) {
        int i = f.readerIndex() + FLAGS;
        f.setByte(i, f.getByte(i) & ~CC_BITS | (bits & 0xF) << CC_SHIFT);
    }

    /** Credits (64-byte blocks) one CREDIT frame returns at most: its count field's 16 bits. */
    public static final int MAX_CREDIT_COUNT = 0xFFFF;

    /** A CREDIT frame returning {@code count} blocks (0 to {@link #MAX_CREDIT_COUNT}) of lane {@code vl}. */
    public static ByteBuf credit(ByteBufAllocator alloc, int vl, int count) {
        checkCount(count);
        ByteBuf b = alloc.buffer(8);
        return b.writeInt(4).writeByte(CREDIT).writeByte(vl).writeShort(count);
    }

    /** Offset of a CREDIT frame's feedback count, when it carries feedback. */
    public static final int CREDIT_FEEDBACK = 8;
    /** Bytes of one feedback message in a CREDIT frame. */
    public static final int FEEDBACK_BYTES = 8;
    /** Feedback messages one CREDIT frame carries at most. */
    public static final int MAX_FEEDBACK = 255;

    /**
     * A CREDIT frame carrying, after its credits, the Q-adaptive feedback messages {@code from ..
     * from + n - 1} of {@code rows} and {@code values} (n at most {@link #MAX_FEEDBACK}).
     */
    public static ByteBuf credit(ByteBufAllocator alloc, int vl, int count, int[] rows, float[] values, int from, int n) {
        if (n < 0 || n > MAX_FEEDBACK) {
            throw new IllegalArgumentException(n + " feedback messages in one credit frame; at most " + MAX_FEEDBACK);
        }
        checkCount(count);
        ByteBuf b = alloc.buffer(CREDIT_FEEDBACK + 1 + n * FEEDBACK_BYTES);
        b.writeInt(CREDIT_FEEDBACK + 1 + n * FEEDBACK_BYTES - LENGTH_FIELD).writeByte(CREDIT).writeByte(vl).writeShort(count).writeByte(n);
        for (int i = from; i < from + n; i++) {
            b.writeInt(rows[i]).writeFloat(values[i]);
        }
        return b;
    }

    private static void checkCount(int count) {
        if (count < 0 || count > MAX_CREDIT_COUNT) {
            throw new IllegalArgumentException(count + " credits in one credit frame; 0 to " + MAX_CREDIT_COUNT + " (send more frames)");
        }
    }

    /** Bytes of a HELLO frame before its endpoint's text. */
    public static final int HELLO_FIXED = 29;

    /**
     * The bytes frame {@code f} (at its reader index, its length field included) lacks of what its
     * type's fields need: a DATA frame's header, a CREDIT frame's lane and count, a HELLO's fixed
     * fields and the endpoint they announce; 0 when it has them or its type is none of these.
     */
    public static int missingBytes(ByteBuf f) {
        int have = f.readableBytes();
        if (have <= TYPE) {
            return TYPE + 1 - have;
        }
        int need = switch (f.getByte(f.readerIndex() + TYPE)) {
            case DATA -> DATA_HEADER;
            case CREDIT -> CREDIT_FEEDBACK;
            case HELLO -> have < HELLO_FIXED ? HELLO_FIXED : HELLO_FIXED + f.getUnsignedShort(f.readerIndex() + HELLO_FIXED - 2);
            default -> 0;
        };
        return Math.max(0, need - have);
    }

    public static ByteBuf hello(ByteBufAllocator alloc, long guid, int port, int peerPort, int vls, int bufferPackets,
                                int rateMbps, int latencyNs, int slotBlocks, String endpoint) {
        byte[] e = endpoint.getBytes(StandardCharsets.UTF_8);
        ByteBuf b = alloc.buffer(HELLO_FIXED + e.length);
        return b.writeInt(25 + e.length).writeByte(HELLO).writeLong(guid).writeByte(port).writeByte(peerPort)
                .writeByte(vls).writeShort(bufferPackets).writeInt(rateMbps).writeInt(latencyNs).writeByte(slotBlocks)
                .writeShort(e.length).writeBytes(e);
    }
}
