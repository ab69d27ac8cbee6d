package org.fabriclab.emulator.sim;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.fabriclab.agent.core.AppAwareRouting;
import org.fabriclab.agent.core.Arrivals;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.HostCore;
import org.fabriclab.agent.core.HostPolicy;
import org.fabriclab.agent.core.HostRoutes;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.SourceQueue;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.core.TrafficPlan;
import org.fabriclab.routing.fabric.Fabric;

/**
 * The simulated hosts' traffic sources, on top of the core's {@link HostPolicy} (the live hosts'
 * too): Poisson arrivals at the offered load into each host's {@link SourceQueue} (or with flows,
 * each flow's packets evenly paced, or a bursty flow's messages whole, at random or every gap),
 * destinations by the pattern's {@link TrafficPlan}, SL and
 * source route from each host's {@link HostRoutes} (the DLID-indexed table the daemon writes into
 * a live adapter), the routing mode the configuration asks for. Each host draws its gaps and destinations from one generator split off the
 * run's seed, in the order the event loop asks. With jobs, a job's hosts send by the job's plan
 * among its ranks, at its load and routing mode, a message's packets created together (queued
 * whole or refused whole); the hosts in no job send nothing. Allocates nothing per packet;
 * confined to the simulation's thread.
 */
final class TrafficSources {
    /** Mixed into the run's seed for the bursty flows' generators, so that they draw apart from the hosts'. */
    private static final long MESSAGE_SEED = 0x6D65737361676573L;
    /** A closed-loop packet's flow in the source queue: this minus its destination host (below -1, which is the pattern's). */
    private static final int LOOP_DESTINATION = -2;
    private final PacketPool pool;
    private final HostCore[] hostCore;
    private final HostPolicy[] policy;
    /** Each host's source queue, looked up directly: {@link #pump} runs after every host event, most often to find it empty. */
    private final SourceQueue[] source;
    private final int[] lidOfEndpoint;
    private final List<Simulation.Flow> flows;
    /** Per flow, when its packets (a stream: evenly paced, one instance for all) or its messages come; null without flows. */
    private final Arrivals[] flowArrivals;
    /** Per flow, the packets it creates at once: 1, or its message's. */
    private final int[] flowBurst;
    private final int frameBytes;
    private final Measurements measure;
    /** Per host, the packets of each of its messages (1 unless its job says otherwise). */
    private final int[] messagePackets;
    /** Per host, whether its source sends: every host without jobs, a job's hosts with them. */
    private final boolean[] sends;
    private final Simulation.Config c;
    /**
     * With flows, each flow's own source queue (its queue pair's: the application posts to each
     * independently), by flow number; null without flows. A host's flows split its source queue's
     * capacity evenly (at least one packet each).
     */
    private final SourceQueue[] flowQueue;
    /** With flows, per host, its flows' numbers in the order given (none for a host that sends none). */
    private final int[][] flowsOf;
    /** With flows, per host, the position in {@link #flowsOf} of the flow its NIC takes from next (round-robin). */
    private final int[] nextFlow;
    /** With flows, per host, the packets waiting in its flows' queues. */
    private final int[] waiting;
    /** With flows, per flow, its packets taken from its queue and not on the wire yet (in its host's send queue, or held). */
    private final int[] inNic;
    /**
     * With flows, per host, the most packets one of its flows may have in the NIC at once: with one
     * flow no limit, with n its share of a lane's send queue (at least one), so a paced flow's
     * packets cannot fill the send queue and hold the others back.
     */
    private final int[] nicShare;
    /** Per host, the closed-loop job ({@link Simulation.Loop}) it is a rank of, or -1. */
    private final int[] loopJob;
    /** Per host of a closed-loop job, its rank. */
    private final int[] loopRank;
    /** Per host of a ping-pong job, the other rank's host. */
    private final int[] loopPeer;
    /** Per host of a closed-loop job, the packets of the message it waits for delivered so far. */
    private final int[] loopReceived;
    /** Per closed-loop job, when its current iteration started. */
    private final long[] iterationStart;
    /** Per barrier or broadcast job, its ranks' hosts; null for the others. */
    private final int[][] loopHosts;
    /** Per barrier job, its rounds: ceil(log2 ranks). */
    private final int[] loopRounds;
    /** Per host of a barrier job, where its rounds' counts start in {@link #roundReceived}. */
    private final int[] roundBase;
    /** Per barrier rank and round, the packets delivered from that round's sender over the whole run. */
    private final long[] roundReceived;
    /** Per host of a barrier job, its barrier (iteration) and its round in it. */
    private final long[] barrierOf;
    private final int[] roundOf;
    /** Per barrier job and parity of the barrier, the ranks that have left it. */
    private final int[] leftBarrier;

