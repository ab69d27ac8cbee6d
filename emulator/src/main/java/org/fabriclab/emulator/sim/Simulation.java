package org.fabriclab.emulator.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.core.HostCore;
import org.fabriclab.agent.core.PacketPool;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.agent.core.TableInstall;
import org.fabriclab.agent.core.TableStore;
import org.fabriclab.agent.core.TableWriteException;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.fabric.Fabric;

/**
 * A fabric in virtual time: the same {@link SwitchCore} and {@link HostCore} the live agents run,
 * driven by an {@link EventQueue} instead of Netty event loops: the other clock of "one core, two
 * clocks". Links have a rate and a propagation delay; a packet leaves when the core grants it,
 * occupies its link for its bytes at the link's rate ({@code FREE} then), and reaches the peer
 * after the delay ({@code ARRIVE}); a returned credit reaches the sender after the delay
 * ({@code CREDIT}). Hosts generate packets by a Poisson process at the offered load into a source
 * queue, from which their NIC core takes them as its send queue has room.
 *
 * <p>Deterministic: the same configuration and seed give the same events in the same order (ties
 * in time go in the order scheduled), so the same report. Nothing is allocated per packet or per
 * event once the queues have grown: packets are handles into one {@link PacketPool} shared by all
 * nodes (a handle travels with its packet), events are slots in primitive arrays.
 */
public final class Simulation {
    /** How each host picks the destination of its next packet. */
    public enum Pattern {
        /** Uniformly at random among the other hosts. */
        UNIFORM,
        /** Each host to one other, a random permutation without fixed points (seeded). */
        PERMUTATION,
        /** Every other host in turn (all-to-all). */
        ALL_TO_ALL,
        /**
         * Uniformly at random among the hosts of the next group (group i to group i+1, the last to
         * the first): Dragonfly's adversarial pattern, which minimal routing squeezes onto the few
         * global links between two groups.
         */
        GROUP_SHIFT
    }

