package org.fabriclab.agent.link;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.util.AttributeKey;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.CreditBlocks;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.PortCounterArray.DiscardReason;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives a node's core from Netty in model time ({@link ModelClock}: the wall clock slowed by the
 * time dilation D): the live agent's half of "one core, two clocks". Everything here runs on the
 * node's {@link EventLoop} (its channels are registered on it and management calls reach it
 * through {@link #execute}), so no state is locked.
 *
 * <p>Per event the driver calls the core, then {@link #drain}s what the core asked for: links
 * whose transmission time has passed are freed (not from inside the core's own call, so the core
 * is never re-entered), credits owed upstream go out coalesced into one CREDIT frame per port and
 * lane, and every channel written to is flushed once, in a task of its own (see {@link #flush}). The shaper keeps each output link busy for
 * its frame's bytes at the link's rate; a link more than {@link #SLACK_NS} ahead of wall time
 * waits for one scheduled wake-up instead of a task per packet.
 *
 * <p>A link with a propagation delay (the longer of the two ends' {@link #linkLatencyNs}) holds
 * each frame, data and credits alike, on a per-port {@link Wire} until its last bit has crossed:
 * the end of its transmission plus the delay; one scheduled delivery per port releases what is
 * due. Wall-clock timers fire late by tens of microseconds, so the live plane honours delays of
 * that order and longer; the simulator's virtual clock is exact. Without a delay frames are
 * written at once, as before.
 *
 * <p>Every time the core sees is model time; every timer (a link's wake-up, a delivery, a host's
 * tick) waits the model interval times D in wall time, so a dilated fabric carries its model rates
 * in model time whatever the machine's speed, as long as the loops keep up. Whether they do is
 * measured: a link's wake-up or delivery that fires after its model time records the lateness as
 * the link's lag, and the loop's {@link LagProbe} its own; both are read by {@link #management()}'s
 * {@link ManagedNode.Emulation}.
 */
public abstract class LiveNode {
    private static final Logger LOG = LoggerFactory.getLogger(LiveNode.class);
    /** How far a link may run ahead of wall time before the driver waits for it. */
    static final long SLACK_NS = 2_000;
    /**
     * How far behind its schedule a link may fall and still catch up: a wake-up that fires late
     * (Netty's timers are tens of microseconds late) must not cost the link its rate, so the next
     * frame starts where the last one ended, not at the late wake-up, if that was at most this
     * long ago. A link idle for longer starts afresh; so a link never sends more than its rate
     * allows over any interval, give or take this much.
     */
    static final long CATCH_UP_NS = 200_000;

    protected final EventLoop loop;
    protected final ManagedNode mgmt;
    protected final PacketPool pool;
    protected final int ports;
    protected final int vls;
    protected final int bufferPackets;
    /** The credit unit of this node's links: blocks per slot of the largest frame the fabric carries. */
    protected final CreditBlocks blocks;
    private final double[] rateGbps;
    private final String endpoint;
    private final Channel[] channels;
    private final double[] nsPerByte;
    private final long[] busyUntil;
    private final Runnable[] wakeUp;
    private final boolean[] wakeUpScheduled;
    private final int[] freeList;
    private final boolean[] freePending;
    private int freeCount;
    private final int[] credits;
    private final int[] creditList;
    private int creditCount;
    /** Q-adaptive feedback owed upstream in this event, by port (0 once sent), row and value. */
    private int[] feedbackPort = new int[16];
    private int[] feedbackRow = new int[16];
    private float[] feedbackValue = new float[16];
    private int feedbackCount;
    private final int[] feedbackScratchRow = new int[Frames.MAX_FEEDBACK];
    private final float[] feedbackScratchValue = new float[Frames.MAX_FEEDBACK];
    private final boolean[] dirty;
    private final int[] dirtyList;
    private int dirtyCount;
    private boolean flushScheduled;
    private final Runnable flushTask = this::flushNow;
    private long latencyNs;
    /** Per port, a delay of its own for its link, or -1: the node's. */
    private final long[] ownLatencyNs;
    private final long[] portLatencyNs;
    private final Wire[] wires;
    private ModelClock clock = ModelClock.SYSTEM;
    private LagProbe probe;
    /** The last model time read: never runs backwards, even across a change of dilation on another thread. */
    private long lastNow;
    /** Per slot of {@link #probe}, the worst link lag (model ns) and its port. */
    private final long[] linkLag = new long[LagProbe.SLOTS];
    private final int[] linkLagPort = new int[LagProbe.SLOTS];

    /**
     * The credit unit of a live fabric by default: slots of the largest frame a link carries
     * ({@link FrameSizes#MAX_FRAME}), and header-only control packets (a block each).
     */
    public static final CreditBlocks FABRIC_BLOCKS = CreditBlocks.of(FrameSizes.MAX_FRAME, FrameSizes.DATA_HEADER);

    /**
     * The handles a pool of {@code poolSize} grows to for buffers whose blocks hold {@code mostPackets}
     * (counted in {@code long}): at least its size, at most one pool's {@link PacketPool#MAX_CAPACITY}.
     * A switch of many ports and lanes with large buffers of large slots (254 x 15 x 2,048 of 65 blocks
     * holds 507 million ACKs) grows no further than a pool can, rather than refusing to start.
     */
    static int poolLimit(int poolSize, long mostPackets) {
        return (int) Math.min(PacketPool.MAX_CAPACITY, Math.max(poolSize, mostPackets));
    }

    /**
     * A node with {@code poolSize} packet handles, growing up to {@code poolLimit} where its buffers'
     * blocks hold more small packets than their slots ({@link #poolLimit}).
     */
    protected LiveNode(EventLoop loop, ManagedNode mgmt, int vls, int bufferPackets, CreditBlocks blocks, double[] rateGbps,
                       String endpoint, int poolSize, long poolLimit) {
        this.loop = loop;
        this.mgmt = mgmt;
        mgmt.countersOwner(loop);
        this.ports = mgmt.identity().ports();
        this.vls = vls;
        this.bufferPackets = bufferPackets;
        this.blocks = blocks;
        this.rateGbps = rateGbps.clone();
        this.endpoint = endpoint;
        this.pool = new PacketPool(poolSize, poolLimit(poolSize, poolLimit));
        channels = new Channel[ports + 1];
        nsPerByte = new double[ports + 1];
        busyUntil = new long[ports + 1];
        wakeUp = new Runnable[ports + 1];
        wakeUpScheduled = new boolean[ports + 1];
        for (int p = 1; p <= ports; p++) {
            int port = p;
            wakeUp[p] = () -> {
                wakeUpScheduled[port] = false;
                long now = now();
                if (busyUntil[port] > 0) { // 0: the link came up again since the wake-up was set
                    lag(port, now - busyUntil[port]);
                }
                linkFreeCore(port, now);
                drain(now);
            };
        }
        freeList = new int[ports + 1];
        freePending = new boolean[ports + 1];
        credits = new int[(ports + 1) * vls];
        creditList = new int[(ports + 1) * vls];
        dirty = new boolean[ports + 1];
        dirtyList = new int[ports + 1];
        portLatencyNs = new long[ports + 1];
        ownLatencyNs = new long[ports + 1];
        Arrays.fill(ownLatencyNs, -1);
        wires = new Wire[ports + 1];
        modelClock(clock);
        mgmt.emulation(new ManagedNode.Emulation() {
            @Override
            public CompletableFuture<ManagedNode.EmulationState> state(long windowMillis) {
                CompletableFuture<ManagedNode.EmulationState> f = new CompletableFuture<>();
                execute(() -> f.complete(emulationState(LagProbe.slots(windowMillis))));
                return f;
            }

            @Override
            public void dilation(double d) {
                clock.dilation(d);
            }

            @Override
            public void anchor(long modelNs, long wallNs, double d) {
                clock.adopt(new ModelClock.Anchor(modelNs, wallNs, d));
            }
        });
    }

    /**
     * Runs this node on {@code c} (the fabric's shared model clock) instead of the JVM's
     * {@link ModelClock#SYSTEM}; counters read by management are stamped with it. Set it before
     * the links come up.
     */
    public void modelClock(ModelClock c) {
        clock = c;
        mgmt.modelClock(c::nanos);
    }

    /** The model clock this node runs on. */
    public ModelClock modelClock() {
        return clock;
    }

    /** Model time now, never before the last read. */
    final long now() {
        long t = clock.nanos();
        if (t > lastNow) {
            lastNow = t;
        }
        return lastNow;
    }

    /** Records a frame of {@code port} late by {@code ns} of model time (event loop only). */
    final void lag(int port, long ns) {
        int i = probe.index;
        if (ns > linkLag[i]) {
            linkLag[i] = ns;
            linkLagPort[i] = port;
        }
    }

    /** The probe moved on to slot {@code i}: what it held is forgotten. */
    void clearLagSlot(int i) {
        linkLag[i] = 0;
        linkLagPort[i] = 0;
    }

    private ManagedNode.EmulationState emulationState(int slots) {
        if (probe == null) { // no link has come up: nothing has been late
            ModelClock.Anchor a = clock.anchor();
            return new ManagedNode.EmulationState(a.dilation(), clock.nanos(), 0, 0, 0, LagProbe.BOUND_NS, a.modelNs(), a.wallNs());
        }
        long worst = 0;
        int port = 0;
        for (int b = 0; b < slots; b++) {
            int i = probe.indexBack(b);
            if (linkLag[i] > worst) {
                worst = linkLag[i];
                port = linkLagPort[i];
            }
        }
        ModelClock.Anchor a = clock.anchor();
        return new ManagedNode.EmulationState(a.dilation(), clock.nanos(), probe.loopLag(slots), worst, port,
                LagProbe.BOUND_NS, a.modelNs(), a.wallNs());
    }

    /**
     * The propagation delay of this node's links, from their next hello on (a link takes the
     * longer of its two ends' delays). Set it before the links come up; 0 (the default) is none.
     */
    public void linkLatencyNs(long ns) {
        if (ns < 0 || ns > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("link latency " + ns + " ns is out of range 0.." + Integer.MAX_VALUE);
        }
        latencyNs = ns;
    }

    /**
     * The propagation delay of the link on {@code port} alone (a topology's own cable: a Dragonfly's
     * local and global links), from its next hello on; a port without one takes the node's.
     */
    public void linkLatencyNs(int port, long ns) {
        if (ns < 0 || ns > Integer.MAX_VALUE || port < 1 || port > ports) {
            throw new IllegalArgumentException("link latency " + ns + " ns of port " + port + " is out of range 0.." + Integer.MAX_VALUE);
        }
        ownLatencyNs[port] = ns;
    }

    /** The delay this end of {@code port}'s link says in its hello. */
    private long ownLatencyNs(int port) {
        return ownLatencyNs[port] >= 0 ? ownLatencyNs[port] : latencyNs;
    }

    /** The propagation delay of the link on {@code port} as agreed by the hello (event loop only). */
    long portLatencyNs(int port) {
        return portLatencyNs[port];
    }

    public String name() {
        return mgmt.identity().description();
    }

    public ManagedNode management() {
        return mgmt;
    }

    public EventLoop eventLoop() {
        return loop;
    }

    public PacketPool pool() {
        return pool;
    }

    public PortCounterArray counters() {
        return mgmt.counters();
    }

    /**
     * Releases every frame the node still holds (packets queued in its core, frames on its links'
     * delay lines), as the node stops: their buffers are Netty's, and a frame never sent would
     * otherwise never be released. Runs on the node's loop and waits for it; call it once the
     * node's channels are closed (nothing arrives any more).
     */
    public void releaseFrames() {
        if (loop.isShuttingDown()) {
            return;
        }
        loop.submit(() -> {
            for (Wire w : wires) {
                if (w != null) {
                    w.lose();
                }
            }
            for (int h = 0; h < pool.payload.length; h++) {
                if (pool.payload[h] instanceof ByteBuf f) {
                    pool.payload[h] = null;
                    f.release();
                }
            }
        }).awaitUninterruptibly(5, TimeUnit.SECONDS);
    }

    /** Runs {@code task} on the node's event loop; a task for a node whose loop has shut down is dropped. */
    /**
     * Runs {@code event} on the event loop as an event of its own, as a frame's arrival is one: the
     * links it freed, the credits it owed and the frames it wrote are flushed after it ({@link
     * #drain}). A task that sends must be run so: posted with {@link #execute} alone, a frame it
     * writes on a link without delay waits for the node's next event, and a node with none coming
     * (a closed loop's first message) waits for ever.
     */
    void executeEvent(Runnable event) {
        execute(() -> {
            event.run();
            drain(now());
        });
    }

    public void execute(Runnable task) {
        if (loop.isShuttingDown()) {
            return;
        }
        try {
            loop.execute(task);
        } catch (RejectedExecutionException e) {
            LOG.debug("{}: event loop has shut down; task dropped", name());
        }
    }

    /** The channel of {@code port}, or null if the link is down (event loop only). */
    Channel channel(int port) {
        return channels[port];
    }

    ByteBuf helloFor(int port, int peerPort, ByteBufAllocator alloc) {
        return Frames.hello(alloc, mgmt.identity().guid(), port, peerPort, vls, bufferPackets,
                (int) Math.round(rateGbps[port] * 1000), (int) ownLatencyNs(port), blocks.slotBlocks(), endpoint);
    }

    /** Set on a channel whose link came up (both hellos taken): {@link #cameUp}. */
    private static final AttributeKey<Boolean> CAME_UP = AttributeKey.valueOf("fabriclab.linkCameUp");

    /** Whether {@code ch}'s link came up, rather than being refused at its hello ({@link DataLinks}' redial waits). */
    static boolean cameUp(Channel ch) {
        return Boolean.TRUE.equals(ch.attr(CAME_UP).get());
    }

    /** What {@link #acceptLink} made of an accepted link. */
    enum Accepted {
        /** The link is up: answer with our hello. */
        UP,
        /** Refused: close the link. */
        REFUSED,
        /**
         * Refused because the peer counts a buffer slot in other blocks: answer with our hello, then
         * close, so that the peer (which dialled, and would otherwise only see the link close and dial
         * again) names the disagreement on its side too.
         */
        OTHER_BLOCKS
    }

    /** An accepted link's hello named our {@code port}: up, or refused (and the link is closed) if that cannot be. */
    Accepted acceptLink(int port, Channel ch, Hello h) {
        if (port < 1 || port > ports) {
            LOG.warn("{}: a link from {} (port {}) names our port {}, which does not exist; closing it",
                    name(), h.endpoint(), h.port(), port);
            return Accepted.REFUSED;
        }
        if (channels[port] != null && channels[port].isActive()) {
            LOG.warn("{}: port {} is already cabled; refusing a second link from {}", name(), port, h.endpoint());
            return Accepted.REFUSED;
        }
        return linkUp(port, ch, h) ? Accepted.UP : Accepted.OTHER_BLOCKS;
    }

    /**
     * The peer's hello came back on {@code port}: the link is up, or, if the two ends count a buffer
     * slot in different blocks (their largest frames differ), false (and the link is closed):
     * credits counted one way and spent the other would overflow the smaller buffer.
     */
    boolean linkUp(int port, Channel ch, Hello h) {
        if (h.slotBlocks() != blocks.slotBlocks()) {
            LOG.warn("{}: port {}: {} (its port {}) counts a buffer slot as {} 64-byte blocks and this node as {}, so their"
                            + " credits would not agree; closing the link: give every node of the fabric the same largest frame (switch-agent --packet-bytes)",
                    name(), port, h.endpoint(), h.port(), h.slotBlocks(), blocks.slotBlocks());
            return false;
        }
        if (probe == null) {
            probe = clock.probe(loop);
            probe.add(this);
        }
        ch.attr(CAME_UP).set(Boolean.TRUE);
        channels[port] = ch;
        double gbps = Math.min(rateGbps[port], h.rateMbps() / 1000.0);
        nsPerByte[port] = gbps > 0 ? 8.0 / gbps : 0;
        busyUntil[port] = 0;
        portLatencyNs[port] = Math.max(ownLatencyNs(port), h.latencyNs());
        if (portLatencyNs[port] > 0 && wires[port] == null) {
            wires[port] = new Wire(port);
        }
        mgmt.linkUp(port, gbps, h.guid(), h.port(), h.endpoint());
        long now = now();
        portActiveCore(port, Math.min(h.bufferPackets(), bufferPackets), now);
        drain(now);
        return true;
    }

    void linkLost(int port, Channel ch) {
        if (channels[port] != ch) {
            return;
        }
        channels[port] = null;
        if (wires[port] != null) {
            wires[port].lose();
        }
        mgmt.linkDown(port);
        long now = now();
        portDownCore(port, now);
        for (int v = 0; v < vls; v++) {
            credits[port * vls + v] = 0;
        }
        drain(now);
    }

    /** Takes the link on {@code port} down from this side (fault injection); safe from any thread. */
    public void disconnect(int port) {
        execute(() -> {
            Channel c = channels[port];
            if (c != null) {
                c.close();
            }
        });
    }

    void dataArrived(int port, ByteBuf f) {
        long now = now();
        int h = pool.allocate();
        if (h == PacketPool.NONE) {
            // cannot happen while peers respect credits; count and drop rather than block the link. A buffer
            // overrun of the receiving port, which IBA counts in PortRcvErrors ("packets discarded due to
            // buffer overrun") on the port the packet arrived at; PortXmitDiscards are an output's drops
            rcvError(port);
            f.release();
            return;
        }
        int i = f.readerIndex();
        pool.vl(h, f.getByte(i + Frames.VL));
        pool.sl(h, f.getByte(i + Frames.SL));
        pool.hops(h, f.getUnsignedByte(i + Frames.HOPS));
        pool.mode(h, f.getByte(i + Frames.FLAGS) & Frames.MODE_MASK);
        pool.cc(h, Frames.ccBits(f));
        pool.dlid(h, f.getUnsignedShort(i + Frames.DLID));
        pool.slid(h, f.getUnsignedShort(i + Frames.SLID));
        pool.flow(h, f.getInt(i + Frames.FLOW));
        pool.seq(h, f.getInt(i + Frames.SEQ));
        pool.timestamp(h, f.getLong(i + Frames.TIMESTAMP));
        pool.route(h, f.getLong(i + Frames.ROUTE));
        pool.bytes(h, f.readableBytes());
        pool.payload[h] = f;
        packetArrivedCore(port, h, now);
        drain(now);
    }

    void creditArrived(int port, int vl, int count) {
        long now = now();
        takeCredits(port, vl, count, now);
        drain(now);
    }

    /** Credits and, after them, {@code n} Q-adaptive feedback messages read from frame {@code f} at {@code at}. */
    void creditArrived(int port, int vl, int count, ByteBuf f, int at, int n) {
        long now = now();
        if (count > 0) {
            takeCredits(port, vl, count, now);
        }
        for (int k = 0; k < n; k++) {
            qFeedbackCore(port, f.getInt(at + k * Frames.FEEDBACK_BYTES), f.getFloat(at + k * Frames.FEEDBACK_BYTES + 4), now);
        }
        drain(now);
    }

    /**
     * Gives the core {@code count} credits read from a CREDIT frame, unless it refuses them (a lane
     * it has not, or more than the peer's buffer holds: a peer that counts otherwise, or a corrupt
     * frame), which is counted as a receive error of the port ({@link #rcvError}), logged with the
     * reason, and leaves the credits as they were.
     */
    void takeCredits(int port, int vl, int count, long now) {
        String refused = refusedCreditCore(port, vl, count);
        if (refused != null) {
            rcvError(port);
            LOG.warn("{}: port {}: refusing a credit frame: {}", name(), port, refused);
            return;
        }
        creditReturnedCore(port, vl, count, now);
    }

    /**
     * A frame received on {@code port} was malformed or refused and dropped: counted in the port's
     * PortRcvErrors ({@link PortCounterArray#rcvError}), which management reports and the perf
     * manager exports, so that a long run's bad frames are seen without its log.
     */
    void rcvError(int port) {
        counters().rcvError(port);
    }

    /** A frame written to {@code port} was lost with its link (credit frames included: they are few, and lost too). */
    void lostOnLink(int port) {
        counters().discard(port, DiscardReason.LINK_LOST);
    }

    /** Core action: send packet {@code h} on {@code port}/{@code vl}; the frame is rewritten in place and written. */
    protected final void send(int port, int vl, int h, long now) {
        ByteBuf f = (ByteBuf) pool.payload[h];
        int bytes = pool.bytes(h);
        f.setByte(f.readerIndex() + Frames.VL, vl);
        f.setByte(f.readerIndex() + Frames.HOPS, pool.hops(h));
        Frames.ccBits(f, pool.cc(h));
        f.setLong(f.readerIndex() + Frames.ROUTE, pool.route(h)); // a Dragonfly's routing state changes on the way
        pool.release(h);
        Channel c = channels[port];
        long start = busyUntil[port] >= now - CATCH_UP_NS ? busyUntil[port] : now;
        busyUntil[port] = start + (long) (bytes * nsPerByte[port]);
        if (c == null) {
            counters().discard(port, DiscardReason.PORT_DOWN);
            f.release();
        } else if (portLatencyNs[port] > 0) {
            wires[port].carry(f, busyUntil[port] + portLatencyNs[port], now);
        } else {
            c.write(f, c.voidPromise());
            markDirty(port);
        }
        long ahead = clock.wallNanos(busyUntil[port] - now);
        if (ahead <= SLACK_NS) {
            if (!freePending[port]) {
                freePending[port] = true;
                freeList[freeCount++] = port;
            }
        } else if (!wakeUpScheduled[port]) {
            wakeUpScheduled[port] = true;
            loop.schedule(wakeUp[port], ahead - SLACK_NS, TimeUnit.NANOSECONDS);
        }
    }

    /** Core action: {@code n} credits (blocks) owed upstream on {@code port}/{@code vl}; sent coalesced at the end of the event. */
    protected final void owe(int port, int vl, int n) {
        int k = port * vls + vl;
        if (credits[k] == 0) {
            creditList[creditCount++] = k;
        }
        credits[k] += n;
    }

    /**
     * Core action: Q-adaptive feedback for the router upstream of {@code port}; it goes in the next
     * credit frame on that port (the packet's own credit, owed in the same event), as the paper
     * suggests embedding it in the credit-based flow control.
     */
    protected final void feedback(int port, int row, float value) {
        if (feedbackCount == feedbackPort.length) {
            feedbackPort = Arrays.copyOf(feedbackPort, feedbackCount * 2);
            feedbackRow = Arrays.copyOf(feedbackRow, feedbackCount * 2);
            feedbackValue = Arrays.copyOf(feedbackValue, feedbackCount * 2);
        }
        feedbackPort[feedbackCount] = port;
        feedbackRow[feedbackCount] = row;
        feedbackValue[feedbackCount] = value;
        feedbackCount++;
    }

    /** Core action: a packet could not be forwarded; its frame is released. */
    protected final void drop(int h) {
        Object f = pool.payload[h];
        if (f != null) {
            ((ByteBuf) f).release();
        }
        pool.release(h);
    }

    private void markDirty(int port) {
        if (!dirty[port]) {
            dirty[port] = true;
            dirtyList[dirtyCount++] = port;
        }
    }

    /** Frees links whose time has come, sends owed credits, flushes written channels. */
    protected final void drain(long now) {
        while (freeCount > 0) {
            int p = freeList[--freeCount];
            freePending[p] = false;
            linkFreeCore(p, now);
        }
        for (int i = 0; i < creditCount; i++) {
            int k = creditList[i];
            int port = k / vls;
            Channel c = channels[port];
            // a frame's count is 16 bits: more blocks than that (a large buffer freed in one event) go in more frames
            for (int owed = credits[k]; c != null && owed > 0; owed -= Frames.MAX_CREDIT_COUNT) {
                int n = Math.min(owed, Frames.MAX_CREDIT_COUNT);
                ByteBuf frame = feedbackCount == 0 ? Frames.credit(c.alloc(), k % vls, n) : creditWithFeedback(c, port, k % vls, n);
                sendControl(c, port, frame, now);
            }
            credits[k] = 0;
        }
        creditCount = 0;
        // feedback whose port owed no credit (none, while every feedback follows its packet's credit), or beyond one frame's room
        for (int i = 0; i < feedbackCount; i++) {
            Channel c = channels[feedbackPort[i]];
            if (feedbackPort[i] > 0 && c != null) {
                sendControl(c, feedbackPort[i], creditWithFeedback(c, feedbackPort[i], 0, 0), now);
            }
        }
        feedbackCount = 0;
        flush();
    }

    /** A control frame on {@code port}: across the link's delay when it has one. */
    private void sendControl(Channel c, int port, ByteBuf frame, long now) {
        if (portLatencyNs[port] > 0) {
            wires[port].carry(frame, now + portLatencyNs[port], now);
        } else {
            c.write(frame, c.voidPromise());
            markDirty(port);
        }
    }

    /**
     * A credit frame for {@code port}/{@code vl} carrying the port's pending feedback (up to a
     * frame's room); the messages taken are marked sent (port 0).
     */
    private ByteBuf creditWithFeedback(Channel c, int port, int vl, int count) {
        int n = 0;
        for (int i = 0; i < feedbackCount && n < Frames.MAX_FEEDBACK; i++) {
            if (feedbackPort[i] == port) {
                feedbackScratchRow[n] = feedbackRow[i];
                feedbackScratchValue[n] = feedbackValue[i];
                feedbackPort[i] = 0;
                n++;
            }
        }
        return Frames.credit(c.alloc(), vl, count, feedbackScratchRow, feedbackScratchValue, 0, n);
    }

    /**
     * Flushes the written channels in a task of its own, once per batch. Never inline: a
     * LocalChannel flush delivers to a peer on the same event loop synchronously, the peer may
     * answer on its own channel back to us, and a flush issued from inside our channel's flush is
     * skipped by Netty (the channel is already flushing), leaving the answer in the outbound buffer
     * with nothing left to flush it. A deferred flush cannot nest.
     */
    void flush() {
        if (dirtyCount > 0 && !flushScheduled) {
            flushScheduled = true;
            loop.execute(flushTask);
        }
    }

    private void flushNow() {
        flushScheduled = false;
        for (int i = 0; i < dirtyCount; i++) {
            int p = dirtyList[i];
            dirty[p] = false;
            Channel c = channels[p];
            if (c != null) {
                c.flush();
            }
        }
        dirtyCount = 0;
    }

    /**
     * The frames crossing one port's link with a propagation delay, in order, each with the time
     * its last bit arrives; a ring that grows only when more are in flight than ever before.
     */
    private final class Wire implements Runnable {
        private final int port;
        private ByteBuf[] frames = new ByteBuf[16];
        private long[] due = new long[16];
        private int head;
        private int size;
        private boolean scheduled;

        Wire(int port) {
            this.port = port;
        }

        /** Puts {@code f} on the wire to arrive at {@code at} (never before a frame sent earlier). */
        void carry(ByteBuf f, long at, long now) {
            if (size == frames.length) {
                grow();
            }
            int tail = (head + size) & (frames.length - 1);
            long previous = size == 0 ? 0 : due[(tail - 1) & (frames.length - 1)];
            frames[tail] = f;
            due[tail] = Math.max(at, previous);
            size++;
            schedule(now);
        }

        /** Delivers every frame that has arrived, then waits for the next. */
        @Override
        public void run() {
            scheduled = false;
            long now = now();
            Channel c = channels[port];
            while (size > 0 && due[head] <= now) {
                lag(port, now - due[head]);
                ByteBuf f = frames[head];
                frames[head] = null;
                head = (head + 1) & (frames.length - 1);
                size--;
                if (c == null) {
                    f.release();
                } else {
                    c.write(f, c.voidPromise());
                    markDirty(port);
                }
            }
            schedule(now);
            flush();
        }

        private void schedule(long now) {
            if (size > 0 && !scheduled) {
                scheduled = true;
                loop.schedule(this, Math.max(0, clock.wallNanos(due[head] - now)), TimeUnit.NANOSECONDS);
            }
        }

        /** The link went down: what was on it is lost (data frames counted as discards). */
        void lose() {
            while (size > 0) {
                ByteBuf f = frames[head];
                frames[head] = null;
                head = (head + 1) & (frames.length - 1);
                size--;
                if (f.getByte(f.readerIndex() + Frames.TYPE) == Frames.DATA) {
                    counters().discard(port, DiscardReason.LINK_LOST);
                }
                f.release();
            }
        }

        private void grow() {
            ByteBuf[] f = new ByteBuf[frames.length * 2];
            long[] d = new long[frames.length * 2];
            for (int i = 0; i < size; i++) {
                f[i] = frames[(head + i) & (frames.length - 1)];
                d[i] = due[(head + i) & (frames.length - 1)];
            }
            frames = f;
            due = d;
            head = 0;
        }
    }

    protected abstract void packetArrivedCore(int port, int h, long now);

    protected abstract void creditReturnedCore(int port, int vl, int count, long now);

    /** Why the core refuses {@code count} credits for {@code port}/{@code vl}, or null. */
    protected abstract String refusedCreditCore(int port, int vl, int count);

    protected abstract void linkFreeCore(int port, long now);

    protected abstract void portActiveCore(int port, int peerBufferPackets, long now);

    protected abstract void portDownCore(int port, long now);

    /** Q-adaptive feedback arrived on {@code port} from the router downstream of it. */
    protected abstract void qFeedbackCore(int port, int row, float value, long now);
}