    /**
     * @param meanGapNs        the mean gap between a host's packets at the offered load
     * @param sendQueuePackets each host's send queue per lane (its flows share it)
     * @throws IllegalArgumentException if the pattern cannot run on the fabric (group-shift without groups)
     */
    TrafficSources(Simulation.Config c, PacketPool pool, HostCore[] hostCore, int[] lidOfEndpoint, int frameBytes, double meanGapNs,
                   Measurements measure, PortCounterArray[] counters, int sendQueuePackets) {
        this.c = c;
        this.pool = pool;
        this.hostCore = hostCore;
        this.lidOfEndpoint = lidOfEndpoint;
        this.flows = c.flows();
        this.frameBytes = frameBytes;
        this.measure = measure;
        Fabric f = c.fabric();
        int hosts = f.endpointCount();
        int[] groups = new int[hosts];
        for (int e = 0; e < hosts; e++) {
            groups[e] = f.group(f.endpointNode(e));
        }
        // with flows the pattern picks nothing: uniform needs nothing of the fabric
        HostRoutes[] routes = HostRoutes.of(c.tables());
        SplittableRandom seeds = new SplittableRandom(c.seed());
        policy = new HostPolicy[hosts];
        source = new SourceQueue[hosts];
        messagePackets = new int[hosts];
        sends = new boolean[hosts];
        loopJob = new int[hosts];
        loopRank = new int[hosts];
        loopReceived = new int[hosts];
        loopPeer = new int[hosts];
        iterationStart = new long[c.jobs().size()];
        loopHosts = new int[c.jobs().size()][];
        loopRounds = new int[c.jobs().size()];
        roundBase = new int[hosts];
        barrierOf = new long[hosts];
        roundOf = new int[hosts];
        leftBarrier = new int[2 * c.jobs().size()];
        int roundSlots = 0;
        for (int j = 0; j < c.jobs().size(); j++) {
            Simulation.Job job = c.jobs().get(j);
            if (job.loop() == Simulation.Loop.BROADCAST) {
                loopHosts[j] = job.hosts();
            } else if (job.loop() == Simulation.Loop.BARRIER) {
                loopHosts[j] = job.hosts();
                loopRounds[j] = 32 - Integer.numberOfLeadingZeros(job.size() - 1);
                for (int e : loopHosts[j]) {
                    roundBase[e] = roundSlots;
                    roundSlots += loopRounds[j];
                }
            }
        }
        roundReceived = new long[roundSlots];
        Arrays.fill(messagePackets, 1);
        Arrays.fill(loopJob, -1);
        if (c.jobs().isEmpty()) {
            TrafficPlan plan = TrafficPlan.of(flows.isEmpty() ? c.pattern() : TrafficPattern.UNIFORM, hosts, groups, c.seed());
            for (int e = 0; e < hosts; e++) {
                policy[e] = HostPolicy.of(plan, e, seeds.split(), Arrivals.Mode.POISSON, meanGapNs, routes[e], c.vls(), c.sourceQueuePackets());
                policy[e].routingMode(c.routingMode());
                sends[e] = true;
            }
        } else {
            for (int j = 0; j < c.jobs().size(); j++) {
                Simulation.Job job = c.jobs().get(j);
                int[] ranks = job.hosts();
                TrafficPlan plan = TrafficPlan.ofJob(job.pattern(), ranks, job.messagePackets(), c.seed() + j);
                // a message's gap: its packets' time at the job's load
                double messageGapNs = job.messagePackets() * frameBytes * 8.0 / c.linkGbps() / job.load();
                for (int r = 0; r < ranks.length; r++) {
                    int e = ranks[r];
                    policy[e] = HostPolicy.of(plan, r, seeds.split(), Arrivals.Mode.POISSON, messageGapNs, routes[e], c.vls(),
                            c.sourceQueuePackets());
                    policy[e].routingMode(job.mode());
                    if (job.appAware()) { // the host's NIC counters: its node's, its one port
                        policy[e].appAware(new AppAwareRouting(counters[f.endpointNode(e)], 1,
                                (long) job.messagePackets() * (frameBytes - FrameSizes.DATA_HEADER), job.messagePackets(), frameBytes,
                                AppAwareRouting.forPattern(job.pattern())));
                    }
                    messagePackets[e] = job.messagePackets();
                    sends[e] = job.loop() == null; // a closed-loop rank sends on receipt, not by arrivals
                    if (job.loop() != null) {
                        loopJob[e] = j;
                        loopRank[e] = r;
                        loopPeer[e] = job.loop() == Simulation.Loop.PING_PONG ? ranks[1 - r] : -1;
                    }
                }
            }
            // an idle host sends nothing, but answers congestion control and keeps its source queue's count
            TrafficPlan idle = TrafficPlan.of(TrafficPattern.UNIFORM, hosts, groups, c.seed());
            for (int e = 0; e < hosts; e++) {
                if (policy[e] == null) {
                    policy[e] = HostPolicy.of(idle, e, seeds.split(), Arrivals.Mode.POISSON, meanGapNs, routes[e], c.vls(),
                            c.sourceQueuePackets());
                }
            }
        }
        for (int e = 0; e < hosts; e++) {
            source[e] = policy[e].source();
        }
        if (flows.isEmpty()) {
            flowQueue = null;
            flowsOf = null;
            flowArrivals = null;
            flowBurst = nextFlow = waiting = inNic = nicShare = null;
            return;
        }
        flowArrivals = new Arrivals[flows.size()];
        flowBurst = new int[flows.size()];
        Arrivals paced = new Arrivals(Arrivals.Mode.PACED, meanGapNs, null);
        // the bursty flows' own generators, split off the seed apart from the hosts' (whose draws stay as they were)
        SplittableRandom messageSeeds = new SplittableRandom(c.seed() ^ MESSAGE_SEED);
        for (int i = 0; i < flows.size(); i++) {
            Simulation.Flow fl = flows.get(i);
            flowBurst[i] = Math.max(1, fl.messagePackets());
            flowArrivals[i] = !fl.bursty() ? paced
                    : fl.messageGapNs() > 0 ? new Arrivals(Arrivals.Mode.PACED, fl.messageGapNs(), null)
                    : new Arrivals(Arrivals.Mode.POISSON, fl.messagePackets() * meanGapNs, messageSeeds.split());
        }
        int[] perHost = new int[hosts];
        for (Simulation.Flow fl : flows) {
            perHost[fl.src()]++;
        }
        flowsOf = new int[hosts][];
        nicShare = new int[hosts];
        for (int e = 0; e < hosts; e++) {
            flowsOf[e] = new int[perHost[e]];
            nicShare[e] = perHost[e] <= 1 ? Integer.MAX_VALUE : Math.max(1, sendQueuePackets / perHost[e]);
        }
        flowQueue = new SourceQueue[flows.size()];
        int[] filled = new int[hosts];
        for (int i = 0; i < flows.size(); i++) {
            int e = flows.get(i).src();
            flowsOf[e][filled[e]++] = i;
            flowQueue[i] = new SourceQueue(Simulation.flowQueuePackets(c.sourceQueuePackets(), perHost[e]));
        }
        nextFlow = new int[hosts];
        waiting = new int[hosts];
        inNic = new int[flows.size()];
    }