    /**
     * One simulation.
     *
     * @param load         offered load per host as a fraction of the link rate (0..1]
     * @param payloadBytes payload of each packet; the frame adds {@link FrameSizes#DATA_HEADER}
     * @param durationNs   virtual time simulated
     * @param warmupNs     virtual time before measurement starts (packets created earlier are not measured)
     * @param adaptive     switches choose among AR groups' ports (if the engine made any); false: static routing (DR)
     * @param flows        if not empty, the traffic: these flows (each at {@code load} of the link rate, evenly
     *                     spaced), instead of every host by {@code pattern}
     *
     * <p>Tables with source routes (a torus engine's) run as Angara does: hosts write the route to
     * the destination's switch into each packet, switches forward by it (the LFTs deliver the last
     * hop) with bubble flow control on the rings.
     */
    public record Config(Fabric fabric, ForwardingTables tables, Pattern pattern, double load, double linkGbps,
                         long latencyNs, int vls, int bufferPackets, int payloadBytes, long durationNs, long warmupNs, long seed,
                         boolean adaptive, List<Flow> flows) {
        public Config(Fabric fabric, ForwardingTables tables, Pattern pattern, double load, double linkGbps, long latencyNs, int vls,
                      int bufferPackets, int payloadBytes, long durationNs, long warmupNs, long seed, boolean adaptive) {
            this(fabric, tables, pattern, load, linkGbps, latencyNs, vls, bufferPackets, payloadBytes, durationNs, warmupNs, seed,
                    adaptive, List.of());
        }


        /** With adaptive routing on wherever the tables have AR groups. */
        public Config(Fabric fabric, ForwardingTables tables, Pattern pattern, double load, double linkGbps, long latencyNs, int vls,
                      int bufferPackets, int payloadBytes, long durationNs, long warmupNs, long seed) {
            this(fabric, tables, pattern, load, linkGbps, latencyNs, vls, bufferPackets, payloadBytes, durationNs, warmupNs, seed, true);
        }

        public Config {
            flows = List.copyOf(flows);
            for (Flow fl : flows) {
                if (fl.src() < 0 || fl.src() >= fabric.endpointCount() || fl.dst() < 0 || fl.dst() >= fabric.endpointCount()
                        || fl.src() == fl.dst() || fl.startNs() < 0 || fl.stopNs() <= fl.startNs()) {
                    throw new IllegalArgumentException("flow " + fl + " needs two different hosts of the fabric and start < stop");
                }
            }
            if (!(load > 0 && load <= 1)) {
                throw new IllegalArgumentException("load " + load + " is not in (0, 1]: it is a fraction of the link rate");
            }
            if (linkGbps <= 0 || latencyNs < 0 || vls < 1 || bufferPackets < 1) {
                throw new IllegalArgumentException("link rate, buffers and lanes must be positive and the delay not negative");
            }
            if (payloadBytes < 0 || payloadBytes > FrameSizes.MAX_PAYLOAD) {
                throw new IllegalArgumentException("payload " + payloadBytes + " bytes is outside 0.." + FrameSizes.MAX_PAYLOAD);
            }
            if (durationNs > EventQueue.MAX_TIME / 2) {
                throw new IllegalArgumentException("a duration of " + durationNs + " ns is beyond the simulator's clock (" + EventQueue.MAX_TIME / 2 + " ns)");
            }
            if (durationNs <= 0 || warmupNs < 0 || warmupNs >= durationNs) {
                throw new IllegalArgumentException("the warm-up (" + warmupNs + " ns) must be shorter than the duration (" + durationNs + " ns)");
            }
            if (fabric.endpointCount() < 2) {
                throw new IllegalArgumentException("a simulation needs at least two hosts");
            }
            if (fabric.endpointCount() > MAX_HOSTS) {
                throw new IllegalArgumentException("the fabric has " + fabric.endpointCount() + " hosts; the simulator takes at most "
                        + MAX_HOSTS + " (it keeps 4 bytes of reordering state per pair of hosts)");
            }
            if (fabric.nodeCount() >= EventQueue.MAX_NODES) {
                throw new IllegalArgumentException("the fabric has " + fabric.nodeCount() + " nodes; the simulator takes at most "
                        + (EventQueue.MAX_NODES - 1));
            }
            for (int n = 0; n < fabric.nodeCount(); n++) {
                if (fabric.portCount(n) > EventQueue.MAX_PORTS - 2) {
                    throw new IllegalArgumentException("node " + fabric.name(n) + " has " + fabric.portCount(n)
                            + " ports; the simulator takes at most " + (EventQueue.MAX_PORTS - 2)
                            + " per node, as an LFT can name (255 means no route)");
                }
            }
            if (tables.ar() != null && tables.ar().laneCount() > vls) { // the lane turns are written with AR off too
                throw new IllegalArgumentException(tables.engine() + "'s tables move packets to lane " + (tables.ar().laneCount() - 1)
                        + " (its detours' deadlock freedom needs " + tables.ar().laneCount() + " lanes), but the switches have " + vls
                        + "; run with at least " + tables.ar().laneCount() + " lanes (--vls)");
            }
        }
    }

    /** Hosts a simulation may have: its reordering state is 4 bytes per pair (4 GiB at this size). */
    public static final int MAX_HOSTS = 32_768;

    /** A flow of packets from endpoint {@code src} to {@code dst} while {@code startNs <= t < stopNs}. */
    public record Flow(int src, int dst, long startNs, long stopNs) {
    }

    /**
     * Per-flow throughput between two instants at which the set of flows changed: each flow's
     * bytes delivered over the phase's last four fifths (the first fifth lets queues settle), in
     * Gbps; and over the same window, each congested switch output with the share each of its
     * inputs got.
     */
    public record Phase(long startNs, long endNs, double[] flowGbps, List<PortShares.Output> congestedPorts) {
    }

    /**
     * What a run measured ({@code flowSeriesGbps}: with flows, each flow's throughput in
     * consecutive bins of {@code binNs}, a hundred over the run). Loads and throughput are fractions of the hosts' link rate over the
     * measured window; latencies are from a packet's creation (source queueing included) to its
     * delivery, for packets created in the window; {@code meanHops} counts links between switches.
     */
    public record Report(double offeredLoad, double throughput, double latencyMeanNs, long latencyP95Ns, long latencyP99Ns,
                         double meanHops, long packetsDelivered, long packetsDropped, long packetsRefused, long outOfOrder,
                         long packetHops, long events, long simulatedNs, long wallMillis, double eventsPerSecond,
                         double packetHopsPerSecond, long cpuMillis, double packetHopsPerCpuSecond, List<Phase> phases, long binNs,
                         double[][] flowSeriesGbps) {
    }

