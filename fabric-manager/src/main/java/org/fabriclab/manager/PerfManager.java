package org.fabriclab.manager;

import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.model.snapshots.Labels;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.fabriclab.manager.channel.FanOut;
import org.fabriclab.manager.channel.NodeChannels;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.proto.v1.FlowCounter;
import org.fabriclab.proto.v1.FlowCounters;
import org.fabriclab.proto.v1.GetNodeCountersRequest;
import org.fabriclab.proto.v1.NodeCounters;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortCounters;
import org.fabriclab.proto.v1.PortInfo;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.proto.v1.QLearning;
import org.fabriclab.proto.v1.XmitDiscards;
import org.fabriclab.routing.analysis.Fairness;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricLayout;

/**
 * The performance manager: polls every node's counters on an interval, as OpenSM's perfmgr does,
 * with one {@code GetNodeCounters} call per node (every port, the node's adaptive decisions and a
 * host's flow counters in one reply), fanned out as discovery is ({@link FanOut}, retried once
 * or twice on UNAVAILABLE and DEADLINE_EXCEEDED). From two polls it computes, in the nodes' model
 * time ({@code model_time_ns}; the manager's wall clock where a node reports 0):
 * <ul>
 *   <li>per directed link: utilisation; per switch output, whether it was congested ({@link
 *       Fairness#congested}), Jain's index over its inputs, and each input's share while it is
 *       congested (dropped after {@value #SHARE_POLLS} polls without congestion);
 *   <li>per flow (source to destination, as the destination counts it) its throughput, of which
 *       the top K are kept; per destination what it received, Jain's index over its flows and the
 *       packets out of order; over all active flows the coefficient of variation.
 * </ul>
 * State is plain fields read racily at scrape time by {@link PerfMetrics}, which builds the
 * per-link series from them then (tens of thousands of links are not tens of thousands of
 * meters). The links and nodes are those of the last discovery: a link gone after a sweep loses
 * its series. A node that fails a poll is counted in {@code fabric.perf.poll.failures}: {@code
 * kind=node} for a gRPC status (a node gone, a deadline; its series keep their last values and the
 * next poll tries again), {@code kind=unexpected} for anything else, logged with the node; either
 * way polling goes on with the other nodes. Polls run on the {@code perf-manager} thread, the
 * calls on the {@code perf-io} pool (separate from the sweeps' pool, so a slow poll never delays
 * a sweep).
 */