    /** True if host {@code e}'s source sends (pattern or job traffic; a host in no job does not). */
    boolean sends(int e) {
        return sends[e];
    }

    /** Starts every closed-loop job's first iteration at {@code now}: ping-pong's rank 0 sends, every barrier rank its first round. */
    void startLoops(long now) {
        for (int j = 0; j < iterationStart.length; j++) {
            Simulation.Job job = c.jobs().get(j);
            iterationStart[j] = now;
            if (job.loop() == Simulation.Loop.PING_PONG) {
                sendMessage(job.hosts()[0], job.hosts()[1], now);
            } else if (job.loop() == Simulation.Loop.BROADCAST) {
                sendToChildren(j, 0, now);
            } else if (job.loop() == Simulation.Loop.BARRIER) {
                for (int e : loopHosts[j]) {
                    sendMessage(e, roundPeer(j, e, 1), now);
                }
            }
        }
    }

    /**
     * Packet {@code h} was delivered to host {@code e} at {@code now}: a closed-loop rank that has
     * now the whole message it waits for sends its next (ping-pong: rank 1 answers; rank 0's answer
     * completes an iteration, and it sends the next ping; barrier: {@link #barrierDelivered}).
     */
    void delivered(int e, int h, long now) {
        int j = loopJob[e];
        if (j < 0) {
            return;
        }
        Simulation.Loop loop = c.jobs().get(j).loop();
        if (loop == Simulation.Loop.BARRIER) {
            barrierDelivered(j, e, pool.flow(h) >>> 16, now);
            return;
        }
        if (loop == Simulation.Loop.BROADCAST) {
            broadcastDelivered(j, e, now);
            return;
        }
        if (++loopReceived[e] < messagePackets[e]) {
            return;
        }
        loopReceived[e] = 0;
        if (loopRank[e] == 0) {
            measure.iteration(j, iterationStart[j], now);
            iterationStart[j] = now;
        }
        sendMessage(e, loopPeer[e], now);
    }

