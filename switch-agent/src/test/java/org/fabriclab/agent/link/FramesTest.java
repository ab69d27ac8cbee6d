package org.fabriclab.agent.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import org.fabriclab.agent.core.PacketPool;
import org.junit.jupiter.api.Test;

/** The frame layout through the real decoder, split anywhere; nothing left over, every buffer released. */
class FramesTest {
    @Test
    void framesSurviveArbitrarySplitsAndDecodeToTheirFields() {
        EmbeddedChannel ch = new EmbeddedChannel(new LengthFieldBasedFrameDecoder(Frames.MAX_FRAME, 0, Frames.LENGTH_FIELD, 0, 0));
        ByteBufAllocator a = ByteBufAllocator.DEFAULT;
        ByteBuf all = Unpooled.buffer();
        ByteBuf[] parts = {Frames.hello(a, 0x200001L, 3, 7, 2, 8, 100_000, 1_500, 33, "S2"), Frames.credit(a, 1, 5),
            Frames.data(a, 1, 2, 300, 4, 0x00040012, 9, 123456789L, 100)};
        for (ByteBuf p : parts) {
            all.writeBytes(p);
            p.release();
        }
        // feed in 7-byte pieces: the decoder must reassemble
        while (all.isReadable()) {
            ch.writeInbound(all.readRetainedSlice(Math.min(7, all.readableBytes())));
        }
        all.release();
        ByteBuf hello = ch.readInbound();
        Hello h = Hello.decode(hello);
        assertEquals(new Hello(0x200001L, 3, 7, 2, 8, 100_000, 1_500, 33, "S2"), h);
        assertEquals(Frames.HELLO, hello.getByte(Frames.TYPE));
        hello.release();
        ByteBuf credit = ch.readInbound();
        assertEquals(Frames.CREDIT, credit.getByte(Frames.TYPE));
        assertEquals(1, credit.getUnsignedByte(5));
        assertEquals(5, credit.getUnsignedShort(6));
        credit.release();
        ByteBuf data = ch.readInbound();
        assertEquals(Frames.DATA_HEADER + 100, data.readableBytes());
        assertEquals(300, data.getUnsignedShort(Frames.DLID));
        assertEquals(4, data.getUnsignedShort(Frames.SLID));
        assertEquals(9, data.getInt(Frames.SEQ));
        assertEquals(123456789L, data.getLong(Frames.TIMESTAMP));
        assertEquals(1, data.refCnt());
        data.release();
        assertEquals(0, data.refCnt());
        assertNull(ch.readInbound());
        assertFalse(ch.finish(), "nothing left over in the channel");
    }

    /**
     * Congestion control's bits ride in the high nibble of a DATA frame's flags byte through the
     * decoder, every value of them, and leave the low nibble (the routing mode's) as it was.
     */
    @Test
    void congestionControlBitsRoundTripAndKeepTheFlagsLowNibble() {
        EmbeddedChannel ch = new EmbeddedChannel(new LengthFieldBasedFrameDecoder(Frames.MAX_FRAME, 0, Frames.LENGTH_FIELD, 0, 0));
        ByteBufAllocator a = ByteBufAllocator.DEFAULT;
        for (int bits = 0; bits < 16; bits++) {
            ByteBuf f = Frames.data(a, 1, 2, 300, 4, 7, 9, 123456789L, 0);
            assertEquals(0, Frames.ccBits(f), "a new frame: a plain data packet");
            f.setByte(Frames.FLAGS, 0x0A); // the routing mode's nibble, set by another field's writer
            Frames.ccBits(f, bits);
            ch.writeInbound(f);
            ByteBuf in = ch.readInbound();
            assertEquals(bits, Frames.ccBits(in));
            assertEquals(0x0A, in.getByte(Frames.FLAGS) & 0x0F, "the low nibble kept");
            assertEquals(9, in.getInt(Frames.SEQ));
            assertEquals(123456789L, in.getLong(Frames.TIMESTAMP), "the echoed send time");
            in.release();
        }
        ByteBuf f = Frames.data(a, 1, 2, 300, 4, 7, 9, 0, 0);
        Frames.ccBits(f, PacketPool.CNP | PacketPool.CE | PacketPool.ECT);
        assertEquals(PacketPool.CNP, Frames.ccBits(f) & PacketPool.KIND_MASK);
        f.release();
        assertNull(ch.readInbound());
        assertFalse(ch.finish(), "nothing left over in the channel");
    }
}