public final class PerfManager implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PerfManager.class);

    /** Flows exported with their own series when no limit is given. */
    public static final int DEFAULT_TOP_FLOWS = 20;
    /** Polls an input's share outlives its port's last congested poll. */
    public static final int SHARE_POLLS = 10;
    /**
     * Switch outputs whose input shares are exported, the most congested first (congested in the
     * last poll, then by utilisation): an overloaded 18-ary 3-tree congests tens of thousands of
     * outputs with up to 36 inputs each, which would be a million series; 64 outputs are at most
     * 2,304. The fabric view and {@link #samples()} still carry every output's shares.
     */
    public static final int SHARE_OUTPUTS = 64;
    /** The {@code reason} label of {@code XmitDiscards}' fields, in their order. */
    static final String[] DISCARD_REASONS = {"no_route", "no_lane", "port_down", "overflow", "link_lost"};
    /** Calls in flight at once. */
    private static final int IO_THREADS = 8;

    /** Where a node's counters come from: its agent ({@code GetNodeCounters}), or a benchmark's made-up ones. */
    @FunctionalInterface
    public interface CounterSource {
        NodeCounters read(DiscoveredNode node);
    }

    private final Supplier<FabricManager.Snapshot> snapshots;
    private final CounterSource source;
    private final long intervalMillis;
    private final int topFlows;
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> thread(r, "perf-manager"));
    private final ExecutorService io = Executors.newFixedThreadPool(IO_THREADS, r -> thread(r, "perf-io"));
    private final FanOut fanOut;
    private final Counter nodeFailures;
    private final Counter unexpectedFailures;
    private final PerfMetrics metrics;
    private final PrometheusMeterRegistry prometheus;

    // written by the polling thread only (poll is not reentrant: synchronized), read at scrape time
    private volatile Discovery.Result labelled;
    private volatile List<Link> links = List.of();
    private volatile List<Node> nodes = List.of();
    private final Map<String, Link[]> linksByNode = new HashMap<>();
    private final Map<String, Node> nodeByName = new HashMap<>();
    private final Map<String, Destination> destinations = new ConcurrentHashMap<>();
    private volatile List<FlowRate> top = List.of();
    volatile int flowsActive;
    volatile double flowCov = Double.NaN;
    volatile double pollSeconds = Double.NaN;

    /** Counters of one directed link, as last polled, and what it is. */
    static final class Link {
        final String node;
        final int port;
        final boolean sw;
        String remoteNode = "";
        int remotePort;
        String kind = "";
        double rateGbps;
        volatile long xmitBytes;
        volatile long xmitPkts;
        volatile long xmitWaitNs;
        volatile long discards;
        /** In the order of {@link #DISCARD_REASONS}. */
        final long[] discardsByReason = new long[DISCARD_REASONS.length];
        /** Frames the port received with an error and dropped (PortRcvErrors). */
        volatile long rcvErrors;
        volatile double utilisation;
        volatile long queued;
        volatile long waitingHeads;
        volatile double congested;
        volatile double inputFairness = Double.NaN;
        long lastBytes = -1;
        long lastWaitNs;
        long lastTime;
        int uncongestedPolls;
        /** Per input port: bytes sent through this port as last polled. */
        final Map<Integer, long[]> inputBytes = new HashMap<>();
        /** Per input port: its share over the last poll, while the port has been congested within {@link #SHARE_POLLS} polls. */
        final Map<Integer, double[]> inputShare = new ConcurrentHashMap<>();
        /** The exposition's labels of this link and of its {@code fabric_link_info}, made once per discovery ({@link PerfMetrics}). */
        Labels labels;
        Labels infoLabels;

        Link(String node, int port, boolean sw) {
            this.node = node;
            this.port = port;
            this.sw = sw;
        }
    }

    /**
     * One node as discovered, its adaptive decisions as last polled and, for a switch learning a
     * Q-adaptive table, its learning; with what they did over the last poll's interval; for a host,
     * its NIC counters as last polled.
     */
    static final class Node {
        final String name;
        final long guid;
        final boolean sw;
        final String level;
        final String group;
        final String coordinates;
        volatile long adaptiveMinimal;
        volatile long adaptiveNonminimal;
        /** Non-minimal decisions over all decisions in the last interval; NaN if none was taken (or no interval yet). */
        volatile double nonminimalShare = Double.NaN;
        volatile boolean decisionsPolled;
        /** False until a poll found the node learning a Q-table; the learning fields are its last poll's. */
        volatile boolean learning;
        volatile long qUpdates;
        volatile long qExplorations;
        volatile long qChangePs;
        /** The absolute changes of the Q-values in the last interval, summed, over the table's entries, in seconds; NaN before an interval. */
        volatile double qChangeMeanSeconds = Double.NaN;
        /** False until a poll found the node a NIC with counters (a host with a data plane); the NIC fields are its last poll's. */
        volatile boolean nic;
        volatile long nicRequestFlits;
        volatile long nicStalledCycles;
        volatile long nicLatencyPackets;
        volatile long nicReceivedHops;
        volatile long nicLatencyNs;
        /** The NIC's congestion control ("" if none) and its control packets, as last polled. */
        volatile String nicCc = "";
        volatile long nicCnpsReceived;
        volatile long nicAcksReceived;
        volatile long nicControlSent;
        volatile long nicControlDropped;
        /** The host's job ("" if none) and its counters as a receiver, as last polled. */
        volatile String nicJob = "";
        volatile long jobMessages;
        volatile long jobMessageNs;
        volatile long jobPackets;
        volatile long jobNonminimal;
        volatile long jobIterations;
        volatile long jobIterationNs;
        volatile long jobRefused;
        /** Packets received of the job by routing mode code (empty: no job), as last polled. */
        volatile long[] jobModePackets = new long[0];
        /** Whether the last poll found the node a switch marking ECN, and its packets marked then. */
        volatile boolean ecn;
        volatile long ecnMarked;
        Labels labels;
        Labels infoLabels;

        Node(String name, long guid, boolean sw, String level, String group, String coordinates) {
            this.name = name;
            this.guid = guid;
            this.sw = sw;
            this.level = level;
            this.group = group;
            this.coordinates = coordinates;
        }
    }

    /** One destination host: its flows' bytes as last polled (by source LID), and the aggregates over the last poll. */
    static final class Destination {
        final String node;
        final Map<Integer, Long> lastBytes = new HashMap<>();
        long lastTime = -1;
        volatile double receiveBps;
        volatile double jain = Double.NaN;
        volatile long outOfOrder;
        Labels labels;

        Destination(String node) {
            this.node = node;
        }
    }

    /** A flow's throughput over the last poll, in bytes per second of model time. */
    public record FlowRate(String src, String dst, double bps) {
    }

    public PerfManager(FabricManager manager, MeterRegistry registry, long intervalMillis) {
        this(manager, registry, intervalMillis, DEFAULT_TOP_FLOWS);
    }

    /** Exporting the {@code topFlows} flows of the highest throughput with their own series. */
    public PerfManager(FabricManager manager, MeterRegistry registry, long intervalMillis, int topFlows) {
        this(manager::snapshot, manager.channels(), null, registry, intervalMillis, topFlows);
    }

    /**
     * Polling what {@code snapshots} says was discovered, through {@code channels} or, if {@code
     * source} is given, from it (benchmarks, tests). On a {@link PrometheusMeterRegistry} the
     * series are exported ({@link PerfMetrics}); on any other only the failures are counted.
     */
    PerfManager(Supplier<FabricManager.Snapshot> snapshots, NodeChannels channels, CounterSource source, MeterRegistry registry,
                long intervalMillis, int topFlows) {
        if (topFlows < 0) {
            throw new IllegalArgumentException("--top-flows is 0 or more; got " + topFlows);
        }
        this.snapshots = snapshots;
        this.fanOut = new FanOut(channels, io, IO_THREADS);
        this.source = source != null ? source
                : n -> fanOut.stub(n.endpoint()).getNodeCounters(GetNodeCountersRequest.getDefaultInstance());
        this.intervalMillis = intervalMillis;
        this.topFlows = topFlows;
        nodeFailures = failures(registry, "node", "polls a node refused or did not answer (gRPC status: a node gone, a deadline)");
        unexpectedFailures = failures(registry, "unexpected", "polls that failed for another reason (a bug: see the log)");
        metrics = new PerfMetrics(this);
        prometheus = registry instanceof PrometheusMeterRegistry p ? p : null;
        if (prometheus != null) {
            prometheus.getPrometheusRegistry().register(metrics);
        }
    }

    private static Counter failures(MeterRegistry registry, String kind, String description) {
        return Counter.builder("fabric.perf.poll.failures").tag("kind", kind).description(description).register(registry);
    }

    private static Thread thread(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    public void start() {
        poller.scheduleWithFixedDelay(this::poll, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
    }

    /** Polls every node once (also used by tests and benchmarks); one poll at a time. */
    public synchronized void poll() {
        FabricManager.Snapshot s = snapshots.get();
        if (s.discovered() == null || poller.isShutdown()) {
            return;
        }
        long t0 = System.nanoTime();
        if (s.discovered() != labelled) {
            relabel(s.discovered());
        }
        Map<Integer, String> byLid = new HashMap<>();
        if (s.outcome() != null) {
            Fabric f = s.outcome().fabric();
            for (int e = 0; e < f.endpointCount(); e++) {
                byLid.put(s.outcome().lids().endpointLid(e), f.name(f.endpointNode(e)));
            }
        }
        List<FanOut.Result<DiscoveredNode, NodeCounters>> results;
        try {
            results = fanOut.run(s.discovered().nodes(), FanOut.Retry.IDEMPOTENT, source::read);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        Flows flows = new Flows(topFlows);
        for (FanOut.Result<DiscoveredNode, NodeCounters> r : results) {
            String name = r.item().info().getDescription();
            if (r.failure() instanceof StatusRuntimeException) {
                nodeFailures.increment();
            } else if (r.failure() != null) {
                unexpected(r.failure(), name);
            } else {
                try {
                    update(name, r.value(), byLid, flows);
                } catch (RuntimeException e) {
                    unexpected(e, name);
                }
            }
        }
        top = flows.top();
        flowsActive = flows.active;
        flowCov = flows.cov();
        pollSeconds = (System.nanoTime() - t0) / 1e9;
    }

    /** A failure polling cannot expect: counted, logged with the node, and polling goes on with the next. */
    private void unexpected(Throwable e, String node) {
        unexpectedFailures.increment();
        LOG.error("polling the counters of {} failed unexpectedly; polling goes on with the others", node, e);
    }

    /**
     * A new discovery: the links and nodes to export are now its own, with their far ends, kinds
     * and layout. A link or node still there keeps its counters (and its ports' input shares);
     * one gone is dropped with its series, a destination gone with its flows.
     */
    private void relabel(Discovery.Result d) {
        Fabric f = d.fabric();
        FabricLayout layout = FabricLayout.of(f);
        Map<String, Link> before = new HashMap<>();
        links.forEach(l -> before.put(l.node + "/" + l.port, l));
        List<Link> nowLinks = new ArrayList<>();
        List<Node> nowNodes = new ArrayList<>();
        Set<String> hosts = new HashSet<>();
        linksByNode.clear();
        nodeByName.clear();
        for (DiscoveredNode n : d.nodes()) {
            String name = n.info().getDescription();
            boolean sw = n.info().getType() == NodeType.NODE_TYPE_SWITCH;
            int v = f.nodeByGuid(n.info().getNodeGuid()).orElse(Fabric.NONE);
            int[] coords = v == Fabric.NONE ? null : layout.coordinates(v);
            Node node = new Node(name, n.info().getNodeGuid(), sw, v == Fabric.NONE ? "" : known(layout.level(v)),
                    v == Fabric.NONE ? "" : known(layout.group(v)), coords == null ? "" : join(coords));
            nowNodes.add(node);
            nodeByName.put(name, node);
            if (!sw) {
                hosts.add(name);
            }
            Link[] byPort = new Link[n.ports().size() + 1];
            for (PortInfo p : n.ports()) {
                if (p.getState() == PortState.PORT_STATE_DOWN || p.getNeighbourNodeGuid() == 0 || p.getPortNumber() >= byPort.length) {
                    continue;
                }
                Link l = before.get(name + "/" + p.getPortNumber());
                if (l == null || l.sw != sw) {
                    l = new Link(name, p.getPortNumber(), sw);
                }
                DiscoveredNode far = d.byGuid().get(p.getNeighbourNodeGuid());
                l.remoteNode = far == null ? "" : far.info().getDescription();
                l.remotePort = p.getNeighbourPort();
                String kind = v == Fabric.NONE ? null : layout.linkKind(v, p.getPortNumber());
                l.kind = kind == null ? "" : kind;
                l.rateGbps = p.getRateGbps();
                l.infoLabels = null;
                byPort[p.getPortNumber()] = l;
                nowLinks.add(l);
            }
            linksByNode.put(name, byPort);
        }
        nowLinks.sort(Comparator.comparing((Link l) -> l.node).thenComparingInt(l -> l.port));
        nowNodes.sort(Comparator.comparing(n -> n.name));
        destinations.keySet().retainAll(hosts);
        links = List.copyOf(nowLinks);
        nodes = List.copyOf(nowNodes);
        labelled = d;
    }

    private static String known(int v) {
        return v == Fabric.NONE ? "" : Integer.toString(v);
    }

    private static String join(int[] coords) {
        StringBuilder sb = new StringBuilder();
        for (int c : coords) {
            sb.append(sb.length() == 0 ? "" : ",").append(c);
        }
        return sb.toString();
    }

    /** One node's reply: its linked ports, its adaptive decisions, a host's flows. */
    private void update(String name, NodeCounters nc, Map<Integer, String> byLid, Flows flows) {
        long now = nc.getModelTimeNs() != 0 ? nc.getModelTimeNs() : System.nanoTime();
        Link[] byPort = linksByNode.get(name);
        if (byPort != null) {
            for (PortCounters c : nc.getPortsList()) {
                int p = c.getPortNumber();
                if (p > 0 && p < byPort.length && byPort[p] != null) {
                    update(byPort[p], c, now);
                }
            }
        }
        Node node = nodeByName.get(name);
        if (node != null) {
            learning(node, nc);
        }
        if (nc.hasFlows()) {
            pollFlows(name, nc.getFlows(), now, byLid, flows);
        }
    }

    /**
     * A switch's adaptive decisions and Q-adaptive learning, and what they did since the last poll:
     * the share of non-minimal decisions, and how far its Q-values moved per table entry. A counter
     * that went back (reset) starts the interval over.
     */
    private static void learning(Node node, NodeCounters nc) {
        if (nc.hasNic()) {
            node.nicRequestFlits = nc.getNic().getRequestFlits();
            node.nicStalledCycles = nc.getNic().getRequestFlitsStalledCycles();
            node.nicLatencyPackets = nc.getNic().getLatencyPackets();
            node.nicLatencyNs = nc.getNic().getLatencyNsSum();
            node.nicReceivedHops = nc.getNic().getReceivedHops();
            node.nicCc = nc.getNic().getCongestionControl();
            node.nicCnpsReceived = nc.getNic().getCnpsReceived();
            node.nicAcksReceived = nc.getNic().getAcksReceived();
            node.nicControlSent = nc.getNic().getControlSent();
            node.nicControlDropped = nc.getNic().getControlDropped();
            node.nicJob = nc.getNic().getJob();
            node.jobMessages = nc.getNic().getJobMessages();
            node.jobMessageNs = nc.getNic().getJobMessageNsSum();
            node.jobPackets = nc.getNic().getJobPackets();
            node.jobNonminimal = nc.getNic().getJobNonminimalPackets();
            node.jobIterations = nc.getNic().getJobIterations();
            node.jobIterationNs = nc.getNic().getJobIterationNsSum();
            node.jobRefused = nc.getNic().getJobRefusedMessages();
            node.jobModePackets = nc.getNic().getJobModePacketsList().stream().mapToLong(Long::longValue).toArray();
            node.nic = true;
        }
        node.ecnMarked = nc.getEcn().getMarked();
        node.ecn = nc.hasEcn(); // a switch that stops marking (restarted without --ecn) loses its series
        if (nc.hasAdaptiveDecisions()) {
            long min = nc.getAdaptiveDecisions().getMinimal();
            long nonmin = nc.getAdaptiveDecisions().getNonminimal();
            long dMin = min - node.adaptiveMinimal;
            long dNonmin = nonmin - node.adaptiveNonminimal;
            node.nonminimalShare = node.decisionsPolled && dMin >= 0 && dNonmin >= 0 && dMin + dNonmin > 0 ? dNonmin / (double) (dMin + dNonmin)
                    : Double.NaN;
            node.adaptiveMinimal = min;
            node.adaptiveNonminimal = nonmin;
            node.decisionsPolled = true;
        }
        if (!nc.hasQLearning()) {
            node.learning = false;
            node.qChangeMeanSeconds = Double.NaN;
            return;
        }
        QLearning q = nc.getQLearning();
        long moved = q.getChangePs() - node.qChangePs;
        node.qChangeMeanSeconds = node.learning && moved >= 0 && q.getEntries() > 0 ? moved / 1e12 / q.getEntries() : Double.NaN;
        node.qUpdates = q.getUpdates();
        node.qExplorations = q.getExplorations();
        node.qChangePs = q.getChangePs();
        node.learning = true;
    }

    private static void update(Link l, PortCounters c, long now) {
        boolean interval = l.lastBytes >= 0 && now > l.lastTime;
        if (interval && l.rateGbps > 0) {
            double bits = Math.max(0, c.getXmitDataOctets() - l.lastBytes) * 8.0;
            l.utilisation = Math.min(1, bits / ((now - l.lastTime) * l.rateGbps));
        }
        if (interval && l.sw) {
            boolean congested = inputShares(l, c, now - l.lastTime);
            l.congested = congested ? 1 : 0;
            l.uncongestedPolls = congested ? 0 : l.uncongestedPolls + 1;
            if (l.uncongestedPolls >= SHARE_POLLS) {
                l.inputShare.clear();
            }
        }
        if (!interval && l.sw) {
            c.getInputBytesList().forEach(x -> l.inputBytes.put(x.getInputPort(), new long[] {x.getBytes()}));
        }
        l.lastBytes = c.getXmitDataOctets();
        l.lastWaitNs = c.getXmitWaitNs();
        l.lastTime = now;
        l.xmitBytes = c.getXmitDataOctets();
        l.xmitPkts = c.getXmitPkts();
        l.xmitWaitNs = c.getXmitWaitNs();
        l.discards = c.getXmitDiscards();
        XmitDiscards why = c.getXmitDiscardsByReason();
        long[] byReason = {why.getNoRoute(), why.getNoLane(), why.getPortDown(), why.getOverflow(), why.getLinkLost()};
        System.arraycopy(byReason, 0, l.discardsByReason, 0, byReason.length);
        l.rcvErrors = c.getRcvErrors();
        l.queued = c.getInputQueuedPackets();
        l.waitingHeads = c.getOutputWaitingHeads();
    }

    /**
     * The bytes each input sent through {@code l} in the interval of {@code intervalNs}: Jain's index
     * over the inputs that sent any, and, if the port was congested, each input's share of what it
     * sent (an input that sent nothing this time reads 0 while its port keeps its shares).
     * Congested as {@link Fairness#congested} says.
     *
     * @return whether the port was congested
     */
    private static boolean inputShares(Link l, PortCounters c, long intervalNs) {
        Map<Integer, Long> delta = new HashMap<>();
        long total = 0;
        for (var x : c.getInputBytesList()) {
            long[] last = l.inputBytes.computeIfAbsent(x.getInputPort(), k -> new long[1]);
            long d = Math.max(0, x.getBytes() - last[0]); // a reset counter starts over
            last[0] = x.getBytes();
            if (d > 0) {
                delta.put(x.getInputPort(), d);
                total += d;
            }
        }
        double[] v = delta.values().stream().mapToDouble(Long::doubleValue).toArray();
        l.inputFairness = v.length == 0 ? Double.NaN : Fairness.jain(v);
        boolean congested = Fairness.congested(delta.size(), l.utilisation, c.getXmitWaitNs() - l.lastWaitNs, intervalNs);
        for (double[] share : l.inputShare.values()) {
            share[0] = 0;
        }
        if (congested && delta.size() > 1) {
            for (var e : delta.entrySet()) {
                l.inputShare.computeIfAbsent(e.getKey(), in -> new double[1])[0] = e.getValue() / (double) total;
            }
        }
        return congested;
    }

    /** One destination's flow counters: each flow's throughput over the interval, offered to the top K, and the destination's aggregates. */
    private void pollFlows(String dst, FlowCounters fc, long now, Map<Integer, String> byLid, Flows flows) {
        Destination d = destinations.computeIfAbsent(dst, Destination::new);
        boolean interval = d.lastTime >= 0 && now > d.lastTime;
        double received = 0;
        double sum = 0;
        double sumSq = 0;
        int active = 0;
        long outOfOrder = 0;
        for (FlowCounter x : fc.getFlowsList()) {
            Long last = d.lastBytes.put(x.getSourceLid(), x.getBytes());
            outOfOrder += x.getOutOfOrder();
            if (!interval || last == null) {
                continue;
            }
            double bps = Math.max(0, x.getBytes() - last) * 1e9 / (now - d.lastTime);
            if (bps > 0) {
                received += bps;
                sum += bps;
                sumSq += bps * bps;
                active++;
                flows.offer(x.getSourceLid(), dst, bps, byLid);
            }
        }
        d.lastTime = now;
        d.outOfOrder = outOfOrder;
        if (interval) {
            d.receiveBps = received;
            d.jain = active == 0 ? Double.NaN : sum * sum / (active * sumSq);
        }
    }

    /** The flows of one poll: the top K by throughput, and the sums the coefficient of variation needs. */
    static final class Flows {
        private final int k;
        private final PriorityQueue<FlowRate> heap = new PriorityQueue<>(Comparator.comparingDouble(FlowRate::bps));
        int active;
        private double sum;
        private double sumSq;

        Flows(int k) {
            this.k = k;
        }

        void offer(int srcLid, String dst, double bps, Map<Integer, String> byLid) {
            active++;
            sum += bps;
            sumSq += bps * bps;
            if (k == 0 || (heap.size() == k && bps <= heap.peek().bps())) {
                return;
            }
            String src = byLid.get(srcLid);
            heap.add(new FlowRate(src == null ? "lid" + srcLid : src, dst, bps));
            if (heap.size() > k) {
                heap.poll();
            }
        }

        /** The top K, highest first. */
        List<FlowRate> top() {
            List<FlowRate> out = new ArrayList<>(heap);
            out.sort(Comparator.comparingDouble(FlowRate::bps).reversed());
            return List.copyOf(out);
        }

        /** Standard deviation over mean of the active flows' throughputs; NaN with none. */
        double cov() {
            if (active == 0) {
                return Double.NaN;
            }
            double mean = sum / active;
            return Math.sqrt(Math.max(0, sumSq / active - mean * mean)) / mean;
        }
    }

    List<Link> links() {
        return links;
    }

    List<Node> nodes() {
        return nodes;
    }

    Iterable<Destination> destinations() {
        return destinations.values();
    }

    /** The top K flows of the last poll, highest throughput first. */
    public List<FlowRate> topFlows() {
        return top;
    }

    /**
     * One link's counters as last polled; for a switch output also whether it was congested over
     * the last poll, Jain's index over its inputs (NaN if none sent) and, when congested, each
     * input port's share, inputs in ascending order.
     */
    public record LinkSample(String node, int port, long xmitBytes, long xmitPkts, long xmitWaitNs, long discards, long rcvErrors,
                             double utilisation, boolean congested, double inputFairness, int[] inputs, double[] shares) {
    }

    /**
     * One host's NIC counters as last polled (management's {@code NicCounters}); its job "" if none;
     * a closed-loop job's iterations on its rank 0's host only; its job's packets received by the
     * routing mode they asked for, indexed by the mode's header code (empty without a job).
     */
    public record NicSample(String node, long requestFlits, long stalledCycles, long latencyPackets, long latencyNsSum, long receivedHops,
                            String congestionControl, long cnpsReceived, long acksReceived, long controlSent, long controlDropped,
                            String job, long jobMessages, long jobMessageNs, long jobPackets, long jobNonminimal, long jobIterations,
                            long jobIterationNs, long jobRefused, long[] jobModePackets) {
        public NicSample {
            jobModePackets = jobModePackets.clone();
        }

        @Override
        public long[] jobModePackets() {
            return jobModePackets.clone();
        }
    }

    /** Every polled host's NIC counters, in node order. */
    public List<NicSample> nicSamples() {
        List<NicSample> out = new ArrayList<>();
        for (Node n : nodes) {
            if (n.nic) {
                out.add(new NicSample(n.name, n.nicRequestFlits, n.nicStalledCycles, n.nicLatencyPackets, n.nicLatencyNs, n.nicReceivedHops,
                        n.nicCc, n.nicCnpsReceived, n.nicAcksReceived, n.nicControlSent, n.nicControlDropped, n.nicJob, n.jobMessages,
                        n.jobMessageNs, n.jobPackets, n.jobNonminimal, n.jobIterations, n.jobIterationNs, n.jobRefused, n.jobModePackets));
            }
        }
        return out;
    }

    /** Every polled link, in node/port order. */
    public List<LinkSample> samples() {
        List<LinkSample> out = new ArrayList<>();
        for (Link l : links) {
            if (l.lastBytes >= 0) {
                boolean hot = l.congested == 1;
                TreeMap<Integer, Double> in = new TreeMap<>();
                if (hot) {
                    l.inputShare.forEach((port, share) -> {
                        if (share[0] > 0) {
                            in.put(port, share[0]);
                        }
                    });
                }
                out.add(new LinkSample(l.node, l.port, l.xmitBytes, l.xmitPkts, l.xmitWaitNs, l.discards, l.rcvErrors, l.utilisation, hot,
                        l.inputFairness, in.keySet().stream().mapToInt(Integer::intValue).toArray(),
                        in.values().stream().mapToDouble(Double::doubleValue).toArray()));
            }
        }
        return out;
    }

    @Override
    public void close() {
        if (prometheus != null) {
            prometheus.getPrometheusRegistry().unregister(metrics);
        }
        // let a poll in progress finish: interrupting an in-process call mid-way is noisy and gains nothing
        poller.shutdown();
        try {
            if (!poller.awaitTermination(10, TimeUnit.SECONDS)) {
                poller.shutdownNow();
            }
        } catch (InterruptedException e) {
            poller.shutdownNow();
            Thread.currentThread().interrupt();
        }
        io.shutdownNow();
    }
}
