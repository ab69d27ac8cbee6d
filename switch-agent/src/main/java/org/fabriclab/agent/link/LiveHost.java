package org.fabriclab.agent.link;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.fabriclab.agent.core.AppAwareRouting;
import org.fabriclab.agent.core.Arrivals;
import org.fabriclab.agent.core.ClosedLoop;
import org.fabriclab.agent.core.CongestionControl;
import org.fabriclab.agent.core.CreditBlocks;
import org.fabriclab.agent.core.FlowSink;
import org.fabriclab.agent.core.HostCore;
import org.fabriclab.agent.core.HostPolicy;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.SourceQueue;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.routing.dragonfly.DragonflyHeader;
import org.fabriclab.routing.dragonfly.RoutingMode;

/**
 * A host: its NIC's {@link HostCore} and its traffic decisions' {@link HostPolicy} (the same the
 * simulator runs), driven live, and a {@link FlowSink}. The source creates packets by the
 * policy's arrival process (Poisson by default) at the offered rate into its source queue, caught
 * up every tick (about four packets' time, {@link #TICK_NS} or more) and after every event, only
 * while the host's port is ACTIVE and it has a LID; the NIC takes them as its send queue has room.
 * Each packet gets its destination, sequence number and SL from the policy and its source route
 * from the node's table (the daemon's WriteSourceRoutes). The sink counts, per source LID,
 * packets and bytes delivered, packets out of order, packets missing and latency (with
 * percentiles). Confined to its event loop.
 *
 * <p>Wire use: a frame's {@code seq} is the sender's one counter over all its destinations; its
 * {@code flow} field carries the packet's number within its pair, from which the sink counts loss.
 * With congestion control (a constructor's {@link CongestionControl.Settings}; none by default) a
 * DATA frame's timestamp is rewritten to its NIC send time as it leaves, so that the receiver can
 * echo it in its ACK (the sink's latencies are then counted from the NIC, not from the source
 * queue), and the congestion-control bits ride in the high nibble of the frame's flags byte
 * ({@link Frames#FLAGS}); control packets are DATA frames without payload.
 *
 * <p>A job's host ({@link Traffic#job}): its source creates a message's packets together (the
 * arrival process spaces messages, at the job's rate), all to one rank; with application-aware
 * routing each message's mode is chosen from this NIC's counters, as in the simulator. As a
 * receiver it counts in its node counters ({@link PortCounterArray#JOB_MESSAGES} and the three
 * after it) the job's messages received whole and their completion times, its packets and those
 * routed non-minimally: a message is {@code seq / messagePackets} of its sender (the sender starts
 * its job's numbers at a message boundary), tracked in {@link #MESSAGE_SLOTS} slots per source.
 *
 * <p>A closed-loop job's host ({@link Traffic#loop}): no arrivals; it sends a whole message when
 * its job's {@link LiveLoop} says so (the job's {@code ClosedLoop}, the simulator's), which it
 * tells of every message of its job it has received whole; rank 0's host counts the job's
 * iterations in its node counters ({@link PortCounterArray#JOB_ITERATIONS} and the one after). A
 * message the source queue refuses (full) is not lost, as an open loop's is: the loop would wait
 * for it for ever. It waits in {@link #deferred}, in order, and is queued when the queue has room
 * (at the NIC's next credit or link event), counted ({@link PortCounterArray#JOB_REFUSED_MESSAGES})
 * and the first of the job's logged ({@link LiveLoop#refused}). The simulator throws instead: it
 * cannot happen to a job the command lines accept ({@code ClosedLoop.messagesQueuedAtOnce}).
 * As a receiver a job's host also counts its job's packets by the routing mode they asked for
 * ({@link PortCounterArray#JOB_MODE_PACKETS}): what application-aware routing chose.
 *
 * <p>The NIC's round trips ({@code NicCounters}): a data packet this host receives is answered
 * through {@link LiveResponses} (the other host's event loop hands the sample to this one, {@link
 * #responseCame}), and its own are counted from their NIC send, which it keeps by the frame's
 * {@code seq} for its last {@link #OUTSTANDING} packets (Aries' outstanding packets: a frame
 * carries its creation time, not its NIC send, unless congestion control rewrites it); a response
 * to an older packet is not counted. It asks its loop to wake when a response is due, so that the
 * counters the management endpoint reads are current.
 */
