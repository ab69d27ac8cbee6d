package org.fabriclab.emulator.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.fabriclab.agent.core.AppAwareRouting;
import org.fabriclab.agent.core.Arrivals;
import org.fabriclab.agent.core.ClosedLoop;
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
    private final PacketPool pool;
    private final HostCore[] hostCore;
    /** The NICs' responses on their way back (null: no application-aware chooser reads them). */
    private final ResponsesInFlight responses;
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
    /** Per host, the closed-loop job it is a rank of, or null. */
    private final LoopJob[] loopOf;
    /** Per host of a closed-loop job, its rank. */
    private final int[] loopRank;
    /** The closed-loop jobs, in the jobs' order. */
    private final List<LoopJob> loops = new ArrayList<>();

    /**
     * @param meanGapNs        the mean gap between a host's packets at the offered load
     * @param sendQueuePackets each host's send queue per lane (its flows share it)
     * @param responses        the NICs' responses on their way back, settled before a host's source runs (null: none made)
     * @throws IllegalArgumentException if the pattern cannot run on the fabric (group-shift without groups)
     */
    TrafficSources(Simulation.Config c, PacketPool pool, HostCore[] hostCore, int[] lidOfEndpoint, int frameBytes, double meanGapNs,
                   Measurements measure, PortCounterArray[] counters, int sendQueuePackets, ResponsesInFlight responses) {
        this.c = c;
        this.responses = responses;
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
        loopOf = new LoopJob[hosts];
        loopRank = new int[hosts];
        Arrays.fill(messagePackets, 1);
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
                // a message's gap: its packets' time at the job's load (a closed loop has none: its ranks draw no gaps)
                double messageGapNs = job.loop() != null ? meanGapNs : job.messagePackets() * frameBytes * 8.0 / c.linkGbps() / job.load();
                for (int r = 0; r < ranks.length; r++) {
                    int e = ranks[r];
                    policy[e] = HostPolicy.of(plan, r, seeds.split(), Arrivals.Mode.POISSON, messageGapNs, routes[e], c.vls(),
                            c.sourceQueuePackets());
                    policy[e].routingMode(job.mode());
                    if (job.appAware()) { // the host's NIC counters: its node's, its one port
                        policy[e].appAware(new AppAwareRouting(counters[f.endpointNode(e)], 1,
                                (long) job.messagePackets() * (frameBytes - FrameSizes.DATA_HEADER), job.messagePackets(), frameBytes,
                                AppAwareRouting.forPattern(job.pattern(), job.loop())));
                    }
                    messagePackets[e] = job.messagePackets();
                    sends[e] = job.loop() == null; // a closed-loop rank sends on receipt, not by arrivals
                }
                if (job.loop() != null) {
                    LoopJob l = new LoopJob(j, ranks, new ClosedLoop(job.loop(), ranks.length, job.messagePackets()));
                    loops.add(l);
                    for (int r = 0; r < ranks.length; r++) {
                        loopOf[ranks[r]] = l;
                        loopRank[ranks[r]] = r;
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

    /** Starts every closed-loop job's first iteration at {@code now} ({@link ClosedLoop#start}), in the jobs' order. */
    void startLoops(long now) {
        for (LoopJob l : loops) {
            l.loop.start(now, l);
        }
    }

    /**
     * Packet {@code h} was delivered to host {@code e} at {@code now}: a closed-loop rank counts it
     * into its sender's message, and with the whole message its loop answers what is sent next.
     */
    void delivered(int e, int h, long now) {
        LoopJob l = loopOf[e];
        if (l == null) {
            return;
        }
        int from = loopRank[pool.flow(h) >>> 16]; // a closed-loop packet's flow: its source host above its destination's
        if (l.loop.packetReceived(from, loopRank[e])) {
            l.loop.received(from, loopRank[e], now, l);
        }
    }

    /** A closed-loop job's {@link ClosedLoop} and what its answers do here: ranks' hosts send messages, iterations measured. */
    private final class LoopJob implements ClosedLoop.Actions {
        private final int job;
        private final int[] hosts;
        private final ClosedLoop loop;

        LoopJob(int job, int[] hosts, ClosedLoop loop) {
            this.job = job;
            this.hosts = hosts;
            this.loop = loop;
        }

        @Override
        public void send(int from, int to, long now) {
            sendMessage(hosts[from], hosts[to], now);
        }

        @Override
        public void iteration(long start, long end) {
            measure.iteration(job, start, end);
        }
    }

    /** Host {@code e} sends a whole message to host {@code dst} now (a closed-loop rank: its destination rides in the queue's flow). */
    private void sendMessage(int e, int dst, long now) {
        int k = messagePackets[e];
        SourceQueue q = source[e];
        measure.created(e, k, now);
        if (!q.addMessage(now, ClosedLoop.destinationFlow(dst), k)) { // a closed loop would wait for it for ever
            throw new IllegalStateException("host " + e + "'s source queue refused a closed-loop message of " + k + " packets: the job's"
                    + " check (ClosedLoop.messagesQueuedAtOnce against --source-queue) should have refused the job");
        }
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
        if (responses != null) {
            responses.settle(now); // the responses back by now are counted before an application-aware choice reads the counters
        }
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
        int d = flow >= 0 ? flows.get(flow).dst() : p.destination(flow);
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

    /** Endpoint {@code e}'s application-aware chooser, or null when its packets ask for a fixed mode. */
    AppAwareRouting appAware(int e) {
        return policy[e].appAware();
    }

    /**
     * Per job, the share of its message bytes its hosts' application-aware choosers sent with
     * the default mode they weigh against the high bias ({@link AppAwareRouting#adaptive}: ADAPTIVE_1
     * for all-to-all, ADAPTIVE_0 for the others); NaN for a job with a fixed mode.
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
