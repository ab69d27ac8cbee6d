package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.link.DataLinks;
import org.fabriclab.agent.link.Frames;
import org.fabriclab.agent.link.LiveNode;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.AdminService;
import org.fabriclab.manager.FabricManager;
import org.fabriclab.manager.PerfManager;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;

/**
 * A receive error end to end, nothing stood in for: a live switch of an emulated fabric is sent, on
 * a real data link (a Netty channel to the switch's own listener, opened with a proper hello in
 * place of a host's cable), a truncated DATA frame and a frame of an unknown type, which its link
 * handler refuses; the perf manager reads the count with its real {@code GetNodeCounters} call, and
 * {@code fabricctl counters} shows it on that port, and on no other. (/metrics' exposition of the
 * counter is {@code PerfManagerTest}'s.)
 */
class ReceiveErrorsEndToEndTest {
    /**
     * Column {@code name} of {@code fabricctl counters}' link table in {@code text}, by port, for
     * {@code node}'s rows: the value under the column's header, which is right-aligned as its values are.
     */
    private static Map<Integer, Long> column(String text, String name, String node) {
        List<String> lines = text.lines().toList();
        int header = 0;
        while (header < lines.size() && !(lines.get(header).startsWith("node ") && lines.get(header).contains(name))) {
            header++;
        }
        assertTrue(header < lines.size(), "no link table with a '" + name + "' column: " + text);
        int end = lines.get(header).indexOf(name) + name.length();
        Map<Integer, Long> byPort = new TreeMap<>();
        for (String row : lines.subList(header + 1, lines.size())) {
            if (row.isBlank()) {
                break; // the table's end
            }
            String[] cells = row.trim().split("\\s+");
            if (cells[0].equals(node)) {
                String[] upToColumn = row.substring(0, end).trim().split("\\s+");
                byPort.put(Integer.parseInt(cells[1]), Long.parseLong(upToColumn[upToColumn.length - 1]));
            }
        }
        return byPort;
    }

    @Test
    void framesASwitchRefusesAreCountedOnTheirPortThroughToFabricctl() throws Exception {
        EmulatedFabric.Options options = EmulatedFabric.Options.DEFAULTS;
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, LocalIoHandler.newFactory());
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("paper:ib-ar-c1"), options);
             FabricManager manager = new FabricManager(fabric.endpoint("A"), "minhop", null, new SimpleMeterRegistry());
             PerfManager perf = new PerfManager(manager, new SimpleMeterRegistry(), 3_600_000)) {
            Server admin = NettyServerBuilder.forAddress(new InetSocketAddress("localhost", 0))
                    .addService(new AdminService(manager, perf)).build().start();
            String server = "localhost:" + admin.getPort();
            try {
                assertEquals("UP", manager.sweep().get(60, TimeUnit.SECONDS).state().name());
                Fabric f = fabric.fabric();
                int host = f.nodeByName("E").orElseThrow(); // not the manager's own host
                int g = f.globalPort(host, 1);
                String sw = f.name(f.peerNode(g));
                int port = f.peerPort(g);
                LiveNode node = fabric.node(sw);
                // the host's cable pulled, a peer of ours takes the switch's port
                fabric.linkDown("E", 1);
                Waits.until(sw + " port " + port + " down", () -> node.management().port(port).state() == PortState.PORT_STATE_DOWN);
                Channel peer = new Bootstrap().group(group).channel(LocalChannel.class).handler(new ChannelInboundHandlerAdapter() {
                    @Override
                    public void channelRead(ChannelHandlerContext ctx, Object msg) {
                        ReferenceCountUtil.release(msg); // the switch's hello and credits: not needed here
                    }
                }).connect(new LocalAddress(DataLinks.address(sw))).sync().channel();
                try {
                    peer.writeAndFlush(Frames.hello(ByteBufAllocator.DEFAULT, 0xE0E0L, 1, port, options.vls(), options.bufferPackets(),
                            (int) (options.linkGbps() * 1000), 0, options.creditBlocks().slotBlocks(), "test:peer")).sync();
                    Waits.until(sw + " port " + port + " linked to us", () -> node.management().port(port).state() != PortState.PORT_STATE_DOWN);
                    ByteBuf data = Frames.data(ByteBufAllocator.DEFAULT, 0, 0, 1, 2, 1, 0, 0, 100);
                    ByteBuf cut = data.copy(0, 14).setInt(0, 14 - Frames.LENGTH_FIELD); // cut after its DLID
                    data.release();
                    peer.write(cut);
                    peer.writeAndFlush(ByteBufAllocator.DEFAULT.buffer().writeInt(1).writeByte(9)).sync(); // type 9: no link sends it
                    Waits.until("both frames refused", () -> node.counters().rcvErrors(port) == 2);
                } finally {
                    peer.close().sync();
                }
                perf.poll(); // GetNodeCounters from every node
                FabricCtlTest.Run counters = FabricCtlTest.run("counters", sw, "--server", server, "--json");
                assertEquals(0, counters.code(), counters.err());
                int seen = 0;
                for (JsonNode link : counters.json().path("links")) {
                    if (link.path("node").asText().equals(sw)) {
                        long expected = link.path("port").asInt() == port ? 2 : 0;
                        assertEquals(expected, link.path("rcvErrors").asLong(), "port " + link.path("port") + ": " + counters.out());
                        seen += link.path("port").asInt() == port ? 1 : 0;
                    }
                }
                assertEquals(1, seen, "the port's row: " + counters.out());
                FabricCtlTest.Run text = FabricCtlTest.run("counters", sw, "--server", server);
                assertEquals(0, text.code(), text.err());
                Map<Integer, Long> rcvErrors = column(text.out(), "rcv errors", sw);
                assertEquals(2L, rcvErrors.get(port), "port " + port + "'s row: " + text.out());
                assertTrue(rcvErrors.size() > 1, "the switch's other ports too: " + text.out());
                rcvErrors.forEach((p, n) -> assertEquals(p == port ? 2L : 0L, (long) n, "port " + p + ": " + text.out()));
            } finally {
                admin.shutdownNow();
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