public final class LiveHost extends LiveNode implements HostCore.Output {
    static final long TICK_NS = 100_000;
    private static final int SEND_QUEUE = 16;
    /** Per-LID arrays start this long and double when a higher LID shows up (never per packet in steady state). */
    private static final int INITIAL_LIDS = 64;
    /** A job's messages per source tracked in delivery at once (a later one takes the slot of one still incomplete: lost track of). */
    static final int MESSAGE_SLOTS = 8;
    private final HostCore core;
    private final ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    private final PortCache port;
    /** Per destination LID, the number of the next packet of the pair (for the receiver's loss count). */
    private int[] pairSeq = new int[INITIAL_LIDS];
    private final FlowSink sink = new FlowSink();
    /** Per source LID, per slot: one more than the number of the message it tracks (0: none), its packets still to come, its start. */
    private long[] slotMessage = new long[INITIAL_LIDS * MESSAGE_SLOTS];
    private int[] slotLeft = new int[INITIAL_LIDS * MESSAGE_SLOTS];
    private long[] slotStart = new long[INITIAL_LIDS * MESSAGE_SLOTS];
    /** Packets per message of this host's job (what it receives of it too); 0: no job. */
    private int jobMessagePackets;
    private Traffic traffic;
    /** A closed-loop job's loop, this host's rank in it and its answers to carry out; null: open loop. */
    private LiveLoop closedLoop;
    private int rank;
    private LiveLoop.Answers answers;
    /**
     * A closed-loop job's messages the source queue refused, by destination rank and the time the
     * loop sent them (their creation: the wait counts in their completion time), oldest at {@link
     * #deferredHead}, {@link #deferredCount} of them: rings sized for the most the loop queues at
     * once, grown (rarely) if more wait.
     */
    private int[] deferred = new int[0];
    private long[] deferredAt = new long[0];
    private int deferredHead;
    private int deferredCount;
    /** A closed-loop job's ranks by LID (-1: none): who sent a message received. */
    private int[] rankOfLid = new int[0];
    /** Stopped: no new packets are created, but those already made (queued or held) still go. */
    private boolean stopped;
    private HostPolicy policy;
    private double meanGapNs;
    private long nextArrival;
    private long created;
    private long sent;
    private ScheduledFuture<?> ticker;
    /** Congestion control's wake-up: a paced flow may send (one task for the host's life). */
    private final Runnable wake = this::wakeUp;
    /** Packets whose NIC send is kept for their responses (Aries NICs' outstanding packets). */
    static final int OUTSTANDING = 1024;
    /** Per slot ({@code seq} modulo {@link #OUTSTANDING}): the seq of the data packet sent last in it, and its NIC send (-1: none). */
    private final int[] outstandingSeq = new int[OUTSTANDING];
    private final long[] outstandingAt = new long[OUTSTANDING];
    /** Where responses go; null until the fabric installs it (a host on its own counts no round trips). */
    private LiveResponses responses;
    /** This host's endpoint number in the fabric ({@link #responses}). */
    private int endpoint = -1;
    /** Responses other hosts' loops handed over, not yet taken by this one's: seq, hops, return time; guarded by itself. */
    private final Object inbox = new Object();
    private int[] inboxSeq = new int[16];
    private int[] inboxHops = new int[16];
    private long[] inboxAt = new long[16];
    private int inboxCount;
    private final Runnable takeResponses = this::takeResponses;

    public LiveHost(EventLoop loop, ManagedNode mgmt, int vls, int bufferPackets, double rateGbps, String endpoint) {
        this(loop, mgmt, vls, bufferPackets, rateGbps, endpoint, null);
    }

    /** A host whose NIC runs congestion control {@code cc} (null: none), credits in {@link #FABRIC_BLOCKS}. */
    public LiveHost(EventLoop loop, ManagedNode mgmt, int vls, int bufferPackets, double rateGbps, String endpoint,
                    CongestionControl.Settings cc) {
        this(loop, mgmt, vls, bufferPackets, FABRIC_BLOCKS, rateGbps, endpoint, cc);
    }

