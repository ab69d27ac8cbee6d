package org.fabriclab.manager;

import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.proto.v1.FlowCounter;
import org.fabriclab.proto.v1.FlowCounters;
import org.fabriclab.proto.v1.GetFlowCountersRequest;
import org.fabriclab.proto.v1.GetPortCountersRequest;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortCounters;
import org.fabriclab.proto.v1.PortInfo;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.routing.analysis.Fairness;

/**
 * The performance manager: polls every linked port's counters on an interval (as OpenSM's perfmgr
 * does) and every channel adapter's flow counters, and exports:
 * <ul>
 *   <li>per directed link: transmitted bytes and packets, transmit wait and discards (counters);
 *       utilisation over the last interval, input-buffer depth and heads waiting (gauges);
 *   <li>per switch output port, over the last interval: whether it was congested ({@link
 *       Fairness#congested}: inputs competing at high utilisation, or credit waits), Jain's fairness index
 *       over the input ports that sent through it, and for congested ports each input's share;
 *   <li>per flow (source to destination node, as the destination counts them): throughput over
 *       the last interval, bytes and packets out of order (counters), up to {@code maxFlows} flows;
 *       and per destination, Jain's index over the flows it received in the interval (a hot
 *       spot's fairness, the paper's C2 experiments).
 * </ul>
 * Meters read this class's fields at scrape time. Tags are node, port and input names, so their
 * number is bounded by the fabric (input shares only for ports that were congested, flows by
 * {@code maxFlows}). A poll that fails is counted in {@code fabric.perf.poll.failures}: {@code
 * kind=node} for a gRPC status (a node gone, a deadline; expected, the next poll tries again),
 * {@code kind=unexpected} for anything else, logged with the node and port; either way polling
 * goes on with the next port. Runs on its own {@code perf-manager} thread.
 */
