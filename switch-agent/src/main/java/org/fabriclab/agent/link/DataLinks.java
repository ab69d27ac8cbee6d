package org.fabriclab.agent.link;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import io.netty.channel.local.LocalIoHandler;
import io.netty.channel.local.LocalServerChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Data links between nodes over one transport: Netty {@link LocalChannel}s inside one JVM, or TCP
 * between processes. The pipeline is the same either way (a length-field frame decoder and the
 * {@link LinkHandler}); every channel runs on its own node's event loop. Many nodes share the
 * group's few loops, so a fabric of a thousand switches needs two threads, not a thousand.
 *
 * <p>Addresses: in-JVM a node listens at {@link #address(String) fabric-node:NAME}; over TCP at
 * {@code HOST:PORT}.
 *
 * <p>Over TCP the end that dials a link keeps it cabled ({@link #cable}): a link that cannot be
 * opened, or that breaks (the peer process died or restarted), is dialled again in the background
 * for as long as these links are open, every link on its own, so that a restarted switch gets
 * every link back from the peers that dialled it and one dead peer holds back no other link.
 */
public final class DataLinks implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DataLinks.class);
    private final EventLoopGroup group;
    private final boolean tcp;
    private final List<Channel> servers = new ArrayList<>();
    /** Numbers the in-JVM connecting ends, so that a port cabled again never takes a name still held. */
    private final AtomicLong connections = new AtomicLong();
    /** The links this end keeps cabled (TCP), stopped before the channels close. */
    private final List<Cable> cables = new ArrayList<>();
    private volatile boolean closing;
    /** Every link channel, closed before the event loops stop (else Netty warns of orphaned peers). */
    private final ChannelGroup all =
            new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

    private DataLinks(EventLoopGroup group, boolean tcp) {
        this.group = group;
        this.tcp = tcp;
    }

    /** Links inside this JVM over LocalChannels, on {@code threads} event loops. */
    public static DataLinks local(int threads) {
        return new DataLinks(new MultiThreadIoEventLoopGroup(threads, LocalIoHandler.newFactory()), false);
    }

    /** Links over TCP (NIO), on {@code threads} event loops. */
    public static DataLinks tcp(int threads) {
        return new DataLinks(new MultiThreadIoEventLoopGroup(threads, NioIoHandler.newFactory()), true);
    }

    /** Event loop number {@code i} of the group (to place nodes on chosen threads, e.g. in a benchmark). */
    public EventLoop loop(int i) {
        Iterator<EventExecutor> it = group.iterator();
        for (int k = 0; k < i; k++) {
            it.next();
        }
        return (EventLoop) it.next();
    }

    /** The group, for a bare baseline that builds its own channels on the same transport. */
    public EventLoopGroup group() {
        return group;
    }

    /** An event loop for the next node (round-robin over the group's threads). */
    public EventLoop nextLoop() {
        return group.next();
    }

    /** The in-JVM address a node listens on. */
    public static String address(String nodeName) {
        return "fabric-node:" + nodeName;
    }

    /**
     * In-JVM: makes {@code node} accept links at {@link #address}; the returned future completes
     * when it does (a fabric binds all its nodes, then waits once).
     */
    public ChannelFuture listen(LiveNode node) {
        return bind(node, new LocalAddress(address(node.name())));
    }

    /** Makes {@code node} accept links at {@code at}; returns the bound address (a TCP port 0 picks one). */
    public SocketAddress listen(LiveNode node, SocketAddress at) throws InterruptedException {
        return bind(node, at).sync().channel().localAddress();
    }

    private ChannelFuture bind(LiveNode node, SocketAddress at) {
        Class<? extends ServerChannel> type = tcp ? NioServerSocketChannel.class : LocalServerChannel.class;
        ChannelFuture bound = new ServerBootstrap().group(group, node.eventLoop()).channel(type)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        pipeline(ch, new LinkHandler(node));
                    }
                }).bind(at);
        synchronized (servers) {
            servers.add(bound.channel());
        }
        return bound;
    }

    /** In-JVM: cables port {@code port} of {@code node} to port {@code peerPort} of the node named {@code peer}. */
    public ChannelFuture connect(LiveNode node, int port, String peer, int peerPort) {
        // the connecting end named too: Netty names an unnamed one from a 32-bit hash, and the 35,000
        // links of an 18-ary 3-tree then collide ("address already in use") in about one start of seven
        LocalAddress self = new LocalAddress(address(node.name()) + ":" + port + "#" + connections.incrementAndGet());
        return bootstrap(node, port, peerPort).connect(new LocalAddress(address(peer)), self);
    }

    /** Cables port {@code port} of {@code node} to port {@code peerPort} of the node listening at {@code peer}. */
    public ChannelFuture connect(LiveNode node, int port, SocketAddress peer, int peerPort) {
        return bootstrap(node, port, peerPort).connect(peer);
    }

    private Bootstrap bootstrap(LiveNode node, int port, int peerPort) {
        Bootstrap b = new Bootstrap().group(node.eventLoop()).channel(tcp ? NioSocketChannel.class : LocalChannel.class)
                .handler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        pipeline(ch, new LinkHandler(node, port, peerPort));
                    }
                });
        if (tcp) {
            b.option(ChannelOption.TCP_NODELAY, true);
        }
        return b;
    }

    /** First wait before dialling a link again; it doubles per failed attempt up to {@link #REDIAL_MAX_MS}. */
    static final long REDIAL_FIRST_MS = 50;
    /** Longest wait between two attempts: a restarted peer is found within about this long. */
    static final long REDIAL_MAX_MS = 1_000;
    /** How long one attempt may take to connect (a peer whose host drops packets must not hold the next attempt). */
    static final int CONNECT_TIMEOUT_MS = 3_000;

    /**
     * Cables port {@code port} of {@code node} to port {@code peerPort} of the node listening at
     * {@code peer} (TCP) and keeps it cabled: dialled now without waiting, and again whenever it
     * cannot be opened or goes down, until {@link Cable#cut} or {@link #close}. Each cable dials on
     * its node's event loop, so a fabric's cables come up in parallel.
     */
    public Cable cable(LiveNode node, int port, SocketAddress peer, int peerPort) {
        Cable c = new Cable(node, port, peer, peerPort);
        synchronized (cables) {
            cables.add(c);
        }
        c.dial();
        return c;
    }

    /** A link its dialling end keeps up (see {@link #cable}). */
    public final class Cable {
        private final LiveNode node;
        private final int port;
        private final SocketAddress peer;
        private final int peerPort;
        private volatile boolean cut;
        private volatile Channel channel;
        /** Attempts since the link was last up (event loop of the node only). */
        private int failures;
        private boolean wasUp;

        private Cable(LiveNode node, int port, SocketAddress peer, int peerPort) {
            this.node = node;
            this.port = port;
            this.peer = peer;
            this.peerPort = peerPort;
        }

        private void dial() {
            if (cut || closing) {
                return;
            }
            bootstrap(node, port, peerPort).option(ChannelOption.CONNECT_TIMEOUT_MILLIS, CONNECT_TIMEOUT_MS).connect(peer)
                    .addListener((ChannelFuture f) -> {
                        if (!f.isSuccess()) {
                            again();
                            return;
                        }
                        channel = f.channel();
                        if (failures > 0 || wasUp) {
                            LOG.info("{}: port {}: link to {} cabled again after {} attempt(s)", node.name(), port, peer, failures + 1);
                        }
                        wasUp = true;
                        f.channel().closeFuture().addListener(x -> {
                            if (!cut && !closing) {
                                LOG.info("{}: port {}: link to {} went down; dialling it again in the background", node.name(), port, peer);
                            }
                            // the waits start again only after a link that came up: one its peer refuses at the hello
                            // (a slot counted in other blocks) is an attempt that failed, not one dialled at 50 ms for ever
                            if (LiveNode.cameUp(f.channel())) {
                                failures = 0;
                            }
                            again();
                        });
                    });
        }

        /** Attempts since the link was last up, read on its node's event loop (for tests). */
        int failures() throws Exception {
            return node.eventLoop().submit(() -> failures).get();
        }

        private void again() {
            if (cut || closing) {
                return;
            }
            long wait = Math.min(REDIAL_MAX_MS, REDIAL_FIRST_MS << Math.min(failures, 10));
            failures++;
            try {
                node.eventLoop().schedule(this::dial, wait, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) { // the loops are stopping
                LOG.debug("{}: port {}: not dialled again, the event loop has stopped", node.name(), port);
            }
        }

        /** Takes the link down and stops dialling it (fault injection); {@link DataLinks#cable} cables it again. */
        public void cut() {
            cut = true;
            synchronized (cables) {
                cables.remove(this);
            }
            Channel c = channel;
            if (c != null) {
                c.close();
            }
        }
    }

    /** {@code HOST:PORT} as a TCP address. */
    public static InetSocketAddress tcpAddress(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("'" + hostPort + "' is not HOST:PORT");
        }
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    void pipeline(Channel ch, LinkHandler handler) {
        all.add(ch);
        ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(Frames.MAX_FRAME, 0, Frames.LENGTH_FIELD, 0, 0), handler);
    }

    /** Closes every data link, cabled ones not dialled again (the event loops keep running, for the nodes to release what they hold). */
    public void closeChannels() {
        closing = true;
        all.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        closing = true;
        List<Cable> all;
        synchronized (cables) {
            all = List.copyOf(cables);
        }
        all.forEach(Cable::cut);
        closeChannels();
        synchronized (servers) {
            servers.forEach(Channel::close);
        }
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
