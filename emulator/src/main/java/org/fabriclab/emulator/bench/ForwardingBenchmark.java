package org.fabriclab.emulator.bench;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.TableBatch;
import org.fabriclab.agent.link.DataLinks;
import org.fabriclab.agent.link.Frames;
import org.fabriclab.agent.link.Hello;
import org.fabriclab.agent.link.LiveNode;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.proto.v1.NodeType;

/**
 * Packets per second through one switch with every port busy: {@code ports} sources, source i
 * sending to source i+1 as fast as credits allow, the switch on one event loop and the sources on
 * the other. Measured twice in the same run: through a {@link LiveSwitch} (core, buffers, credits,
 * arbiter) and through a bare Netty relay of the same frames (the baseline: it answers the hello,
 * writes each frame to the port its DLID maps to, and returns the credits of a read batch in one
 * frame, as the switch does; no buffers, no arbiter, no counters).
 *
 * <p>The sources are {@link Blaster}s, not hosts: each keeps its link full by resending one
 * pre-built frame (a retained duplicate, nothing built or counted per packet) whenever it holds a
 * credit, and sinks what it receives, returning credits per read batch. So the plane under test,
 * not the sources, sets the rate. (The switch rewrites the VL and hop bytes of the frames it
 * forwards in place, in the shared template too: harmless here, the sinks read nothing.)
 */
public final class ForwardingBenchmark {
    /** Blocks of a buffer slot the blaster and the relay declare: the live switch's ({@link LiveNode#FABRIC_BLOCKS}). */
    private static final int SLOT_BLOCKS = LiveNode.FABRIC_BLOCKS.slotBlocks();
    /**
     * One measurement: packets forwarded in {@code seconds} of wall time, and the CPU time the
     * plane's event loop spent meanwhile. {@link #packetsPerCpuSecond} is the plane's own cost per
     * packet, whatever limits the rate (on two cores the sources have one core, the plane the other).
     */
    public record Result(String plane, long packets, double seconds, double packetsPerSecond, double cpuSeconds) {
        public double packetsPerCpuSecond() {
            return cpuSeconds == 0 ? 0 : packets / cpuSeconds;
        }
    }

    private ForwardingBenchmark() {
    }