    /** As above, with credits counted in {@code blocks} (buffers in slots of the largest frame the fabric carries). */
    public LiveHost(EventLoop loop, ManagedNode mgmt, int vls, int bufferPackets, CreditBlocks blocks, double rateGbps, String endpoint,
                    CongestionControl.Settings cc) {
        super(loop, mgmt, vls, bufferPackets, blocks, new double[] {0, rateGbps}, endpoint,
                vls * SEND_QUEUE + bufferPackets * vls + 2 + (cc == null ? 0 : HostCore.CONTROL_QUEUE),
                vls * SEND_QUEUE + (long) blocks.mostPackets(bufferPackets) * vls + 2 + (cc == null ? 0 : HostCore.CONTROL_QUEUE));
        core = new HostCore(vls, SEND_QUEUE, blocks, mgmt.counters(), pool, this, cc == null ? null : cc.create(rateGbps));
        Arrays.fill(outstandingAt, -1);
        port = new PortCache(mgmt, 1);
        mgmt.congestionControl(cc == null ? null : cc.name());
        mgmt.flowSource(() -> {
            CompletableFuture<List<FlowSink.Flow>> f = new CompletableFuture<>();
            execute(() -> f.complete(sink.flows()));
            return f;
        });
    }

    /**
     * Starts (or replaces) the traffic this host sends; safe from any thread. The source wakes
     * every {@link #TICK_NS} or more; a closed-loop job's sends when its loop says. The future
     * completes once the traffic is in place on the host's event loop.
     */
    public CompletableFuture<Void> start(Traffic t) {
        CompletableFuture<Void> started = new CompletableFuture<>();
        execute(() -> {
            SplittableRandom random = new SplittableRandom(t.seed());
            int frameBytes = Frames.DATA_HEADER + t.payloadBytes();
            int k = t.plan().messagePackets();
            // the arrivals space messages: a message's packets' time at the offered rate (a closed loop has none)
            meanGapNs = t.rateGbps() > 0 && t.loop() == null ? k * Arrivals.meanGapNs(frameBytes, t.rateGbps()) : 0;
            closedLoop = t.loop();
            answers = closedLoop == null ? null : closedLoop.answers();
            rank = t.self();
            rankOfLid = closedLoop == null ? new int[0] : ranksByLid(t.hostLids());
            deferred = closedLoop == null ? new int[0] : new int[Math.max(1, closedLoop.messagesQueuedAtOnce())];
            deferredAt = new long[deferred.length];
            deferredHead = 0;
            deferredCount = 0;
            HostPolicy previous = policy;
            policy = new HostPolicy(t.plan().destinations(t.self(), random),
                    meanGapNs > 0 ? new Arrivals(t.arrivals(), meanGapNs, random) : null, t.lanes(), vls, t.sourcePackets());
            policy.routingMode(t.routingMode());
            if (t.appAware()) {
                policy.appAware(new AppAwareRouting(mgmt.counters(), 1, (long) k * t.payloadBytes(), k, frameBytes,
                        AppAwareRouting.forPattern(t.plan().pattern(), closedLoop == null ? null : closedLoop.kind())));
            }
            mgmt.job(t.job());
            jobMessagePackets = t.job() == null ? 0 : k;
            if (previous != null) {
                // one counter for the host's life, a job's messages starting at a boundary of its own (the receivers number them by it)
                int seq = previous.nextSequence();
                int past = Integer.remainderUnsigned(seq, k);
                policy.continueSequence(past == 0 ? seq : seq + k - past);
                if (previous.source().held() != PacketPool.NONE) {
                    policy.source().hold(previous.source().held()); // made already: it still goes
                }
            }
            traffic = t;
            stopped = false;
            created = 0;
            sent = 0;
            long now = now();
            nextArrival = meanGapNs > 0 ? now + policy.nextGapNs() : now;
            if (ticker != null) {
                ticker.cancel(false);
                ticker = null;
            }
            if (closedLoop != null) { // sends on receipt: moved on by the NIC's credit and link events, no ticks
                started.complete(null);
                return;
            }
            // wake about every four packets' time at the offered rate (100 us .. 10 ms of wall time,
            // under the dilation in force): a thousand hosts on two threads must not spend the cores
            // waking up; what a tick creates is due by model time, whatever the tick's length
            long tick = Math.max(TICK_NS, Math.min(10_000_000L, modelClock().wallNanos((long) (4 * meanGapNs))));
            ticker = loop.scheduleAtFixedRate(() -> {
                long at = now();
                fill(at);
                drain(at);
            }, tick, tick, TimeUnit.NANOSECONDS);
            started.complete(null);
        });
        return started;
    }