    static final int ARRIVE = 0;
    static final int CREDIT = 1;
    static final int FREE = 2;
    static final int INJECT = 3;
    static final int INJECT_FLOW = 4;
    /** Take a snapshot of the switches' counters (at the edges of each phase's measured window). */
    static final int SNAPSHOT = 5;
    private static final int SEND_QUEUE = 16;
    /** Packets a host's source may hold before its NIC takes them; more are refused (counted). */
    private static final int SOURCE_QUEUE = 1024;

    private final Config c;
    private final Fabric f;
    private final PacketPool pool;
    private final EventQueue queue;
    private final SwitchCore[] switchCore;
    private final HostCore[] hostCore;
    private final PortCounterArray[] counters;
    private final double nsPerByte;
    private final int frameBytes;
    private final double meanGapNs;
    private final int[] lidOfEndpoint;
    /**
     * Per global port, an event for the node and port at its other end with type and argument
     * still 0 ({@link EventQueue#with} fills them), or -1 if nothing is cabled there: one load
     * per packet sent or credit returned instead of three lookups in the fabric.
     */
    private final long[] peerEvent;
    private final long latencyNs;
    /** With source routes: per source endpoint's torus node, per destination's, the encoded route; and each endpoint's torus node. */
    private final long[][] routeBetween;
    private final int[] torusNodeOfEndpoint;
    private final int[] endpointOfLid;
    // per endpoint: its traffic source
    private final SplittableRandom[] random;
    private final long[][] backlog;
    /** Per queued source packet: its flow (flows mode), or -1 (the pattern picks the destination). */
    private final int[][] backlogFlow;
    private final long[] phaseBounds;
    /** Per phase, the switches' counters at the start and at the end of its measured window. */
    private final long[][][] snapshots;
    private final long[][] flowBytes;
    private final long binNs;
    private final long[][] flowBins;
    private final long flowGapNs;
    private final int[] backlogHead;
    private final int[] backlogCount;
    /**
     * Per host, the sequence number of its next packet: one counter over all its destinations, so
     * that the packets of each pair carry increasing numbers without a counter per pair (which a
     * thousand hosts would fetch from memory for every packet).
     */
    private final int[] nextSeq;
    /**
     * Per destination host, per source host: one more than the highest sequence number delivered
     * (0: none yet). A packet numbered below it was overtaken by a later one of its pair.
     */
    private final int[] expected;
    private long outOfOrder;
    private final int[] permutation;
    private final int[] groupOfEndpoint;
    private final int[][] hostsOfGroup;
    private final int[] nextInTurn;
    private final LatencyHistogram latency = new LatencyHistogram();
    private long now;
    private long generatedBytes;
    private long deliveredBytes;
    private long delivered;
    private long refused;
    private long hopSum;
    private long packetHops;