    /** Barrier job {@code j}'s rank on host {@code e}: the host of the rank {@code sign} 2^round away (+1: it sends to, -1: it hears from). */
    private int roundPeer(int j, int e, int sign) {
        int n = loopHosts[j].length;
        return loopHosts[j][Math.floorMod(loopRank[e] + sign * (1 << roundOf[e]), n)];
    }

    /**
     * A packet from host {@code src} reached barrier rank {@code e}: counted to the round whose
     * sender {@code src} is; then the rank goes through every round it has the whole message of
     * (a round's messages counted over the run: a fast sender's next barrier may come early), sending
     * each next round's message, and leaving the barrier after the last round; when every rank has
     * left it, an iteration ends.
     */
    private void barrierDelivered(int j, int e, int src, long now) {
        int n = loopHosts[j].length;
        int rank = loopRank[e];
        for (int k = 0; k < loopRounds[j]; k++) {
            if (loopHosts[j][Math.floorMod(rank - (1 << k), n)] == src) {
                roundReceived[roundBase[e] + k]++;
                break;
            }
        }
        long whole = (barrierOf[e] + 1) * messagePackets[e];
        while (roundReceived[roundBase[e] + roundOf[e]] >= whole) {
            if (++roundOf[e] == loopRounds[j]) {
                roundOf[e] = 0;
                int parity = 2 * j + (int) (barrierOf[e] & 1);
                if (++leftBarrier[parity] == n) {
                    leftBarrier[parity] = 0;
                    measure.iteration(j, iterationStart[j], now);
                    iterationStart[j] = now;
                }
                barrierOf[e]++;
                whole += messagePackets[e];
            }
            sendMessage(e, roundPeer(j, e, 1), now);
        }
    }

    /**
     * Broadcast rank {@code e} received a packet (only its parent sends to it, once a broadcast):
     * with the whole message it forwards to its children; when every rank but the root has it, the
     * iteration ends and the root starts the next.
     */
    private void broadcastDelivered(int j, int e, long now) {
        if (++loopReceived[e] < messagePackets[e]) {
            return;
        }
        loopReceived[e] = 0;
        sendToChildren(j, loopRank[e], now);
        if (++leftBarrier[2 * j] == loopHosts[j].length - 1) {
            leftBarrier[2 * j] = 0;
            measure.iteration(j, iterationStart[j], now);
            iterationStart[j] = now;
            sendToChildren(j, 0, now);
        }
    }

    /** Broadcast job {@code j}'s {@code rank} sends the message to its children in the binomial tree, nearest bit first. */
    private void sendToChildren(int j, int rank, long now) {
        int[] ranks = loopHosts[j];
        for (int step = rank == 0 ? 1 : Integer.highestOneBit(rank) << 1; rank + step < ranks.length; step <<= 1) {
            sendMessage(ranks[rank], ranks[rank + step], now);
        }
    }

    /** Host {@code e} sends a whole message to host {@code dst} now (a closed-loop rank: its destination rides in the queue's flow). */
    private void sendMessage(int e, int dst, long now) {
        int k = messagePackets[e];
        SourceQueue q = source[e];
        measure.created(e, k, now);
        q.addMessage(now, LOOP_DESTINATION - dst, k);
        pump(e, now);
    }

    /** The time to host {@code e}'s next packet, or with messages its next message (pattern traffic). */
    long gap(int e) {
        return policy[e].nextGapNs();
    }

    /** The time to {@code flow}'s next packet, or its next message. */
    long flowGap(int flow) {
        return flowArrivals[flow].nextGapNs();
    }

    /**
     * Host {@code e}'s source creates a packet now, of {@code flow} (or -1: the pattern picks its
     * destination); with messages (a job's, a bursty flow's), a message's packets, all queued or all
     * refused. Returns the packets created.
     */
    int inject(int e, int flow, long now) {
        int k = flow < 0 ? messagePackets[e] : flowBurst[flow];
        SourceQueue q = flow < 0 ? source[e] : flowQueue[flow];
        measure.created(e, k, now);
        if (q.addMessage(now, flow, k) && flow >= 0) {
            waiting[e] += k;
        }
        pump(e, now);
        return k;
    }