public final class PerfManager implements AutoCloseable {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(PerfManager.class);
    private final FabricManager manager;
    private final MeterRegistry registry;
    private final long intervalMillis;
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "perf-manager");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Link> links = new ConcurrentHashMap<>();
    private final Map<String, Flow> flows = new ConcurrentHashMap<>();
    private final Map<String, Destination> destinations = new ConcurrentHashMap<>();
    private final int maxFlows;
    private boolean warnedFlows;
    /** Polls a node refused or did not answer (a gRPC status: a node gone, a deadline): expected, the next poll tries again. */
    private final Counter nodeFailures;
    /** Polls that failed for any other reason (a bug): logged with the node and port, and polling goes on. */
    private final Counter unexpectedFailures;

    /** Flows exported when no limit is given. */
    public static final int DEFAULT_MAX_FLOWS = 4096;

    /** Counters of one directed link, as last polled. */
    static final class Link {
        volatile long xmitBytes;
        volatile long xmitPkts;
        volatile long xmitWaitNs;
        volatile long discards;
        volatile double utilisation;
        volatile long queued;
        volatile long waitingHeads;
        volatile double congested;
        volatile double inputFairness = Double.NaN;
        long lastBytes = -1;
        long lastWaitNs;
        long lastNanos;
        double rateGbps;
        /** Per input port: bytes sent through this port as last polled, and the share over the last interval. */
        final Map<Integer, long[]> inputBytes = new HashMap<>();
        final Map<Integer, double[]> inputShare = new ConcurrentHashMap<>();
        String node;
        int port;
    }

    /** One flow as its destination counts it. */
    static final class Flow {
        volatile long bytes;
        volatile long outOfOrder;
        volatile double gbps;
        long lastBytes = -1;
        long lastNanos;
    }

    /** One destination's flows' fairness over the last interval. */
    static final class Destination {
        volatile double jain = Double.NaN;
    }

    public PerfManager(FabricManager manager, MeterRegistry registry, long intervalMillis) {
        this(manager, registry, intervalMillis, DEFAULT_MAX_FLOWS);
    }

    /** With {@code maxFlows} the most flows exported (the first seen); more are counted in the log, once. */
    public PerfManager(FabricManager manager, MeterRegistry registry, long intervalMillis, int maxFlows) {
        if (maxFlows < 0) {
            throw new IllegalArgumentException("the flow limit is not negative; got " + maxFlows);
        }
        this.manager = manager;
        this.registry = registry;
        this.intervalMillis = intervalMillis;
        this.maxFlows = maxFlows;
        nodeFailures = failures("node", "polls a node refused or did not answer (gRPC status: a node gone, a deadline)");
        unexpectedFailures = failures("unexpected", "polls that failed for another reason (a bug: see the log)");
    }

    private Counter failures(String kind, String description) {
        return Counter.builder("fabric.perf.poll.failures").tag("kind", kind).description(description).register(registry);
    }

    public void start() {
        poller.scheduleWithFixedDelay(this::poll, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
    }

    /** Polls once (also used by tests and by {@code fabricctl counters}). */
    public void poll() {
        FabricManager.Snapshot s = manager.snapshot();
        if (s.discovered() == null) {
            return;
        }
        Map<Integer, String> byLid = new HashMap<>();
        if (s.outcome() != null) {
            var f = s.outcome().fabric();
            for (int e = 0; e < f.endpointCount(); e++) {
                byLid.put(s.outcome().lids().endpointLid(e), f.name(f.endpointNode(e)));
            }
        }
        for (DiscoveredNode n : s.discovered().nodes()) {
            if (poller.isShutdown()) {
                return;
            }
            boolean sw = n.info().getType() == NodeType.NODE_TYPE_SWITCH;
            for (PortInfo p : n.ports()) {
                if (p.getState() == PortState.PORT_STATE_DOWN || p.getNeighbourNodeGuid() == 0) {
                    continue;
                }
                try {
                    PortCounters c = manager.channels().blocking(n.endpoint())
                            .getPortCounters(GetPortCountersRequest.newBuilder().setPortNumber(p.getPortNumber()).build());
                    update(n.info().getDescription(), p, c, sw);
                } catch (StatusRuntimeException e) {
                    // a node that went away: its meters keep their last values until the next sweep
                    nodeFailures.increment();
                } catch (RuntimeException e) {
                    unexpected(e, "the port counters of " + n.info().getDescription() + " port " + p.getPortNumber());
                }
            }
            if (!sw) {
                try {
                    pollFlows(n.info().getDescription(), manager.channels().blocking(n.endpoint())
                            .getFlowCounters(GetFlowCountersRequest.getDefaultInstance()), byLid);
                } catch (StatusRuntimeException e) {
                    nodeFailures.increment();
                } catch (RuntimeException e) {
                    unexpected(e, "the flow counters of " + n.info().getDescription());
                }
            }
        }
    }

    /** A failure polling cannot expect: counted, logged with what was polled, and polling goes on with the next. */
    private void unexpected(RuntimeException e, String what) {
        unexpectedFailures.increment();
        LOG.error("polling {} failed unexpectedly; polling goes on with the others", what, e);
    }

    private void update(String node, PortInfo p, PortCounters c, boolean sw) {
        String key = node + "/" + p.getPortNumber();
        Link l = links.computeIfAbsent(key, k -> register(node, p, sw));
        long now = System.nanoTime();
        boolean interval = l.lastBytes >= 0 && now > l.lastNanos;
        if (interval && l.rateGbps > 0) {
            double bits = (c.getXmitDataOctets() - l.lastBytes) * 8.0;
            l.utilisation = Math.max(0, Math.min(1, bits / ((now - l.lastNanos) * l.rateGbps)));
        }
        if (interval && sw) {
            l.congested = inputShares(l, c, now - l.lastNanos) ? 1 : 0;
        }
        if (!interval && sw) {
            c.getInputBytesList().forEach(x -> l.inputBytes.put(x.getInputPort(), new long[] {x.getBytes()}));
        }
        l.lastBytes = c.getXmitDataOctets();
        l.lastWaitNs = c.getXmitWaitNs();
        l.lastNanos = now;
        l.rateGbps = p.getRateGbps();
        l.xmitBytes = c.getXmitDataOctets();
        l.xmitPkts = c.getXmitPkts();
        l.xmitWaitNs = c.getXmitWaitNs();
        l.discards = c.getXmitDiscards();
        l.queued = c.getInputQueuedPackets();
        l.waitingHeads = c.getOutputWaitingHeads();
    }

    /**
     * The bytes each input sent through {@code l} in the interval of {@code intervalNs}: Jain's index
     * over the inputs that sent any, and, if the port was congested, each input's share of what it
     * sent (an input's gauge is registered the first time its port is congested, and reads 0 in an
     * interval it sent nothing in). Congested as {@link Fairness#congested} says.
     *
     * @return whether the port was congested
     */
    private boolean inputShares(Link l, PortCounters c, long intervalNs) {
        Map<Integer, Long> delta = new TreeMap<>();
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
                l.inputShare.computeIfAbsent(e.getKey(), in -> registerShare(l, in))[0] = e.getValue() / (double) total;
            }
        }
        return congested;
    }

    private double[] registerShare(Link l, int input) {
        double[] share = new double[1];
        Gauge.builder("fabric.port.input.share", share, x -> x[0]).baseUnit("ratio")
                .description("share of a congested switch output's bytes that came from one input port, over the last interval")
                .tags(Tags.of("node", l.node, "port", Integer.toString(l.port), "input", Integer.toString(input))).register(registry);
        return share;
    }

    /** One destination's flow counters: each flow's throughput over the interval and the destination's fairness. */
    private void pollFlows(String dst, FlowCounters fc, Map<Integer, String> byLid) {
        long now = System.nanoTime();
        List<Double> active = new ArrayList<>();
        for (FlowCounter x : fc.getFlowsList()) {
            String src = byLid.getOrDefault(x.getSourceLid(), "lid" + x.getSourceLid());
            String key = src + ">" + dst;
            Flow f = flows.get(key);
            if (f == null) {
                if (flows.size() >= maxFlows) {
                    if (!warnedFlows) {
                        warnedFlows = true;
                        LOG.warn("more than {} flows: the flows seen after that are not exported (the destinations' fairness still "
                                + "counts them); raise the limit with --max-flow-metrics", maxFlows);
                    }
                    f = new Flow(); // measured, not exported
                } else {
                    f = flows.computeIfAbsent(key, k -> registerFlow(src, dst));
                }
            }
            if (f.lastBytes >= 0 && now > f.lastNanos) {
                f.gbps = Math.max(0, x.getBytes() - f.lastBytes) * 8.0 / (now - f.lastNanos);
                if (f.gbps > 0) {
                    active.add(f.gbps);
                }
            }
            f.lastBytes = x.getBytes();
            f.lastNanos = now;
            f.bytes = x.getBytes();
            f.outOfOrder = x.getOutOfOrder();
        }
        Destination d = destinations.computeIfAbsent(dst, k -> {
            Destination n = new Destination();
            Gauge.builder("fabric.destination.flow.fairness", n, y -> y.jain)
                    .description("Jain's index over the throughputs of the flows a node received in the last interval")
                    .tags(Tags.of("node", k)).register(registry);
            return n;
        });
        d.jain = active.isEmpty() ? Double.NaN : Fairness.jain(active.stream().mapToDouble(Double::doubleValue).toArray());
    }

    private Flow registerFlow(String src, String dst) {
        Flow f = new Flow();
        Tags tags = Tags.of("src", src, "dst", dst);
        Gauge.builder("fabric.flow.throughput", f, x -> x.gbps).baseUnit("gbps")
                .description("a flow's throughput at its destination over the last interval").tags(tags).register(registry);
        FunctionCounter.builder("fabric.flow.received", f, x -> x.bytes).baseUnit("bytes")
                .description("bytes of a flow its destination received").tags(tags).register(registry);
        FunctionCounter.builder("fabric.flow.out.of.order", f, x -> x.outOfOrder).baseUnit("packets")
                .description("packets of a flow that arrived after a later one (reordering, as adaptive routing causes)").tags(tags)
                .register(registry);
        return f;
    }

    private Link register(String node, PortInfo p, boolean sw) {
        Link l = new Link();
        l.node = node;
        l.port = p.getPortNumber();
        Tags tags = Tags.of("node", node, "port", Integer.toString(p.getPortNumber()));
        FunctionCounter.builder("fabric.port.transmit.bytes", l, x -> x.xmitBytes).baseUnit("bytes")
                .description("bytes sent on the link").tags(tags).register(registry);
        FunctionCounter.builder("fabric.port.transmit.packets", l, x -> x.xmitPkts).baseUnit("packets")
                .description("packets sent on the link").tags(tags).register(registry);
        FunctionCounter.builder("fabric.port.transmit.wait", l, x -> x.xmitWaitNs / 1e9).baseUnit("seconds")
                .description("time a packet was ready but the port had no credit (PortXmitWait)").tags(tags).register(registry);
        FunctionCounter.builder("fabric.port.transmit.discards", l, x -> x.discards).baseUnit("packets")
                .description("packets discarded (no route, link failed)").tags(tags).register(registry);
        Gauge.builder("fabric.port.utilisation", l, x -> x.utilisation).baseUnit("ratio")
                .description("share of the link's rate used over the last polling interval").tags(tags).register(registry);
        Gauge.builder("fabric.port.queue.depth", l, x -> x.queued).baseUnit("packets")
                .description("packets in the port's input buffers when last polled, every lane").tags(tags).register(registry);
        Gauge.builder("fabric.port.waiting.heads", l, x -> x.waitingHeads)
                .description("input-buffer heads waiting for this port as their output when last polled (contention)").tags(tags)
                .register(registry);
        if (!sw) {
            return l;
        }
        Gauge.builder("fabric.port.congested", l, x -> x.congested)
                .description("1 if the switch output was congested over the last interval (inputs competing at 0.9 utilisation or more, or credit waits)")
                .tags(tags).register(registry);
        Gauge.builder("fabric.port.input.fairness", l, x -> x.inputFairness)
                .description("Jain's index over the bytes each input port sent through this switch output in the last interval")
                .tags(tags).register(registry);
        return l;
    }

    /** One link's counters as last polled. */
    public record LinkSample(String node, int port, long xmitBytes, long xmitPkts, long xmitWaitNs, long discards,
                             double utilisation) {
    }

    /** Every polled link, in node/port order. */
    public List<LinkSample> samples() {
        List<LinkSample> out = new ArrayList<>();
        new TreeMap<>(links).forEach((k, l) -> {
            int slash = k.lastIndexOf('/');
            out.add(new LinkSample(k.substring(0, slash), Integer.parseInt(k.substring(slash + 1)), l.xmitBytes, l.xmitPkts,
                    l.xmitWaitNs, l.discards, l.utilisation));
        });
        return out;
    }

    @Override
    public void close() {
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
    }
}
