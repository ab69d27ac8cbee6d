package org.fabriclab.agent.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.util.ArrayList;
import java.util.List;
import org.fabriclab.agent.core.CreditBlocks;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.proto.v1.NodeType;
import org.junit.jupiter.api.Test;

/**
 * Q-adaptive's feedback in CREDIT frames, through the real decoder and {@link LinkHandler} on an
 * {@link EmbeddedChannel}: the credits and every message reach the node in order, whatever the
 * pieces the bytes arrive in; a frame announcing more messages than it holds is dropped whole (its
 * credits too: nothing of it can be trusted) and released; a node owing more than a frame's 255
 * messages on a port sends them in order over as many frames, the credit with the first. Every
 * test ends with nothing left over in the channels and every buffer released.
 */
class CreditFeedbackTest {
    static final int PORT = 3;

    /** A node that records what its links hand it, in order, instead of driving a core (the packets' handles too). */
    static final class RecordingNode extends LiveNode {
        final List<String> events = new ArrayList<>();
        final List<Integer> packets = new ArrayList<>();

        RecordingNode(EventLoop loop) {
            super(loop, new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, 0x200000L, "S1", 4)), 2, 8,
                    CreditBlocks.PACKETS, new double[] {0, 1, 1, 1, 1}, "inproc:S1", 16, 16);
            modelClock(new ModelClock(System::nanoTime, 1));
        }

        @Override
        protected void packetArrivedCore(int port, int h, long now) {
            events.add("packet " + port);
            packets.add(h);
        }

        @Override
        protected void creditReturnedCore(int port, int vl, int count, long now) {
            events.add("credit " + port + " vl " + vl + " x" + count);
        }

        @Override
        protected String refusedCreditCore(int port, int vl, int count) {
            return null;
        }

        @Override
        protected void linkFreeCore(int port, long now) {
        }

        @Override
        protected void portActiveCore(int port, int peerBufferPackets, long now) {
        }

        @Override
        protected void portDownCore(int port, long now) {
        }

        @Override
        protected void qFeedbackCore(int port, int row, float value, long now) {
            events.add("feedback " + port + " row " + row + " " + value);
        }
    }

    /** A channel decoding frames into a recording node's port {@link #PORT}, as a data link's pipeline does. */
    record Link(EmbeddedChannel ch, RecordingNode node) {
        static Link open() {
            EmbeddedChannel ch = new EmbeddedChannel();
            RecordingNode node = new RecordingNode(ch.eventLoop());
            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(Frames.MAX_FRAME, 0, Frames.LENGTH_FIELD, 0, 0),
                    new LinkHandler(node, PORT, 1));
            return new Link(ch, node);
        }
    }

    /** Feeds {@code frames} to {@code ch} in pieces of {@code piece} bytes; returns the buffer they came from (to check its release). */
    static ByteBuf feed(EmbeddedChannel ch, int piece, ByteBuf... frames) {
        ByteBuf all = Unpooled.buffer();
        for (ByteBuf f : frames) {
            all.writeBytes(f);
            f.release();
        }
        while (all.isReadable()) {
            ch.writeInbound(all.readRetainedSlice(Math.min(piece, all.readableBytes())));
        }
        all.release();
        return all;
    }

    @Test
    void creditsAndFeedbackCrossInOneFrameWhateverThePieces() {
        int[] rows = {7, 0, 131, 4};
        float[] values = {394.0f, 0.5f, 1.0e6f, 88.25f};
        for (int piece : new int[] {1, 3, 64}) {
            Link link = Link.open();
            EmbeddedChannel ch = link.ch();
            ByteBuf frame = Frames.credit(ByteBufAllocator.DEFAULT, 2, 5, rows, values, 1, 3);
            assertEquals(Frames.CREDIT_FEEDBACK + 1 + 3 * Frames.FEEDBACK_BYTES, frame.readableBytes());
            ByteBuf source = feed(ch, piece, frame, Frames.credit(ByteBufAllocator.DEFAULT, 1, 2));
            assertEquals(List.of("credit 3 vl 2 x5", "feedback 3 row 0 0.5", "feedback 3 row 131 1000000.0", "feedback 3 row 4 88.25",
                    "credit 3 vl 1 x2"), link.node().events, "pieces of " + piece + " bytes");
            assertEquals(0, source.refCnt(), "every piece released");
            assertNull(ch.readInbound());
            assertFalse(ch.finish(), "nothing left over");
        }
    }

    @Test
    void aFrameAnnouncingMoreMessagesThanItHoldsIsDroppedWholeAndReleased() {
        Link link = Link.open();
        EmbeddedChannel ch = link.ch();
        ByteBuf shortFrame = Frames.credit(ByteBufAllocator.DEFAULT, 0, 4, new int[] {1, 2}, new float[] {10, 20}, 0, 2);
        shortFrame.setByte(Frames.CREDIT_FEEDBACK, 3); // announces 3, holds 2
        ByteBuf source = feed(ch, 5, shortFrame, Frames.credit(ByteBufAllocator.DEFAULT, 0, 1, new int[] {9}, new float[] {30}, 0, 1));
        assertEquals(List.of("credit 3 vl 0 x1", "feedback 3 row 9 30.0"), link.node().events,
                "the short frame gone, credits and all; the link carries on with the next");
        assertEquals(0, source.refCnt(), "the dropped frame was released");
        assertTrue(ch.isActive(), "a bad frame does not take the link down");
        assertFalse(ch.finish());
    }

    @Test
    void aFrameHoldsAt255MessagesAndTheCodecRefusesMore() {
        int[] rows = new int[256];
        float[] values = new float[256];
        ByteBuf full = Frames.credit(ByteBufAllocator.DEFAULT, 0, 1, rows, values, 0, Frames.MAX_FEEDBACK);
        assertEquals(Frames.CREDIT_FEEDBACK + 1 + 255 * Frames.FEEDBACK_BYTES, full.readableBytes());
        assertTrue(full.readableBytes() <= Frames.MAX_FRAME, "a full credit frame is within what the decoder takes");
        full.release();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Frames.credit(ByteBufAllocator.DEFAULT, 0, 1, rows, values, 0, 256));
        assertTrue(e.getMessage().contains("at most 255"), e.getMessage());
    }

    @Test
    void moreThan255MessagesOnAPortGoOutInOrderOverAsManyFrames() {
        EmbeddedChannel out = new EmbeddedChannel();
        RecordingNode sender = new RecordingNode(out.eventLoop());
        sender.linkUp(PORT, out, new Hello(0x300000L, 1, PORT, 2, 8, 1000, 0, sender.blocks.slotBlocks(), "inproc:S2"));
        int n = 600;
        for (int i = 0; i < n; i++) {
            sender.feedback(PORT, i, i / 4f);
        }
        sender.owe(PORT, 1, 1);
        sender.drain(sender.now());
        out.runPendingTasks(); // the deferred flush
        List<ByteBuf> frames = new ArrayList<>();
        for (ByteBuf f = out.readOutbound(); f != null; f = out.readOutbound()) {
            frames.add(f);
        }
        assertEquals(3, frames.size(), "255 + 255 + 90 messages");
        assertEquals(255, frames.get(0).getUnsignedByte(Frames.CREDIT_FEEDBACK));
        assertEquals(1, frames.get(0).getUnsignedShort(6), "the credit rides with the first frame");
        assertEquals(0, frames.get(2).getUnsignedShort(6), "later frames carry no credit");
        assertEquals(90, frames.get(2).getUnsignedByte(Frames.CREDIT_FEEDBACK));

        Link link = Link.open();
        EmbeddedChannel in = link.ch();
        ByteBuf source = feed(in, 1000, frames.toArray(ByteBuf[]::new));
        List<String> expected = new ArrayList<>();
        expected.add("credit 3 vl 1 x1");
        for (int i = 0; i < n; i++) {
            expected.add("feedback 3 row " + i + " " + i / 4f);
        }
        assertEquals(expected, link.node().events);
        assertEquals(0, source.refCnt());
        assertFalse(in.finish());
        assertFalse(out.finish());
    }
}
