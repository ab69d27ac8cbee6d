package org.fabriclab.emulator.bench;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabriclab.agent.core.TableBatch;
import org.fabriclab.agent.link.DataLinks;
import org.fabriclab.agent.link.Frames;
import org.fabriclab.agent.link.Hello;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.agent.mgmt.PortCounterArray;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortState;

/**
 * Packets per second through one switch with every port busy: {@code ports} hosts, host i sending
 * to host i+1 as fast as credits allow, the switch on one event loop and the hosts on the other.
 * Measured twice in the same run: through a {@link LiveSwitch} (core, buffers, credits, arbiter)
 * and through a bare Netty relay of the same frames (the baseline: it answers the hello, writes
 * each frame to the port its DLID maps to, and returns the credits of a read batch in one frame,
 * as the switch does; no buffers, no arbiter, no counters).
 */
public final class ForwardingBenchmark {
    /** One measurement. */
    public record Result(String plane, long packets, double seconds, double packetsPerSecond) {
    }

    private ForwardingBenchmark() {
    }

    /** Runs both planes; the relay first, then the switch. */
    public static List<Result> run(int ports, int payload, double warmupSeconds, double seconds) throws Exception {
        List<Result> out = new ArrayList<>();
        out.add(measure(ports, payload, warmupSeconds, seconds, false));
        out.add(measure(ports, payload, warmupSeconds, seconds, true));
        return out;
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
            LiveHost[] hosts = new LiveHost[ports];
            for (int i = 0; i < ports; i++) {
                hosts[i] = new LiveHost(hostLoop, new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_CA, 0x100000L + 2 * i,
                        "H" + i, 1)), 1, 16, 1000, "H" + i);
                links.connect(hosts[i], 1, name, i + 1).sync();
            }
            for (int i = 0; i < ports; i++) {
                while (hosts[i].management().port(1).state() != PortState.PORT_STATE_INIT) {
                    Thread.sleep(1);
                }
                hosts[i].management().setPort(1, 2 + i, PortState.PORT_STATE_ARMED);
                hosts[i].management().setPort(1, 0, PortState.PORT_STATE_ACTIVE);
            }
            for (int i = 0; i < ports; i++) {
                hosts[i].start(new Traffic(new int[] {2 + (i + 1) % ports}, Traffic.Pattern.ROUND_ROBIN, 0, payload, 0, i));
            }
            Thread.sleep((long) (warmup * 1000));
            long p0 = forwarded(sw, relay, ports);
            long t0 = System.nanoTime();
            Thread.sleep((long) (seconds * 1000));
            long p1 = forwarded(sw, relay, ports);
            double s = (System.nanoTime() - t0) / 1e9;
            for (LiveHost h : hosts) {
                h.stop();
            }
            return new Result(liveSwitch ? "switch" : "bare-relay", p1 - p0, s, (p1 - p0) / s);
        }
    }

    private static long forwarded(LiveSwitch sw, Relay relay, int ports) {
        if (relay != null) {
            return relay.forwarded;
        }
        long n = 0;
        for (int p = 1; p <= ports; p++) {
            n += sw.counters().get(p, PortCounterArray.XMIT_PKTS);
        }
        return n;
    }

    /** The baseline: a bare Netty relay, confined to one event loop. */
    static final class Relay {
        private final Channel[] channels;
        private final byte[] table;
        private final boolean[] dirty;
        private final int[] owed;
        volatile long forwarded;

        Relay(int ports, byte[] table) {
            channels = new Channel[ports + 1];
            dirty = new boolean[ports + 1];
            owed = new int[ports + 1];
            this.table = table;
        }

        void listen(DataLinks links, EventLoop loop, String name) throws InterruptedException {
            new ServerBootstrap().group(links.group(), loop).channel(LocalServerChannel.class)
                    .childHandler(new ChannelInitializer<LocalChannel>() {
                        @Override
                        protected void initChannel(LocalChannel ch) {
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(Frames.MAX_FRAME, 0, Frames.LENGTH_FIELD, 0, 0),
                                    new Port());
                        }
                    }).bind(new LocalAddress(DataLinks.address(name))).sync();
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
                    owed[port]++; // one lane in this benchmark: credits coalesced per read batch, as the switch does
                    dirty[port] = true;
                    forwarded++;
                    return;
                }
                if (type == Frames.HELLO) {
                    Hello h = Hello.decode(f);
                    port = h.peerPort();
                    channels[port] = ctx.channel();
                    ctx.writeAndFlush(Frames.hello(ctx.alloc(), 0x200000L, port, h.port(), 1, 16, 1_000_000, 0, "relay"));
                }
                f.release();
            }

            @Override
            public void channelReadComplete(ChannelHandlerContext ctx) {
                ctx.channel().eventLoop().execute(() -> {
                    for (int p = 1; p < channels.length; p++) {
                        if (owed[p] > 0 && channels[p] != null) {
                            channels[p].write(Frames.credit(channels[p].alloc(), 0, owed[p]), channels[p].voidPromise());
                            owed[p] = 0;
                        }
                        if (dirty[p]) {
                            dirty[p] = false;
                            channels[p].flush();
                        }
                    }
                });
            }
        }
    }
}