    private Simulation(Config c) throws TableWriteException {
        this.c = c;
        f = c.fabric();
        nsPerByte = 8.0 / c.linkGbps();
        frameBytes = FrameSizes.DATA_HEADER + c.payloadBytes();
        meanGapNs = frameBytes * nsPerByte / c.load();
        int endpoints = f.endpointCount();
        // every packet holds a send-queue slot or a credit of the buffer it is headed for
        long slots = (long) endpoints * c.vls() * SEND_QUEUE + 1;
        for (int g = 0; g < f.globalPortCount(); g++) {
            slots += f.peerNode(g) == Fabric.NONE ? 0 : (long) c.vls() * c.bufferPackets();
        }
        pool = new PacketPool(Math.toIntExact(slots));
        queue = new EventQueue(endpoints);
        switchCore = new SwitchCore[f.nodeCount()];
        hostCore = new HostCore[endpoints];
        counters = new PortCounterArray[f.nodeCount()];
        for (int n = 0; n < f.nodeCount(); n++) {
            counters[n] = new PortCounterArray(f.portCount(n), !c.flows().isEmpty()); // port shares are reported for flows only
            if (f.isSwitch(n)) {
                TableStore tables = new TableStore(f.portCount(n));
                tables.apply(TableInstall.batch(c.tables(), f.switchIndex(n), c.vls(), c.adaptive()));
                int node = n;
                switchCore[n] = new SwitchCore(f.portCount(n), c.vls(), c.bufferPackets(), tables, counters[n], pool,
                        new SwitchCore.Output() {
                            @Override
                            public void transmit(int port, int vl, int h, long t) {
                                packetHops++;
                                send(node, port, h, t);
                            }

                            @Override
                            public void returnCredit(int port, int vl, long t) {
                                credit(node, port, vl, t);
                            }

                            @Override
                            public void discarded(int h, int inPort, long t) {
                                pool.release(h);
                            }
                        });
            }
        }
        lidOfEndpoint = new int[endpoints];
        latencyNs = c.latencyNs();
        peerEvent = new long[f.globalPortCount()];
        for (int g = 0; g < peerEvent.length; g++) {
            peerEvent[g] = f.peerNode(g) == Fabric.NONE ? -1 : EventQueue.event(0, f.peerNode(g), f.peerPort(g), 0);
        }
        if (c.tables().sourceRoutes() != null) {
            routeBetween = encodedRoutes(c.tables().sourceRoutes());
            torusNodeOfEndpoint = new int[endpoints];
            for (int e = 0; e < endpoints; e++) {
                torusNodeOfEndpoint[e] = c.tables().sourceRoutes().torus().torusNode(f.endpointSwitch(e));
            }
        } else {
            routeBetween = null;
            torusNodeOfEndpoint = null;
        }
        endpointOfLid = new int[c.tables().lids().maxLid() + 1];
        Arrays.fill(endpointOfLid, -1);
        random = new SplittableRandom[endpoints];
        backlog = new long[endpoints][];
        backlogFlow = new int[endpoints][];
        backlogHead = new int[endpoints];
        backlogCount = new int[endpoints];
        nextSeq = new int[endpoints];
        expected = new int[Math.multiplyExact(endpoints, endpoints)];
        nextInTurn = new int[endpoints];
        SplittableRandom seeds = new SplittableRandom(c.seed());
        for (int e = 0; e < endpoints; e++) {
            int lid = c.tables().lids().endpointLid(e);
            lidOfEndpoint[e] = lid;
            endpointOfLid[lid] = e;
            random[e] = seeds.split();
            backlog[e] = new long[SOURCE_QUEUE];
            backlogFlow[e] = new int[SOURCE_QUEUE];
            int endpoint = e;
            int node = f.endpointNode(e);
            int port = f.endpointPort(e) - f.portBase(node) + 1;
            hostCore[e] = new HostCore(c.vls(), SEND_QUEUE, counters[node], pool, new HostCore.Output() {
                @Override
                public void transmit(int vl, int h, long t) {
                    send(node, port, h, t);
                }

                @Override
                public void returnCredit(int vl, long t) {
                    credit(node, port, vl, t);
                }

                @Override
                public void delivered(int h, long t) {
                    deliver(endpoint, h, t);
                }
            });
        }
        permutation = derangement(endpoints, new SplittableRandom(c.seed() ^ 0x5DEECE66DL));
        groupOfEndpoint = new int[endpoints];
        hostsOfGroup = c.pattern() == Pattern.GROUP_SHIFT && c.flows().isEmpty() ? hostsOfGroups(f, groupOfEndpoint) : new int[0][];
        java.util.TreeSet<Long> bounds = new java.util.TreeSet<>(List.of(0L, c.durationNs()));
        for (Flow fl : c.flows()) {
            bounds.add(Math.min(fl.startNs(), c.durationNs()));
            bounds.add(Math.min(fl.stopNs(), c.durationNs()));
        }
        phaseBounds = bounds.stream().mapToLong(Long::longValue).toArray();
        snapshots = new long[2 * (phaseBounds.length - 1)][][];
        flowBytes = new long[c.flows().size()][phaseBounds.length - 1];
        binNs = Math.max(1, c.durationNs() / 100);
        flowBins = new long[c.flows().size()][(int) ((c.durationNs() + binNs - 1) / binNs)];
        flowGapNs = Math.max(1, Math.round(meanGapNs));
    }