    /**
     * Runs both planes {@code rounds} times, alternating (relay, switch, relay, switch, ...), so
     * that drift in the machine's speed touches both alike; returns them in that order.
     */
    public static List<Result> run(int ports, int payload, double warmupSeconds, double seconds, int rounds) throws Exception {
        List<Result> out = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
            out.add(measure(ports, payload, warmupSeconds, seconds, false));
            out.add(measure(ports, payload, warmupSeconds, seconds, true));
        }
        return out;
    }

    /** The median of {@code values}. */
    public static double median(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    private static Result measure(int ports, int payload, double warmup, double seconds, boolean liveSwitch) throws Exception {
        try (DataLinks links = DataLinks.local(2)) {
            EventLoop switchLoop = links.loop(0);
            EventLoop hostLoop = links.loop(1);
            // LIDs: switch 1, host i has LID 2 + i on switch port i + 1
            byte[] table = new byte[64 * ((ports + 2 + 63) / 64)];
            Arrays.fill(table, (byte) 0xFF);
            for (int i = 0; i < ports; i++) {
                table[2 + i] = (byte) (i + 1);
            }
            LiveSwitch sw = null;
            Relay relay = null;
            String name = "bench-switch-" + (liveSwitch ? "live" : "relay") + "-" + System.nanoTime();
            if (liveSwitch) {
                double[] rates = new double[ports + 1];
                Arrays.fill(rates, 1000);
                sw = new LiveSwitch(switchLoop, new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, 0x200000L, name, ports)),
                        1, 16, rates, name);
                List<TableBatch.Block> blocks = new ArrayList<>();
                for (int b = 0; b < table.length / 64; b++) {
                    blocks.add(new TableBatch.Block(b, Arrays.copyOfRange(table, b * 64, (b + 1) * 64)));
                }
                sw.management().tables().apply(new TableBatch(0, 1, blocks, ports + 1, List.of()));
                links.listen(sw, new LocalAddress(DataLinks.address(name)));
            } else {
                relay = new Relay(ports, table);
                relay.listen(links, switchLoop, name);
            }
            Blaster[] sources = new Blaster[ports];
            for (int i = 0; i < ports; i++) {
                sources[i] = new Blaster(i + 1, 2 + i, 2 + (i + 1) % ports, payload);
                sources[i].connect(links, hostLoop, name);
            }
            for (Blaster b : sources) {
                b.awaitLink();
            }
            for (Blaster b : sources) {
                b.start(); // only now: every port has a link, so nothing is sent to a port that has none yet
            }
            Thread.sleep((long) (warmup * 1000));
            ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            long loopThread = switchLoop.submit(() -> Thread.currentThread().getId()).get();
            long c0 = mx.getThreadCpuTime(loopThread);
            long p0 = forwarded(sw, relay, ports, switchLoop);
            long t0 = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            long p1 = forwarded(sw, relay, ports, switchLoop);
            double s = (System.nanoTime() - t0) / 1e9;
            double cpu = (mx.getThreadCpuTime(loopThread) - c0) / 1e9;
            for (Blaster b : sources) {
                b.stop();
            }
            Thread.sleep(100); // what is in flight drains
            for (Blaster b : sources) {
                b.close();
            }
            if (relay != null) {
                relay.close();
            }
            return new Result(liveSwitch ? "switch" : "bare-relay", p1 - p0, s, (p1 - p0) / s, cpu);
        }
    }

    private static long forwarded(LiveSwitch sw, Relay relay, int ports, EventLoop loop) throws Exception {
        if (relay != null) {
            return relay.forwarded(loop);
        }
        long n = 0;
        for (int p = 1; p <= ports; p++) {
            n += sw.counters().get(p, PortCounterArray.XMIT_PKTS);
        }
        return n;
    }

    /**
     * A traffic source and sink on one switch port, confined to its event loop: after the hello
     * it sends the same frame (to {@code dlid}) once per credit the switch grants, and releases
     * every frame it receives, returning their credits once per read batch.
     */
    static final class Blaster extends ChannelInboundHandlerAdapter {
        private final int switchPort;
        private final ByteBuf template;
        /** Credit blocks a frame of ours takes at the switch. */
        private final int cost;
        private final CountDownLatch up = new CountDownLatch(1);
        private int credits;
        private int owed;
        private boolean started;
        private ChannelHandlerContext ctx;

        Blaster(int switchPort, int lid, int dlid, int payload) {
            this.switchPort = switchPort;
            template = Frames.data(UnpooledByteBufAllocator.DEFAULT, 0, 0, dlid, lid, lid, 0, 0, payload);
            cost = LiveNode.FABRIC_BLOCKS.cost(template.readableBytes());
        }

        void connect(DataLinks links, EventLoop loop, String switchName) throws InterruptedException {
            new Bootstrap().group(loop).channel(LocalChannel.class)
                    .handler(new ChannelInitializer<LocalChannel>() {
                        @Override
                        protected void initChannel(LocalChannel ch) {
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(Frames.MAX_FRAME, 0, Frames.LENGTH_FIELD, 0, 0),
                                    Blaster.this);
                        }
                    }).connect(new LocalAddress(DataLinks.address(switchName))).sync();
        }

        void stop() throws Exception {
            ctx.executor().submit(() -> started = false).get();
        }

        void close() {
            ctx.channel().close().syncUninterruptibly();
        }

        void awaitLink() throws InterruptedException {
            if (!up.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the switch did not answer the hello of port " + switchPort + " in 30 s");
            }
        }

        void start() {
            ctx.executor().execute(() -> {
                started = true;
                sendAndFlush(ctx);
            });
        }

        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            this.ctx = ctx;
            ctx.writeAndFlush(Frames.hello(ctx.alloc(), 0x100000L + switchPort, 1, switchPort, 1, 16, 1_000_000, 0, SLOT_BLOCKS, "blaster"));
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ByteBuf f = (ByteBuf) msg;
            byte type = f.getByte(f.readerIndex() + Frames.TYPE);
            if (type == Frames.DATA) {
                owed += LiveNode.FABRIC_BLOCKS.cost(f.readableBytes());
            } else if (type == Frames.CREDIT) {
                credits += f.getUnsignedShort(f.readerIndex() + Frames.VL + 1);
            } else if (type == Frames.HELLO) {
                Hello h = Hello.decode(f);
                credits = h.bufferPackets() * h.slotBlocks();
                up.countDown();
            }
            f.release();
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            sendAndFlush(ctx);
        }

        private void sendAndFlush(ChannelHandlerContext ctx) {
            if (owed > 0) {
                ctx.write(Frames.credit(ctx.alloc(), 0, owed), ctx.voidPromise());
                owed = 0;
            }
            while (started && credits >= cost) {
                ctx.write(template.retainedDuplicate(), ctx.voidPromise());
                credits -= cost;
            }
            ctx.flush();
        }

        @Override
        public boolean isSharable() {
            return false;
        }
    }

    /** The baseline: a bare Netty relay, confined to one event loop. */
    static final class Relay {
        private final Channel[] channels;
        private final byte[] table;
        private final boolean[] dirty;
        private final int[] owed;
        private boolean flushScheduled;
        private final Runnable flushTask = this::flush;
        /** Confined to the relay's loop (a volatile write per packet would tax the baseline); read with {@link #forwarded(EventLoop)}. */
        private long forwarded;

        long forwarded(EventLoop loop) throws Exception {
            return loop.submit(() -> forwarded).get();
        }

        Relay(int ports, byte[] table) {
            channels = new Channel[ports + 1];
            dirty = new boolean[ports + 1];
            owed = new int[ports + 1];
            this.table = table;
        }

        private Channel server;

        void close() {
            server.close().syncUninterruptibly();
            for (Channel c : channels) {
                if (c != null) {
                    c.close().syncUninterruptibly();
                }
            }
        }

        void listen(DataLinks links, EventLoop loop, String name) throws InterruptedException {
            server = new ServerBootstrap().group(links.group(), loop).channel(LocalServerChannel.class)
                    .childHandler(new ChannelInitializer<LocalChannel>() {
                        @Override
                        protected void initChannel(LocalChannel ch) {
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(Frames.MAX_FRAME, 0, Frames.LENGTH_FIELD, 0, 0),
                                    new Port());
                        }
                    }).bind(new LocalAddress(DataLinks.address(name))).sync().channel();
        }

        private void flush() {
            flushScheduled = false;
            for (int p = 1; p < channels.length; p++) {
                if (owed[p] > 0 && channels[p] != null) {
                    channels[p].write(Frames.credit(channels[p].alloc(), 0, owed[p]), channels[p].voidPromise());
                    owed[p] = 0;
                    dirty[p] = true;
                }
                if (dirty[p]) {
                    dirty[p] = false;
                    if (channels[p].isActive()) {
                        channels[p].flush();
                    }
                }
            }
        }

        final class Port extends ChannelInboundHandlerAdapter {
            private int port;

            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf f = (ByteBuf) msg;
                byte type = f.getByte(f.readerIndex() + Frames.TYPE);
                if (type == Frames.DATA) {
                    int dlid = f.getUnsignedShort(f.readerIndex() + Frames.DLID);
                    Channel out = channels[table[dlid] & 0xFF];
                    out.write(f, out.voidPromise());
                    dirty[table[dlid] & 0xFF] = true;
                    owed[port] += LiveNode.FABRIC_BLOCKS.cost(f.readableBytes()); // one lane here: credits (blocks) coalesced per read batch, as the switch does
                    dirty[port] = true;
                    forwarded++;
                    return;
                }
                if (type == Frames.HELLO) {
                    Hello h = Hello.decode(f);
                    port = h.peerPort();
                    channels[port] = ctx.channel();
                    ctx.writeAndFlush(Frames.hello(ctx.alloc(), 0x200000L, port, h.port(), 1, 16, 1_000_000, 0, SLOT_BLOCKS, "relay"));
                }
                f.release();
            }

            @Override
            public void channelReadComplete(ChannelHandlerContext ctx) {
                // one flush task per batch of events, as the switch's driver does
                if (!flushScheduled) {
                    flushScheduled = true;
                    ctx.channel().eventLoop().execute(flushTask);
                }
            }
        }
    }
}
