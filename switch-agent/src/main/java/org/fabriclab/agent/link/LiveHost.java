package org.fabriclab.agent.link;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.HostCore;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.proto.v1.PortState;

/**
 * A host: its NIC's {@link HostCore} driven live, a traffic source and a sink. The source fills the
 * NIC's send queue from a token bucket at the configured rate (every {@link #TICK_NS} and after
 * every event), only while the host's port is ACTIVE and it has a LID. The sink counts, per source
 * LID, packets and bytes delivered, packets out of order and latency. Confined to its event loop.
 */
public final class LiveHost extends LiveNode implements HostCore.Output {
    static final long TICK_NS = 100_000;
    private static final int SEND_QUEUE = 16;
    /** Per-LID arrays start this long and double when a higher LID shows up (never per packet in steady state). */
    private static final int INITIAL_LIDS = 64;
    private final HostCore core;
    private final ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    private int[] nextSeq = new int[INITIAL_LIDS];
    private final org.fabriclab.agent.core.FlowSink sink = new org.fabriclab.agent.core.FlowSink();
    private Traffic traffic;
    private SplittableRandom random;
    private int nextDest;
    private long sent;
    private double tokens;
    private long lastFill;
    private ScheduledFuture<?> ticker;

    public LiveHost(EventLoop loop, ManagedNode mgmt, int vls, int bufferPackets, double rateGbps, String endpoint) {
        super(loop, mgmt, vls, bufferPackets, new double[] {0, rateGbps}, endpoint, vls * SEND_QUEUE + bufferPackets * vls + 1);
        core = new HostCore(vls, SEND_QUEUE, mgmt.counters(), pool, this);
        mgmt.flowSource(() -> {
            CompletableFuture<java.util.List<org.fabriclab.agent.core.FlowSink.Flow>> f = new CompletableFuture<>();
            execute(() -> f.complete(sink.flows()));
            return f;
        });
    }

    /** Starts (or replaces) the traffic this host sends; safe from any thread. The source wakes every {@link #TICK_NS} or more. */
    public void start(Traffic t) {
        execute(() -> {
            traffic = t;
            random = new SplittableRandom(t.seed());
            sent = 0;
            tokens = 0;
            lastFill = System.nanoTime();
            if (ticker != null) {
                ticker.cancel(false);
            }
            // wake about every four packets' time at the offered rate (100 us .. 10 ms): a thousand
            // hosts on two threads must not spend the cores waking up
            double packetNs = t.rateGbps() > 0 ? (Frames.DATA_HEADER + t.payloadBytes()) * 8 / t.rateGbps() : 0;
            long tick = Math.max(TICK_NS, Math.min(10_000_000L, (long) (4 * packetNs)));
            ticker = loop.scheduleAtFixedRate(() -> {
                long now = System.nanoTime();
                fill(now);
                drain(now);
            }, tick, tick, TimeUnit.NANOSECONDS);
        });
    }

    /** Stops sending; packets already queued still go. Safe from any thread. */
    public void stop() {
        execute(() -> {
            traffic = null;
            if (ticker != null) {
                ticker.cancel(false);
                ticker = null;
            }
        });
    }

    /**
     * What this host sent, and what its sink has seen from every source: {@code outOfOrder} counts
     * packets older than one already received (reordering), {@code missing} the sequence numbers
     * skipped (lost packets, less those that arrived late).
     */
    public record Stats(long sent, long received, long receivedBytes, long outOfOrder, long missing, long latencyNsSum) {
    }

    /** Totals over every source; answered on the event loop. */
    public CompletableFuture<Stats> stats() {
        CompletableFuture<Stats> f = new CompletableFuture<>();
        execute(() -> {
            var t = sink.totals();
            f.complete(new Stats(sent, t.packets(), t.bytes(), t.outOfOrder(), t.missing(), t.latencyNsSum()));
        });
        return f;
    }

    /** Packets received from source LID {@code slid}; answered on the event loop. */
    public CompletableFuture<long[]> receivedFrom(int slid) {
        CompletableFuture<long[]> f = new CompletableFuture<>();
        execute(() -> f.complete(sink.from(slid)));
        return f;
    }

    private void fill(long now) {
        Traffic t = traffic;
        if (t == null) {
            return;
        }
        ManagedNode.Port p = mgmt.port(1);
        if (p.state() != PortState.PORT_STATE_ACTIVE || p.lid() == 0) {
            lastFill = now;
            return;
        }
        int frameBytes = Frames.DATA_HEADER + t.payloadBytes();
        if (t.rateGbps() > 0) {
            tokens = Math.min(tokens + (now - lastFill) * t.rateGbps() / (8.0 * frameBytes), 2 * SEND_QUEUE);
        } else {
            tokens = SEND_QUEUE;
        }
        lastFill = now;
        int slid = p.lid();
        while (tokens >= 1 && core.canOffer(0) && (t.packets() == 0 || sent < t.packets())) {
            int dlid = t.pattern() == Traffic.Pattern.UNIFORM ? t.destinations()[random.nextInt(t.destinations().length)]
                    : t.destinations()[nextDest++ % t.destinations().length];
            int h = pool.allocate();
            if (h == PacketPool.NONE) {
                return;
            }
            if (dlid >= nextSeq.length) {
                nextSeq = java.util.Arrays.copyOf(nextSeq, Math.max(dlid + 1, nextSeq.length * 2));
            }
            int seq = nextSeq[dlid]++;
            long route = mgmt.sourceRoute(dlid);
            ByteBuf f = Frames.data(alloc, 0, 0, dlid, slid, (slid << 16) | dlid, seq, now, route, t.payloadBytes());
            pool.vl(h, 0);
            pool.sl(h, 0);
            pool.hops(h, 0);
            pool.dlid(h, dlid);
            pool.slid(h, slid);
            pool.seq(h, seq);
            pool.route(h, route);
            pool.bytes(h, frameBytes);
            pool.payload[h] = f;
            core.offer(h, now);
            sent++;
            tokens -= 1;
        }
    }

    @Override
    public void transmit(int vl, int h, long now) {
        send(1, vl, h, now);
    }

    @Override
    public void returnCredit(int vl, long now) {
        owe(1, vl);
    }

    @Override
    public void delivered(int h, long now) {
        sink.record(pool.slid(h), pool.seq(h), pool.bytes(h), now - pool.timestamp(h));
        drop(h);
    }

    @Override
    protected void packetArrivedCore(int port, int h, long now) {
        core.packetArrived(h, now);
    }

    @Override
    protected void creditReturnedCore(int port, int vl, int count, long now) {
        core.creditReturned(vl, count, now);
        fill(now);
    }

    @Override
    protected void linkFreeCore(int port, long now) {
        core.linkFree(now);
        fill(now);
    }

    @Override
    protected void portActiveCore(int port, int peerBufferPackets, long now) {
        core.portActive(peerBufferPackets, now);
    }

    @Override
    protected void portDownCore(int port, long now) {
        core.portDown(now);
    }
}