    /** Runs {@code config} to its end and reports. */
    public static Report run(Config config) {
        try {
            return new Simulation(config).simulate();
        } catch (TableWriteException e) {
            throw new IllegalArgumentException("the routing tables do not fit the fabric: " + e.getMessage(), e);
        }
    }

    private Report simulate() {
        long wall0 = System.nanoTime();
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        long cpu0 = mx.isCurrentThreadCpuTimeSupported() ? mx.getCurrentThreadCpuTime() : -1;
        for (int g = 0; g < f.globalPortCount(); g++) {
            if (f.peerNode(g) == Fabric.NONE) {
                continue;
            }
            int n = f.nodeOfGlobalPort(g);
            int port = g - f.portBase(n) + 1;
            if (f.isSwitch(n)) {
                switchCore[n].portActive(port, c.bufferPackets(), 0);
            } else {
                hostCore[f.endpointOfPort(g)].portActive(c.bufferPackets(), 0);
            }
        }
        if (c.flows().isEmpty()) {
            for (int e = 0; e < hostCore.length; e++) {
                queue.push(gap(e), EventQueue.event(INJECT, e, 0, 0));
            }
        } else {
            for (int i = 0; i < c.flows().size(); i++) {
                queue.push(c.flows().get(i).startNs(), EventQueue.event(INJECT_FLOW, 0, 0, i));
            }
            for (int p = 0; p + 1 < phaseBounds.length; p++) {
                queue.push(windowStart(p), EventQueue.event(SNAPSHOT, 0, 0, 2 * p));
                queue.push(phaseBounds[p + 1], EventQueue.event(SNAPSHOT, 0, 0, 2 * p + 1));
            }
        }
        long events = 0;
        while (!queue.isEmpty() && queue.peekTime() <= c.durationNs()) {
            long ev = queue.pop();
            now = queue.poppedTime();
            int kind = EventQueue.type(ev);
            int node = EventQueue.node(ev);
            int port = EventQueue.port(ev);
            int arg = EventQueue.arg(ev);
            events++;
            if (kind == INJECT) {
                inject(node, -1);
                queue.push(now + gap(node), EventQueue.event(INJECT, node, 0, 0));
                continue;
            }
            if (kind == SNAPSHOT) {
                snapshots[arg] = PortShares.snapshot(f, counters);
                continue;
            }
            if (kind == INJECT_FLOW) {
                Flow fl = c.flows().get(arg);
                if (now < fl.stopNs()) {
                    inject(fl.src(), arg);
                    queue.push(now + flowGapNs, EventQueue.event(INJECT_FLOW, 0, 0, arg));
                }
                continue;
            }
            if (f.isSwitch(node)) {
                SwitchCore s = switchCore[node];
                switch (kind) {
                    case ARRIVE -> s.packetArrived(port, arg, now);
                    case CREDIT -> s.creditReturned(port, arg, 1, now);
                    default -> s.linkFree(port, now);
                }
            } else {
                int e = f.endpointOfPort(f.globalPort(node, port));
                HostCore h = hostCore[e];
                switch (kind) {
                    case ARRIVE -> h.packetArrived(arg, now);
                    case CREDIT -> h.creditReturned(arg, 1, now);
                    default -> h.linkFree(now);
                }
                pump(e);
            }
        }
        long wallNanos = Math.max(1, System.nanoTime() - wall0);
        long cpuNanos = cpu0 < 0 ? wallNanos : Math.max(1, mx.getCurrentThreadCpuTime() - cpu0);
        return report(events, wallNanos, cpuNanos);
    }

    /** The core sends packet {@code h} from {@code node}'s {@code port}: the link is busy for its bytes, the peer has it after the delay. */
    private void send(int node, int port, int h, long t) {
        long peer = peerEvent[f.globalPort(node, port)];
        long done = t + (long) Math.ceil(pool.bytes(h) * nsPerByte);
        queue.push(done, EventQueue.event(FREE, node, port, 0));
        if (peer < 0) {
            pool.release(h);
            return;
        }
        queue.push(done + latencyNs, EventQueue.with(peer, ARRIVE, h));
    }

    private void credit(int node, int port, int vl, long t) {
        long peer = peerEvent[f.globalPort(node, port)];
        if (peer >= 0) {
            queue.push(t + latencyNs, EventQueue.with(peer, CREDIT, vl));
        }
    }

