package org.fabriclab.agent.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.link.CreditFeedbackTest.Link;
import org.fabriclab.agent.link.CreditFeedbackTest.RecordingNode;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.junit.jupiter.api.Test;

/**
 * The host's routing mode on the live plane: a DATA frame's flags byte carries it into a node's
 * packet (through the real decoder and {@link LinkHandler}), the node forwards it unchanged while
 * it rewrites the hops, and the flags byte's high bits (reserved) are neither read as a mode nor
 * lost. Nothing is left over in the channels and every buffer is released.
 */
class RoutingModeFrameTest {
    @Test
    void everyModeCrossesALinkAndIsForwardedUnchanged() {
        for (RoutingMode m : RoutingMode.values()) {
            Link link = Link.open();
            RecordingNode node = link.node();
            ByteBuf frame = Frames.data(ByteBufAllocator.DEFAULT, 1, 2, m.code(), 300, 4, 7, 9, 123L, 0L, 64);
            frame.setByte(Frames.HOPS, 2);
            frame.setByte(Frames.FLAGS, frame.getByte(Frames.FLAGS) | 0xA0); // reserved bits another field sets
            CreditFeedbackTest.feed(link.ch(), 5, frame);
            assertEquals(1, node.packets.size(), m.name());
            int h = node.packets.get(0);
            PacketPool pool = node.pool();
            assertEquals(m.code(), pool.mode(h), m + ": the mode, not the reserved bits");
            assertEquals(2, pool.hops(h));

            EmbeddedChannel out = new EmbeddedChannel();
            node.linkUp(1, out, new Hello(0x300000L, 1, 1, 2, 8, 1000, 0, node.blocks.slotBlocks(), "inproc:S2"));
            pool.hops(h, 3);
            node.send(1, 0, h, node.now());
            node.drain(node.now());
            link.ch().runPendingTasks(); // the deferred flush, on the node's loop
            out.runPendingTasks();
            ByteBuf sent = out.readOutbound();
            while (sent.getByte(Frames.TYPE) != Frames.DATA) { // the hello first
                sent.release();
                sent = out.readOutbound();
            }
            assertEquals(m.code(), sent.getByte(Frames.FLAGS) & Frames.MODE_MASK, m.name());
            assertEquals(0xA0, sent.getByte(Frames.FLAGS) & 0xF0, "the reserved bits cross unchanged");
            assertEquals(3, sent.getUnsignedByte(Frames.HOPS));
            sent.release();
            assertEquals(0, sent.refCnt());
            assertFalse(out.finish(), "nothing left over");
            assertFalse(link.ch().finish());
        }
    }

    @Test
    void aModeBeyondItsBitsIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Frames.data(ByteBufAllocator.DEFAULT, 0, 0, 16, 1, 2, 0, 0, 0L, 0L, 0));
        assertEquals("routing mode code 16 outside 0..15", e.getMessage());
    }
}