    /** Per LID, the rank of the host that has it in {@code hostLids} (rank order), -1 for the others. */
    private static int[] ranksByLid(int[] hostLids) {
        int[] out = new int[Arrays.stream(hostLids).max().orElse(0) + 1];
        Arrays.fill(out, -1);
        for (int r = 0; r < hostLids.length; r++) {
            out[hostLids[r]] = r;
        }
        return out;
    }

    /** Model time now (the fabric's clock), for the job's {@link LiveLoop}; on the event loop. */
    long modelNow() {
        return now();
    }

    /** This host's {@link LiveLoop.Answers} (its closed loop's), confined to its event loop. */
    LiveLoop.Answers loopAnswers() {
        return answers;
    }

    /**
     * The closed loop says: send a whole message to rank {@code to} now (queued whole, as every
     * job's message); nothing once stopped. A message the source queue refuses, or sent while
     * others wait, waits after them ({@link #deferred}): it is counted, the job's first logged, and
     * it is queued when there is room. On the event loop.
     */
    void loopSend(int to) {
        Traffic t = traffic;
        if (t == null || closedLoop == null || stopped) {
            return;
        }
        long now = now();
        int k = k(t);
        created += k;
        SourceQueue source = policy.source();
        if (deferredCount > 0 || source.room() < k) {
            defer(to, now);
            mgmt.counters().addNode(PortCounterArray.JOB_REFUSED_MESSAGES);
            closedLoop.refused(t.job(), name(), rank, k, source.capacity(), source.room());
        } else {
            source.addMessage(now, ClosedLoop.destinationFlow(to), k);
        }
        int slid = port.activeLid();
        if (slid != 0) {
            pump(t, slid, now);
        }
    }

    /** Keeps a closed-loop message to rank {@code to}, sent by the loop at {@code at}, to be queued after those waiting already. */
    private void defer(int to, long at) {
        if (deferredCount == deferred.length) {
            int[] grown = new int[deferred.length * 2];
            long[] grownAt = new long[grown.length];
            for (int i = 0; i < deferredCount; i++) {
                grown[i] = deferred[(deferredHead + i) % deferred.length];
                grownAt[i] = deferredAt[(deferredHead + i) % deferred.length];
            }
            deferred = grown;
            deferredAt = grownAt;
            deferredHead = 0;
        }
        int tail = (deferredHead + deferredCount++) % deferred.length;
        deferred[tail] = to;
        deferredAt[tail] = at;
    }

    /** Queues the closed-loop messages waiting ({@link #deferred}), in order, while the source queue has room for them. */
    private void queueDeferred(SourceQueue source, int k) {
        while (deferredCount > 0 && source.room() >= k) { // tried by room: the queue's refused count is an open loop's loss
            source.addMessage(deferredAt[deferredHead], ClosedLoop.destinationFlow(deferred[deferredHead]), k);
            deferredHead = deferredHead + 1 == deferred.length ? 0 : deferredHead + 1;
            deferredCount--;
        }
    }

    /** Rank 0 of a closed-loop job: an iteration that started at {@code start} ended at {@code end} (model ns). On the event loop. */
    void loopIteration(long start, long end) {
        PortCounterArray c = mgmt.counters();
        c.addNode(PortCounterArray.JOB_ITERATIONS);
        c.addNode(PortCounterArray.JOB_ITERATION_NS, end - start);
    }

    /**
     * Stops creating packets; those already made (in the source queue or held for a full lane)
     * still go, moved on by the NIC's credit and link events. Safe from any thread.
     */
    public void stop() {
        execute(() -> {
            stopped = true;
            if (ticker != null) {
                ticker.cancel(false);
                ticker = null;
            }
            fill(now());
        });
    }