    /** Host {@code e}'s source creates a packet now, of {@code flow} (or -1: the pattern picks its destination). */
    private void inject(int e, int flow) {
        if (now >= c.warmupNs()) {
            generatedBytes += frameBytes;
        }
        if (backlogCount[e] == SOURCE_QUEUE) {
            refused++;
        } else {
            int slot = (backlogHead[e] + backlogCount[e]) % SOURCE_QUEUE;
            backlog[e][slot] = now;
            backlogFlow[e][slot] = flow;
            backlogCount[e]++;
        }
        pump(e);
    }

    /** Moves packets from the host's source queue into its NIC while the send queue has room. */
    private void pump(int e) {
        HostCore core = hostCore[e];
        while (backlogCount[e] > 0 && core.canOffer(0)) {
            int h = pool.allocate();
            if (h == PacketPool.NONE) {
                throw new IllegalStateException("packet pool exhausted: a packet was neither queued nor credited");
            }
            int flow = backlogFlow[e][backlogHead[e]];
            int d = flow < 0 ? destination(e) : c.flows().get(flow).dst();
            int dlid = lidOfEndpoint[d];
            pool.dlid(h, dlid);
            pool.slid(h, lidOfEndpoint[e]);
            pool.flow(h, flow < 0 ? (e << 16) ^ d : flow);
            pool.seq(h, nextSeq[e]++);
            int lane = c.tables().lanes().lane(e, dlid);
            pool.sl(h, (byte) lane);
            pool.vl(h, (byte) (lane % c.vls()));
            pool.hops(h, 0);
            if (routeBetween != null) {
                pool.route(h, routeBetween[torusNodeOfEndpoint[e]][torusNodeOfEndpoint[d]]);
            }
            pool.bytes(h, frameBytes);
            pool.timestamp(h, backlog[e][backlogHead[e]]);
            backlogHead[e] = (backlogHead[e] + 1) % SOURCE_QUEUE;
            backlogCount[e]--;
            core.offer(h, now);
        }
    }

    private int destination(int e) {
        int n = hostCore.length;
        return switch (c.pattern()) {
            case UNIFORM -> {
                int d = random[e].nextInt(n - 1);
                yield d >= e ? d + 1 : d;
            }
            case PERMUTATION -> permutation[e];
            case ALL_TO_ALL -> {
                int d = nextInTurn[e]++ % (n - 1);
                yield d >= e ? d + 1 : d;
            }
            case GROUP_SHIFT -> {
                int[] next = hostsOfGroup[(groupOfEndpoint[e] + 1) % hostsOfGroup.length];
                yield next[random[e].nextInt(next.length)];
            }
        };
    }

    /** The hosts of each group, numbered 0.. in order of the groups' numbers (group-shift traffic); empty otherwise. */
    private static int[][] hostsOfGroups(Fabric f, int[] groupOfEndpoint) {
        java.util.TreeMap<Integer, List<Integer>> byGroup = new java.util.TreeMap<>();
        for (int e = 0; e < f.endpointCount(); e++) {
            byGroup.computeIfAbsent(f.group(f.endpointNode(e)), k -> new ArrayList<>()).add(e);
        }
        if (byGroup.size() < 2 || byGroup.containsKey(-1)) {
            throw new IllegalArgumentException("group-shift traffic needs hosts in two or more groups (a dragonfly or dragonfly-plus "
                    + "topology), but this fabric's hosts are in " + (byGroup.containsKey(-1) ? "no group" : "one group"));
        }
        int[][] out = new int[byGroup.size()][];
        int i = 0;
        for (List<Integer> hosts : byGroup.values()) {
            out[i] = hosts.stream().mapToInt(Integer::intValue).toArray();
            for (int e : out[i]) {
                groupOfEndpoint[e] = i;
            }
            i++;
        }
        return out;
    }

