package org.fabriclab.agent.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabriclab.agent.ServedNode;
import org.fabriclab.agent.core.CreditBlocks;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.TableBatch;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.proto.v1.GetNodeCountersRequest;
import org.fabriclab.proto.v1.NodeCounters;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortCounters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Credits in 64-byte blocks on a live link, through the real decoder and {@link LinkHandler} on
 * {@link EmbeddedChannel}s: a live switch returns a data frame's blocks and an ACK's one block in
 * CREDIT frames; those very frames, handed back on the link the packets left by (as its peer
 * returns them), restore its credits there; a count over the peer's buffer is refused and leaves
 * its credits as they were, and counted as the port's receive error (PortRcvErrors) as truncated
 * frames are; a frame never carries more than its 16-bit count.
 */
class CreditBlocksLinkTest {
    private static final int DATA = FrameSizes.DATA_HEADER + FrameSizes.MAX_PAYLOAD;
    private EmbeddedChannel in;
    private EmbeddedChannel out;
    private LiveSwitch sw;
    private ManagedNode mgmt;

    @BeforeEach
    void setUp() throws Exception {
        in = new EmbeddedChannel();
        out = new EmbeddedChannel();
        mgmt = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, 0x200000L, "S1", 4));
        byte[] block = new byte[64];
        Arrays.fill(block, (byte) 0xFF);
        block[10] = 3; // LID 10 -> port 3
        mgmt.tables().apply(new TableBatch(0, 1, List.of(new TableBatch.Block(0, block)), 12, List.of()));
        // one lane, two-packet buffers of 4133-byte frames: 130 blocks
        sw = new LiveSwitch(in.eventLoop(), mgmt, 1, 2, 0, CreditBlocks.of(DATA, FrameSizes.DATA_HEADER), new double[] {0, 100, 100, 100, 100},
                "inproc:S1");
        sw.modelClock(new ModelClock(System::nanoTime, 1));
        in.pipeline().addLast(new LengthFieldBasedFrameDecoder(Frames.MAX_FRAME, 0, Frames.LENGTH_FIELD, 0, 0), new LinkHandler(sw, 1, 1));
        out.pipeline().addLast(new LengthFieldBasedFrameDecoder(Frames.MAX_FRAME, 0, Frames.LENGTH_FIELD, 0, 0), new LinkHandler(sw, 3, 1));
        in.readOutbound(); // the hellos the handlers sent on activation
        out.readOutbound();
        sw.linkUp(1, in, new Hello(0x300000L, 1, 1, 1, 2, 100_000, 0, sw.blocks.slotBlocks(), "inproc:H1"));
        sw.linkUp(3, out, new Hello(0x400000L, 1, 3, 1, 2, 100_000, 0, sw.blocks.slotBlocks(), "inproc:S2"));
    }

    @AfterEach
    void tearDown() {
        for (EmbeddedChannel c : List.of(in, out)) {
            for (Object f = c.readOutbound(); f != null; f = c.readOutbound()) {
                ((ByteBuf) f).release();
            }
            assertFalse(c.finish());
        }
    }

    private String credits() throws Exception {
        var d = sw.describe();
        in.runPendingTasks();
        String s = d.get();
        return s.substring(s.indexOf(" p3"), s.indexOf(" p4"));
    }

    private List<ByteBuf> outbound(EmbeddedChannel c) {
        c.runPendingTasks(); // the deferred flush
        List<ByteBuf> frames = new ArrayList<>();
        for (Object f = c.readOutbound(); f != null; f = c.readOutbound()) {
            frames.add((ByteBuf) f);
        }
        return frames;
    }

    @Test
    void creditsGoBackInBlocksAndRoundTripOverTheLink() throws Exception {
        assertTrue(credits().contains("cr0=130"), credits());
        in.writeInbound(Frames.data(ByteBufAllocator.DEFAULT, 0, 0, 10, 1, 1, 0, 0, FrameSizes.MAX_PAYLOAD));
        ByteBuf ack = Frames.data(ByteBufAllocator.DEFAULT, 0, 0, 10, 1, 2, 0, 0, 0);
        Frames.ccBits(ack, PacketPool.ACK);
        in.writeInbound(ack);
        List<ByteBuf> forwarded = outbound(out);
        assertEquals(List.of(DATA, FrameSizes.DATA_HEADER), forwarded.stream().map(ByteBuf::readableBytes).toList());
        forwarded.forEach(ByteBuf::release);
        assertTrue(credits().contains("cr0=64"), "130 blocks less the data frame's 65 and the ACK's 1: " + credits());

        List<ByteBuf> creditFrames = outbound(in);
        assertEquals(2, creditFrames.size());
        assertEquals(List.of(65, 1), creditFrames.stream().map(f -> f.getUnsignedShort(f.readerIndex() + 6)).toList(),
                "each packet's blocks back to its sender");
        // the peer on port 3 returns the same blocks in the same frames
        for (ByteBuf f : creditFrames) {
            out.writeInbound(f);
        }
        assertTrue(credits().contains("cr0=130"), credits());
        assertEquals(0, creditFrames.get(0).refCnt(), "every frame released");
    }

    @Test
    void aCreditFrameOverTheLanesBufferIsRefusedAndChangesNothing() throws Exception {
        ByteBuf f = Frames.credit(ByteBufAllocator.DEFAULT, 0, 1);
        out.writeInbound(f); // the lane already holds its whole 130 blocks
        assertTrue(credits().contains("cr0=130"), "refused, the credits as they were: " + credits());
        assertEquals(0, f.refCnt());
        ByteBuf lane = Frames.credit(ByteBufAllocator.DEFAULT, 5, 1);
        out.writeInbound(lane); // a lane the switch has not
        assertTrue(credits().contains("cr0=130"), credits());
        assertEquals(1, forwardOne(), "the switch still forwards");
    }

    private int forwardOne() {
        in.writeInbound(Frames.data(ByteBufAllocator.DEFAULT, 0, 0, 10, 1, 1, 0, 0, 100));
        List<ByteBuf> forwarded = outbound(out);
        forwarded.forEach(ByteBuf::release);
        outbound(in).forEach(ByteBuf::release);
        return forwarded.size();
    }

    @Test
    void aLargeSwitchsPoolGrowsAsFarAsOnePoolCanRatherThanRefusingToStart() {
        // switch-agent --ports 254 --vls 15 --buffer 2048 --packet-bytes 4133: its buffers' blocks hold
        // 507 million header-only packets, more handles than one pool has (the agent refused to start)
        long most = 254L * 15 * CreditBlocks.of(FrameSizes.MAX_FRAME, FrameSizes.DATA_HEADER).mostPackets(2048) + 1;
        assertTrue(most > PacketPool.MAX_CAPACITY, "the case: " + most);
        int start = 254 * 15 * 2048 + 1;
        assertEquals(PacketPool.MAX_CAPACITY, LiveNode.poolLimit(start, most));
        assertEquals(8, new PacketPool(8, LiveNode.poolLimit(8, most)).capacity(), "a pool made with that bound");
        assertEquals(start, LiveNode.poolLimit(start, 10), "and never below its size");
    }

    @Test
    void aLinkDialledByAPeerThatCountsOtherwiseGetsOurHelloBeforeItCloses() throws Exception {
        // the peer dialled us (an accepted channel): it learns why only from our hello, which it refuses in turn
        EmbeddedChannel accepted = new EmbeddedChannel(new LengthFieldBasedFrameDecoder(Frames.MAX_FRAME, 0, Frames.LENGTH_FIELD, 0, 0),
                new LinkHandler(sw));
        accepted.writeInbound(Frames.hello(ByteBufAllocator.DEFAULT, 0x500000L, 1, 2, 1, 2, 100_000, 0, 33, "inproc:H3"));
        accepted.runPendingTasks();
        ByteBuf answer = accepted.readOutbound();
        assertTrue(answer != null, "our hello, sent before the link closes");
        assertEquals(Frames.HELLO, answer.getByte(answer.readerIndex() + Frames.TYPE));
        Hello ours = Hello.decode(answer);
        answer.release();
        assertEquals(65, ours.slotBlocks(), "it names our count of a slot");
        assertEquals(2, ours.port());
        assertFalse(accepted.isOpen(), "then the link is closed");
        assertEquals(null, sw.channel(2), "port 2 stays down");
    }

    @Test
    void aPeerThatCountsASlotInOtherBlocksIsRefusedAndItsPortStaysDown() throws Exception {
        EmbeddedChannel other = new EmbeddedChannel();
        other.pipeline().addLast(new LengthFieldBasedFrameDecoder(Frames.MAX_FRAME, 0, Frames.LENGTH_FIELD, 0, 0), new LinkHandler(sw, 2, 1));
        other.readOutbound(); // our hello
        // a peer whose largest frame is 2,085 bytes (33 blocks a slot) against our 4,133 (65)
        other.writeInbound(Frames.hello(ByteBufAllocator.DEFAULT, 0x500000L, 1, 2, 1, 2, 100_000, 0, 33, "inproc:S3"));
        other.runPendingTasks();
        assertFalse(other.isOpen(), "the link is closed");
        assertEquals(null, sw.channel(2), "port 2 stays down");
        assertTrue(credits().contains("cr0=130"), "the other ports' credits are as they were: " + credits());
    }

    @Test
    void truncatedFramesAreDroppedWholeAndChangeNothing() throws Exception {
        String before = credits();
        int inUse = sw.pool.inUse();
        // a DATA frame cut after its DLID, a CREDIT frame without its count, a HELLO announcing 40 bytes of endpoint it has not
        ByteBuf data = Frames.data(ByteBufAllocator.DEFAULT, 0, 0, 10, 1, 1, 0, 0, 0);
        in.writeInbound(truncated(data, 14));
        out.writeInbound(truncated(Frames.credit(ByteBufAllocator.DEFAULT, 0, 1), 6));
        ByteBuf hello = Frames.hello(ByteBufAllocator.DEFAULT, 0x500000L, 1, 2, 1, 2, 100_000, 0, sw.blocks.slotBlocks(), "inproc:S3");
        hello.setShort(Frames.HELLO_FIXED - 2, 40);
        in.writeInbound(hello);
        in.runPendingTasks();
        assertEquals(inUse, sw.pool.inUse(), "no packet handle taken by the truncated DATA frame");
        assertEquals(before, credits(), "credits as they were");
        assertTrue(in.isOpen() && out.isOpen(), "the links stay up");
        assertEquals(null, sw.channel(2), "no link came up from the truncated hello");
    }

    @Test
    void refusedAndTruncatedFramesAreCountedAsTheirPortsReceiveErrors() throws Exception {
        out.writeInbound(Frames.credit(ByteBufAllocator.DEFAULT, 0, 1)); // past the lane's buffer: refused
        in.writeInbound(truncated(Frames.credit(ByteBufAllocator.DEFAULT, 0, 1), 6)); // without its count
        in.runPendingTasks();
        // read as the perf manager reads them (GetNodeCounters), which /metrics and fabricctl counters show
        try (ServedNode served = ServedNode.serve(mgmt)) {
            NodeCounters c = served.blocking().getNodeCounters(GetNodeCountersRequest.getDefaultInstance());
            assertEquals(List.of(1L, 0L, 1L, 0L), c.getPortsList().stream().map(PortCounters::getRcvErrors).toList(),
                    "one on port 3 (the refused credit), one on port 1 (the truncated frame)");
            assertEquals(0, c.getPorts(2).getXmitDiscards(), "a link frame is no packet discarded");
        }
        // a credit frame short of the Q-adaptive feedback it announces, and a frame of a type no link sends
        ByteBuf feedback = Frames.credit(ByteBufAllocator.DEFAULT, 0, 0);
        ByteBuf announcing = ByteBufAllocator.DEFAULT.buffer().writeBytes(feedback).writeByte(3);
        feedback.release();
        announcing.setInt(0, announcing.readableBytes() - Frames.LENGTH_FIELD);
        out.writeInbound(announcing);
        ByteBuf unknown = ByteBufAllocator.DEFAULT.buffer().writeInt(1).writeByte(9);
        out.writeInbound(unknown);
        assertEquals(3, sw.counters().rcvErrors(3));
        assertTrue(credits().contains("cr0=130"), "credits as they were: " + credits());
        assertEquals(0, announcing.refCnt() + unknown.refCnt(), "every frame released");
        var reset = mgmt.resetCounters(3); // on the node's loop, the embedded channels' own
        in.runPendingTasks();
        reset.get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertEquals(0, sw.counters().rcvErrors(3), "a reset clears them");
        assertEquals(1, sw.counters().rcvErrors(1), "and only the port's");
    }

    /**
     * A DATA frame that finds no packet slot left (every handle of the pool in use, as only a peer
     * that ignores credits could make it) is dropped, released, and counted where IBA counts a buffer
     * overrun: in PortRcvErrors of the port it arrived at, not as a transmit discard.
     */
    @Test
    void aDataFrameWithNoPacketSlotLeftIsItsPortsReceiveError() throws Exception {
        List<Integer> held = new ArrayList<>();
        for (int h = sw.pool.allocate(); h != PacketPool.NONE; h = sw.pool.allocate()) {
            held.add(h);
        }
        ByteBuf data = Frames.data(ByteBufAllocator.DEFAULT, 0, 0, 10, 1, 1, 0, 0, 100);
        in.writeInbound(data);
        in.runPendingTasks();
        assertEquals(0, data.refCnt(), "the frame released");
        assertEquals(List.of(), outbound(out), "nothing forwarded");
        assertEquals(1, sw.counters().rcvErrors(1), "a receive error of the port it arrived at");
        try (ServedNode served = ServedNode.serve(mgmt)) {
            NodeCounters c = served.blocking().getNodeCounters(GetNodeCountersRequest.getDefaultInstance());
            assertEquals(1, c.getPorts(0).getRcvErrors());
            assertEquals(List.of(0L, 0L, 0L, 0L), c.getPortsList().stream().map(PortCounters::getXmitDiscards).toList(),
                    "no transmit discard anywhere");
            assertEquals(0, c.getPorts(0).getXmitDiscardsByReason().getOverflow());
        }
        held.forEach(sw.pool::release);
        outbound(in).forEach(ByteBuf::release);
        assertEquals(1, forwardOne(), "with slots again, the switch forwards");
    }

    /**
     * A link refused at its hello (a second cable to port 3, or one naming a port the switch has
     * not) is no port's: a frame that came in the same read, before the close, is logged only, not
     * counted as port 3's receive error (another cable's) nor thrown out of the counters' bounds.
     */
    @Test
    void framesOnALinkRefusedAtItsHelloAreNoPortsErrors() throws Exception {
        for (int named : new int[] {3, 9}) {
            EmbeddedChannel refused = new EmbeddedChannel(new LengthFieldBasedFrameDecoder(Frames.MAX_FRAME, 0, Frames.LENGTH_FIELD, 0, 0),
                    new LinkHandler(sw));
            ByteBuf hello = Frames.hello(ByteBufAllocator.DEFAULT, 0x600000L, 1, named, 1, 2, 100_000, 0, sw.blocks.slotBlocks(),
                    "inproc:S4");
            ByteBuf unknown = ByteBufAllocator.DEFAULT.buffer().writeInt(1).writeByte(9);
            ByteBuf cut = truncated(Frames.credit(ByteBufAllocator.DEFAULT, 0, 1), 6);
            refused.writeInbound(hello, unknown, cut); // one read: the frames behind the hello arrive before the close
            refused.runPendingTasks();
            assertFalse(refused.isOpen(), "port " + named + ": refused");
            assertEquals(0, unknown.refCnt() + cut.refCnt(), "every frame released");
            assertEquals(0, sw.counters().rcvErrors(3), "port " + named + ": port 3's link is another cable");
            assertTrue(sw.channel(3) == out, "port 3 keeps its link");
        }
    }

    /** {@code f}'s first {@code bytes}, its length field saying so (as a peer that cut it would send it). */
    private static ByteBuf truncated(ByteBuf f, int bytes) {
        ByteBuf t = f.copy(0, bytes).setInt(0, bytes - Frames.LENGTH_FIELD);
        f.release();
        return t;
    }

    @Test
    void aFrameCarriesAtMostItsSixteenBitCount() {
        ByteBuf f = Frames.credit(ByteBufAllocator.DEFAULT, 0, Frames.MAX_CREDIT_COUNT);
        assertEquals(Frames.MAX_CREDIT_COUNT, f.getUnsignedShort(6));
        f.release();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Frames.credit(ByteBufAllocator.DEFAULT, 0, Frames.MAX_CREDIT_COUNT + 1));
        assertTrue(e.getMessage().contains("0 to 65535"), e.getMessage());
    }
}