    /**
     * What this host sent, and what its sink has seen from every source: {@code outOfOrder} counts
     * packets overtaken by a later one of their pair (reordering), {@code missing} the packets of a
     * pair skipped (lost, less those that arrived late), the percentiles are of every packet's
     * latency (source queueing included), {@code refused} the packets the full source queue turned
     * away (an open loop's, lost; a closed loop's wait, {@link PortCounterArray#JOB_REFUSED_MESSAGES}), {@code idle} nothing waiting
     * in the source queue (none queued, none held, no closed-loop message refused and waiting: once
     * stopped, the host sends no more).
     */
    public record Stats(long sent, long received, long receivedBytes, long outOfOrder, long missing, long latencyNsSum,
                        long latencyP95Ns, long latencyP99Ns, long refused, boolean idle) {
    }

    /** Totals over every source; answered on the event loop. */
    public CompletableFuture<Stats> stats() {
        CompletableFuture<Stats> f = new CompletableFuture<>();
        execute(() -> {
            var t = sink.totals();
            f.complete(new Stats(sent, t.packets(), t.bytes(), t.outOfOrder(), t.missing(), t.latencyNsSum(), t.latencyP95Ns(),
                    t.latencyP99Ns(), policy == null ? 0 : policy.source().refused(),
                    policy == null || policy.source().isIdle() && deferredCount == 0));
        });
        return f;
    }

    /** What {@code read} reads of the NIC's core (its congestion control's state, say); answered on the event loop. */
    public <T> CompletableFuture<T> readCore(Function<HostCore, T> read) {
        CompletableFuture<T> f = new CompletableFuture<>();
        execute(() -> f.complete(read.apply(core)));
        return f;
    }

    /** Packets received from source LID {@code slid}; answered on the event loop. */
    public CompletableFuture<long[]> receivedFrom(int slid) {
        CompletableFuture<long[]> f = new CompletableFuture<>();
        execute(() -> f.complete(sink.from(slid)));
        return f;
    }

    /** Creates the packets due by {@code now} into the source queue and moves what the NIC takes. */
    private void fill(long now) {
        Traffic t = traffic;
        if (t == null) {
            return;
        }
        int slid = port.activeLid();
        if (slid == 0) {
            nextArrival = Math.max(nextArrival, now); // no packets while the port is not up
            return;
        }
        SourceQueue source = policy.source();
        boolean limited = t.packets() > 0;
        if (closedLoop != null) {
            // a closed loop's messages are made on receipt (loopSend): those the queue refused are queued when it has room
            queueDeferred(source, k(t));
        } else if (stopped) {
            nextArrival = Math.max(nextArrival, now); // nothing created while stopped
        } else if (meanGapNs == 0) {
            while (source.room() >= k(t) && (!limited || created < t.packets())) {
                message(source, t, now);
            }
        } else {
            // a loop starved for longer than the source queue's worth of arrivals: what it would
            // refuse anyway is counted at once, and the last queue's worth is created (they go as
            // a burst, as a stalled application's writes would, and the link catches up)
            int k = k(t);
            long window = (long) (SourceQueue.PACKETS / k * meanGapNs);
            if (now - nextArrival > window) {
                long behind = k * (long) ((now - nextArrival - window) / meanGapNs);
                source.refuse(limited ? Math.min(behind, Math.max(0, t.packets() - created)) : behind);
                created += behind;
                nextArrival = now - window;
            }
            while (nextArrival <= now && (!limited || created < t.packets())) {
                message(source, t, nextArrival);
                nextArrival += policy.nextGapNs();
            }
        }
        pump(t, slid, now);
    }

    /** Packets per message: a job's, else 1. */
    private static int k(Traffic t) {
        return t.plan().messagePackets();
    }

    /** Creates a message (one packet without a job) made at {@code at}: its packets all queued, or all refused. */
    private void message(SourceQueue source, Traffic t, long at) {
        int k = k(t);
        source.addMessage(at, -1, k);
        created += k;
    }