    private void deliver(int e, int h, long t) {
        int src = endpointOfLid[pool.slid(h)];
        int k = e * hostCore.length + src;
        int next = pool.seq(h) + 1;
        if (expected[k] != 0 && next - expected[k] < 0) { // (wrap-safe: numbers may run past 2^31)
            outOfOrder++;
        } else {
            expected[k] = next;
        }
        if (t >= c.warmupNs()) {
            deliveredBytes += pool.bytes(h);
        }
        if (!c.flows().isEmpty()) {
            int bin = (int) Math.min(t / binNs, flowBins[0].length - 1);
            flowBins[pool.flow(h)][bin] += pool.bytes(h);
            int phase = Arrays.binarySearch(phaseBounds, t);
            phase = phase >= 0 ? phase : -phase - 2;
            if (phase < phaseBounds.length - 1 && t >= windowStart(phase)) {
                flowBytes[pool.flow(h)][phase] += pool.bytes(h);
            }
        }
        if (pool.timestamp(h) >= c.warmupNs()) {
            delivered++;
            latency.add(t - pool.timestamp(h));
            hopSum += Math.max(0, pool.hops(h) - 1);
        }
        pool.release(h);
    }

    /** Exponential gap (Poisson arrivals) with the mean that offers the configured load. */
    private long gap(int e) {
        return Math.max(1, (long) (-Math.log(1 - random[e].nextDouble()) * meanGapNs));
    }

    /** Where phase {@code p}'s measured window starts: after its first fifth, which lets queues settle. */
    private long windowStart(int p) {
        return phaseBounds[p] + (phaseBounds[p + 1] - phaseBounds[p]) / 5;
    }

    private Report report(long events, long wallNanos, long cpuNanos) {
        long window = c.durationNs() - c.warmupNs();
        double capacity = hostCore.length * (window / nsPerByte);
        long dropped = 0;
        for (int n = 0; n < f.nodeCount(); n++) {
            for (int p = 1; p <= f.portCount(n); p++) {
                dropped += counters[n].get(p, PortCounterArray.XMIT_DISCARDS);
            }
        }
        double seconds = wallNanos / 1e9;
        List<Phase> phases = new ArrayList<>();
        for (int p = 0; p + 1 < phaseBounds.length && !c.flows().isEmpty(); p++) {
            long measured = phaseBounds[p + 1] - windowStart(p);
            double[] gbps = new double[flowBytes.length];
            for (int i = 0; i < gbps.length; i++) {
                gbps[i] = flowBytes[i][p] * 8.0 / measured;
            }
            List<PortShares.Output> ports = snapshots[2 * p] == null || snapshots[2 * p + 1] == null || measured == 0 ? List.of()
                    : PortShares.congested(f, snapshots[2 * p], snapshots[2 * p + 1], measured, c.linkGbps());
            phases.add(new Phase(phaseBounds[p], phaseBounds[p + 1], gbps, ports));
        }
        double[][] series = new double[flowBins.length][];
        for (int i = 0; i < series.length; i++) {
            series[i] = new double[flowBins[i].length];
            for (int b = 0; b < series[i].length; b++) {
                series[i][b] = flowBins[i][b] * 8.0 / binNs;
            }
        }
        return new Report(generatedBytes / capacity, deliveredBytes / capacity, latency.mean(), latency.percentile(0.95),
                latency.percentile(0.99), delivered == 0 ? 0 : (double) hopSum / delivered, delivered, dropped, refused, outOfOrder,
                packetHops, events, c.durationNs(), wallNanos / 1_000_000, events / seconds, packetHops / seconds, cpuNanos / 1_000_000,
                packetHops / (cpuNanos / 1e9), phases, binNs, series);
    }

    /** Per pair of fabric switches (by torus node), the encoded source route between them, or 0. */
    private static long[][] encodedRoutes(org.fabriclab.routing.torus.SourceRoutes r) {
        int nodes = r.torus().nodes();
        long[][] out = new long[nodes][nodes];
        for (int i = 0; i < r.size(); i++) {
            for (int j = 0; j < r.size(); j++) {
                if (i == j || r.unroutable(i, j)) {
                    continue;
                }
                out[r.member(i)][r.member(j)] = org.fabriclab.routing.torus.SourceRoute.encode(r.directions(i, j));
            }
        }
        return out;
    }

    /** A random permutation of 0..n-1 with no fixed point (Sattolo's algorithm: one cycle). */
    static int[] derangement(int n, SplittableRandom r) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = r.nextInt(i);
            int x = p[i];
            p[i] = p[j];
            p[j] = x;
        }
        return p;
    }
}
