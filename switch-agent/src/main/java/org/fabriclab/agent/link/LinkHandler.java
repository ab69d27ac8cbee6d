package org.fabriclab.agent.link;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.channels.ClosedChannelException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One data link's inbound side: hands decoded frames to the node that owns the channel. The
 * channel runs on the node's event loop, so the node's state is touched by one thread only.
 * Buffer ownership: a DATA frame passes to the node (which forwards or releases it); CREDIT and
 * HELLO frames are released here.
 */
final class LinkHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(LinkHandler.class);
    private final LiveNode node;
    /** Our port on this link; 0 on an accepted channel until the peer's hello names it. */
    private int port;
    private final int peerPort;

    /** A link we open: we know our port and the peer's. */
    LinkHandler(LiveNode node, int port, int peerPort) {
        this.node = node;
        this.port = port;
        this.peerPort = peerPort;
    }

    /** A link the peer opened: its hello tells us which port it is. */
    LinkHandler(LiveNode node) {
        this(node, 0, 0);
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (port != 0) {
            ctx.writeAndFlush(node.helloFor(port, peerPort, ctx.alloc()));
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf f = (ByteBuf) msg;
        int missing = Frames.missingBytes(f);
        if (missing > 0) {
            // a peer that sent a truncated frame: dropped whole, before any of it is read (nothing taken, nothing changed),
            // and counted as a receive error of the port (before the hello names it, the link is no port's yet: logged only)
            if (port != 0) {
                node.rcvError(port);
            }
            LOG.warn("{}: port {}: dropping a malformed frame of {} bytes (type {}), {} bytes short of its type's fields; is the peer"
                    + " a fabriclab node of this version?", node.name(), port, f.readableBytes(),
                    f.readableBytes() > Frames.TYPE ? f.getByte(f.readerIndex() + Frames.TYPE) : "none", missing);
            f.release();
            return;
        }
        byte type = f.getByte(f.readerIndex() + Frames.TYPE);
        if (type == Frames.DATA && port != 0) {
            node.dataArrived(port, f);
            return;
        }
        try {
            if (type == Frames.CREDIT && port != 0) {
                int i = f.readerIndex();
                if (f.readableBytes() > Frames.CREDIT_FEEDBACK) {
                    int n = f.getUnsignedByte(i + Frames.CREDIT_FEEDBACK);
                    if (f.readableBytes() < Frames.CREDIT_FEEDBACK + 1 + n * Frames.FEEDBACK_BYTES) {
                        node.rcvError(port); // truncated too: short of the feedback it announces
                        LOG.warn("{}: port {}: dropping a credit frame of {} bytes that announces {} feedback messages", node.name(), port,
                                f.readableBytes(), n);
                        return;
                    }
                    node.creditArrived(port, f.getUnsignedByte(i + 5), f.getUnsignedShort(i + 6), f, i + Frames.CREDIT_FEEDBACK + 1, n);
                } else {
                    node.creditArrived(port, f.getUnsignedByte(i + 5), f.getUnsignedShort(i + 6));
                }
            } else if (type == Frames.HELLO) {
                Hello h = Hello.decode(f);
                if (port == 0) {
                    int named = h.peerPort();
                    LiveNode.Accepted a = node.acceptLink(named, ctx.channel(), h);
                    if (a == LiveNode.Accepted.REFUSED) {
                        // the port is another cable's, or none: the frames still to come in this read are no port's
                        ctx.close();
                        return;
                    }
                    ChannelFuture sent = ctx.writeAndFlush(node.helloFor(named, h.port(), ctx.alloc()));
                    if (a == LiveNode.Accepted.OTHER_BLOCKS) {
                        sent.addListener(ChannelFutureListener.CLOSE); // the peer refuses our hello in turn, naming both counts
                    } else {
                        port = named;
                    }
                } else if (!node.linkUp(port, ctx.channel(), h)) {
                    ctx.close();
                }
            } else if (port != 0) {
                node.rcvError(port); // a type no fabriclab link sends
                LOG.warn("{}: port {}: dropping a frame of unknown type {}; is the peer a fabriclab node of this version?", node.name(),
                        port, type);
            } else {
                LOG.warn("{}: port {}: dropping a frame of type {} before the link-level hello", node.name(), port, type);
            }
        } finally {
            f.release();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        node.flush();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (port != 0) {
            node.linkLost(port, ctx.channel());
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof ClosedChannelException) {
            // a frame written (with the void promise) to a link that has gone: it is lost, count it
            if (port != 0) {
                node.lostOnLink(port);
            }
            LOG.debug("{}: port {}: write on a closed data link", node.name(), port);
            return;
        }
        LOG.warn("{}: port {}: data link failed, closing it: {}", node.name(), port, cause.toString());
        ctx.close();
    }
}