    /** Moves packets from the source queue into the NIC while its send queue has room. */
    private void pump(Traffic t, int slid, long now) {
        SourceQueue source = policy.source();
        core.settle(now); // the responses back by now are counted before an application-aware choice reads the counters
        if (source.held() != PacketPool.NONE) {
            if (!core.offer(source.held(), now)) {
                return;
            }
            source.unhold();
            sent++;
        }
        int frameBytes = Frames.DATA_HEADER + t.payloadBytes();
        while (!source.isEmpty() && core.canOffer(0)) {
            int h = pool.allocate();
            if (h == PacketPool.NONE) {
                return;
            }
            int dlid = t.hostLids()[policy.destination(source.headFlow())]; // a closed loop's message names its rank
            long route = mgmt.sourceRoute(dlid);
            policy.stamp(pool, h, slid, dlid, route);
            if (dlid >= pairSeq.length) {
                pairSeq = Arrays.copyOf(pairSeq, Math.max(dlid + 1, pairSeq.length * 2));
            }
            int pair = pairSeq[dlid]++;
            long createdAt = source.headCreated();
            source.remove();
            pool.flow(h, pair);
            pool.bytes(h, frameBytes);
            pool.timestamp(h, createdAt);
            pool.payload[h] = Frames.data(alloc, pool.vl(h), pool.sl(h), pool.mode(h), dlid, slid, pair, pool.seq(h), createdAt, route,
                    t.payloadBytes());
            if (!core.offer(h, now)) {
                source.hold(h); // its lane's send queue is full (lane 0 had room): it goes first when there is room
                return;
            }
            sent++;
        }
    }

    @Override
    public void transmit(int vl, int h, long now) {
        if (pool.kind(h) == PacketPool.DATA) {
            int slot = pool.seq(h) & (OUTSTANDING - 1);
            outstandingSeq[slot] = pool.seq(h);
            outstandingAt[slot] = now;
            if (core.congestionControl() != null) {
                ByteBuf f = (ByteBuf) pool.payload[h];
                f.setLong(f.readerIndex() + Frames.TIMESTAMP, now); // the receiver echoes the NIC send time
            }
        }
        send(1, vl, h, now);
    }

    /** Answers through {@code r} as endpoint {@code e} of the fabric (set once, by {@link LiveResponses}, on the event loop). */
    void responses(LiveResponses r, int e) {
        execute(() -> {
            responses = r;
            endpoint = e;
        });
    }

    @Override
    public void respond(int h, long now) {
        LiveResponses r = responses;
        if (r != null) {
            r.respond(endpoint, pool.slid(h), pool.seq(h), Math.max(0, pool.hops(h) - 1), now);
        }
    }

    /**
     * The response to this host's data packet {@code seq}, which took {@code hops} links between
     * switches, comes back at model time {@code at}; from any event loop (the receiver's). Taken
     * by this host's loop.
     */
    void responseCame(int seq, int hops, long at) {
        boolean first;
        synchronized (inbox) {
            if (inboxCount == inboxSeq.length) {
                inboxSeq = Arrays.copyOf(inboxSeq, 2 * inboxCount);
                inboxHops = Arrays.copyOf(inboxHops, 2 * inboxCount);
                inboxAt = Arrays.copyOf(inboxAt, 2 * inboxCount);
            }
            inboxSeq[inboxCount] = seq;
            inboxHops[inboxCount] = hops;
            inboxAt[inboxCount] = at;
            first = inboxCount++ == 0;
        }
        if (first) {
            execute(takeResponses);
        }
    }

    /** Hands the responses come to the core, each with its packet's NIC send (event loop only). */
    private void takeResponses() {
        long now = now();
        synchronized (inbox) {
            for (int i = 0; i < inboxCount; i++) {
                int slot = inboxSeq[i] & (OUTSTANDING - 1);
                if (outstandingSeq[slot] == inboxSeq[i] && outstandingAt[slot] >= 0) {
                    core.responseReturns(outstandingAt[slot], inboxHops[i], inboxAt[i], now);
                }
            }
            inboxCount = 0;
        }
    }

    @Override
    public void responseDueAt(long at) {
        wakeAt(at); // the core counts it then, so that the management endpoint reads it
    }

    @Override
    public void controlMade(int h, long now) {
        int dlid = pool.dlid(h);
        long route = mgmt.sourceRoute(dlid);
        if (policy != null) {
            policy.path(pool, h, route);
        } else {
            pool.sl(h, 0); // a host that only receives has no lanes of its own: SL and VL 0
            pool.vl(h, 0);
            pool.hops(h, 0);
            pool.route(h, route);
        }
        pool.payload[h] = Frames.data(alloc, pool.vl(h), pool.sl(h), dlid, pool.slid(h), pool.flow(h), pool.seq(h),
                pool.timestamp(h), route, 0);
    }