    /**
     * Moves packets from the host's source queue into its NIC while the send queue has room; with
     * flows, from its flows' queues round-robin, each flow up to its {@link #nicShare}.
     */
    void pump(int e, long now) {
        SourceQueue q = source[e];
        if (q.isIdle() && (flowQueue == null || waiting[e] == 0)) {
            return;
        }
        HostCore core = hostCore[e];
        if (q.held() != PacketPool.NONE) {
            if (!core.offer(q.held(), now)) {
                return;
            }
            q.unhold();
        }
        while (core.canOffer(0)) {
            int flow = flowQueue == null ? -1 : nextFlow(e);
            if (flowQueue != null && flow < 0) {
                return;
            }
            SourceQueue from = flow < 0 ? q : flowQueue[flow];
            if (from.isEmpty()) {
                return;
            }
            int h = packet(e, from.headFlow(), from.headCreated());
            from.remove();
            if (flow >= 0) {
                waiting[e]--;
                inNic[flow]++;
            }
            if (!core.offer(h, now)) {
                q.hold(h); // its lane's send queue is full (lane 0 had room): it goes first when there is room
                return;
            }
        }
    }

    /**
     * The flow host {@code e}'s NIC takes its next packet from: the next of its flows, round-robin,
     * with a packet queued and fewer than its {@link #nicShare} in the NIC; -1 if none.
     */
    private int nextFlow(int e) {
        int[] mine = flowsOf[e];
        int n = mine.length;
        for (int k = 0; k < n; k++) {
            int i = nextFlow[e] + k < n ? nextFlow[e] + k : nextFlow[e] + k - n;
            int flow = mine[i];
            if (!flowQueue[flow].isEmpty() && inNic[flow] < nicShare[e]) {
                nextFlow[e] = i + 1 == n ? 0 : i + 1;
                return flow;
            }
        }
        return -1;
    }

    /** A packet from host {@code e} of {@code flow} (or -1: the pattern picks its destination), created at {@code created}. */
    private int packet(int e, int flow, long created) {
        int h = pool.allocate();
        if (h == PacketPool.NONE) {
            throw new IllegalStateException("packet pool exhausted: a packet was neither queued nor credited");
        }
        HostPolicy p = policy[e];
        int d = flow <= LOOP_DESTINATION ? LOOP_DESTINATION - flow : flow < 0 ? p.nextDestination() : flows.get(flow).dst();
        int dlid = lidOfEndpoint[d];
        p.stamp(pool, h, lidOfEndpoint[e], dlid, p.routes().route(dlid));
        pool.flow(h, flow < 0 ? (e << 16) ^ d : flow);
        pool.bytes(h, frameBytes);
        pool.timestamp(h, created);
        return h;
    }

    /** Host {@code e}'s NIC put packet {@code h} on the wire: with flows, a data packet leaves its flow's share of the NIC. */
    void sent(int e, int h) {
        if (flowQueue != null && pool.kind(h) == PacketPool.DATA) {
            inNic[pool.flow(h)]--;
        }
    }

    /** Sets control packet {@code h}'s (from host {@code e}) SL, VL and source route as for data to its DLID. */
    void path(int e, int h) {
        HostPolicy p = policy[e];
        p.path(pool, h, p.routes().route(pool.dlid(h)));
    }

    /**
     * Per job, the share of its message bytes its hosts' application-aware choosers sent with
     * ADAPTIVE_0; NaN for a job with a fixed mode.
     */
    double[] adaptiveShares() {
        List<Simulation.Job> jobs = c.jobs();
        double[] out = new double[jobs.size()];
        for (int j = 0; j < out.length; j++) {
            long adaptive = 0;
            long all = 0;
            for (int e : jobs.get(j).hosts()) {
                AppAwareRouting a = policy[e].appAware();
                if (a != null) {
                    adaptive += a.adaptiveBytes();
                    all += a.adaptiveBytes() + a.biasedBytes();
                }
            }
            out[j] = all == 0 ? Double.NaN : (double) adaptive / all;
        }
        return out;
    }

    /** Packets the hosts' full source queues refused. */
    long refused() {
        long n = 0;
        for (SourceQueue q : source) {
            n += q.refused();
        }
        for (SourceQueue q : flowQueue == null ? new SourceQueue[0] : flowQueue) {
            n += q.refused();
        }
        return n;
    }
}
