package org.fabriclab.agent.link;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.util.ArrayList;
import java.util.List;

/**
 * Data links inside one JVM over Netty {@link LocalChannel}s: every node listens on a local
 * address named after it, a link is opened by one side to the other's address, and both ends run
 * on their own node's event loop. Many nodes share the group's few event loops ("cheap nodes"):
 * a fabric of a thousand switches needs two threads, not a thousand.
 */
public final class LocalLinks implements AutoCloseable {
    private final EventLoopGroup group;
    private final List<Channel> servers = new ArrayList<>();

    public LocalLinks(int threads) {
        group = new MultiThreadIoEventLoopGroup(threads, LocalIoHandler.newFactory());
    }

    /** An event loop for the next node (round-robin over the group's threads). */
    public EventLoop nextLoop() {
        return group.next();
    }

    /** The local address a node listens on. */
    public static String address(String nodeName) {
        return "fabric-node:" + nodeName;
    }

    /** Makes {@code node} accept links at {@link #address}. */
    public void listen(LiveNode node) throws InterruptedException {
        Channel server = new ServerBootstrap().group(group, node.eventLoop()).channel(LocalServerChannel.class)
                .childHandler(new ChannelInitializer<LocalChannel>() {
                    @Override
                    protected void initChannel(LocalChannel ch) {
                        pipeline(ch, new LinkHandler(node));
                    }
                }).bind(new LocalAddress(address(node.name()))).sync().channel();
        synchronized (servers) {
            servers.add(server);
        }
    }

    /** Cables port {@code port} of {@code node} to port {@code peerPort} of the node named {@code peer}. */
    public ChannelFuture connect(LiveNode node, int port, String peer, int peerPort) {
        return new Bootstrap().group(node.eventLoop()).channel(LocalChannel.class)
                .handler(new ChannelInitializer<LocalChannel>() {
                    @Override
                    protected void initChannel(LocalChannel ch) {
                        pipeline(ch, new LinkHandler(node, port, peerPort));
                    }
                }).connect(new LocalAddress(address(peer)));
    }

    static void pipeline(Channel ch, LinkHandler handler) {
        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(Frames.MAX_FRAME, 0, Frames.LENGTH_FIELD, 0, 0), handler);
    }

    @Override
    public void close() {
        synchronized (servers) {
            servers.forEach(Channel::close);
        }
        group.shutdownGracefully(0, 2, java.util.concurrent.TimeUnit.SECONDS).syncUninterruptibly();
    }
}