    private void wakeUp() {
        long at = now();
        core.wake(at);
        fill(at);
        drain(at);
    }

    @Override
    public void controlConsumed(int h, long now) {
        drop(h);
    }

    @Override
    public void wakeAt(long at) {
        // a nanosecond more than the truncated conversion: the task never runs before the model time
        // at (HostCore takes a wake-up before it for an older one and would not ask again)
        loop.schedule(wake, Math.max(0, modelClock().wallNanos(at - now()) + 1), TimeUnit.NANOSECONDS);
    }

    @Override
    public void returnCredit(int vl, int blocks, long now) {
        owe(1, vl, blocks);
    }

    @Override
    public void delivered(int h, long now) {
        sink.record(pool.slid(h), pool.seq(h), pool.flow(h), pool.bytes(h), now - pool.timestamp(h));
        if (jobMessagePackets > 0) {
            jobReceived(h, now);
        }
        drop(h);
    }

    /**
     * Counts a job's packet {@code h} as its receiver: non-minimal or not, and its message's
     * completion when it is the last to arrive (its start the earliest timestamp of its packets:
     * their creation, or with congestion control their NIC send).
     */
    private void jobReceived(int h, long now) {
        PortCounterArray c = mgmt.counters();
        c.addNode(PortCounterArray.JOB_PACKETS);
        c.addNode(PortCounterArray.JOB_MODE_PACKETS + RoutingMode.ofCode(pool.mode(h)).code());
        if (DragonflyHeader.has(pool.route(h), DragonflyHeader.NONMINIMAL)) {
            c.addNode(PortCounterArray.JOB_NONMINIMAL_PACKETS);
        }
        int k = jobMessagePackets;
        long created = pool.timestamp(h);
        int slid = pool.slid(h);
        if (k == 1) {
            messageReceived(slid, created, now);
            return;
        }
        if ((slid + 1) * MESSAGE_SLOTS > slotMessage.length) {
            int n = Math.max((slid + 1) * MESSAGE_SLOTS, slotMessage.length * 2);
            slotMessage = Arrays.copyOf(slotMessage, n);
            slotLeft = Arrays.copyOf(slotLeft, n);
            slotStart = Arrays.copyOf(slotStart, n);
        }
        long message = Integer.toUnsignedLong(pool.seq(h)) / k;
        int slot = slid * MESSAGE_SLOTS + (int) (message % MESSAGE_SLOTS);
        if (slotMessage[slot] != message + 1) {
            slotMessage[slot] = message + 1;
            slotLeft[slot] = k;
            slotStart[slot] = created;
        }
        slotStart[slot] = Math.min(slotStart[slot], created);
        if (--slotLeft[slot] == 0) {
            messageReceived(slid, slotStart[slot], now);
        }
    }

    /** A job's message from source LID {@code slid}, started at {@code start}, received whole at {@code now}: counted; a closed loop told. */
    private void messageReceived(int slid, long start, long now) {
        PortCounterArray c = mgmt.counters();
        c.addNode(PortCounterArray.JOB_MESSAGES);
        c.addNode(PortCounterArray.JOB_MESSAGE_NS, now - start);
        int from = slid < rankOfLid.length ? rankOfLid[slid] : -1;
        if (closedLoop != null && from >= 0 && !stopped) {
            closedLoop.received(from, rank, now, answers);
        }
    }

    @Override
    protected void packetArrivedCore(int port, int h, long now) {
        // a congestion-controlled sender wrote its NIC send time in the frame's timestamp; another its
        // creation time, so without congestion control the live NIC's network latency counts the source queue too
        pool.sent(h, pool.timestamp(h));
        core.packetArrived(h, now);
    }

    @Override
    protected void creditReturnedCore(int port, int vl, int count, long now) {
        core.creditReturned(vl, count, now);
        fill(now);
    }

    @Override
    protected String refusedCreditCore(int port, int vl, int count) {
        return core.refusedCredit(vl, count);
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

    /** Routers send no Q-adaptive feedback on a host's link (the paper's simulator neither): nothing arrives here to learn from. */
    @Override
    protected void qFeedbackCore(int port, int row, float value, long now) {
    }
}
