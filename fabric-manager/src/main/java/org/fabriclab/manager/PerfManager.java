package org.fabriclab.manager;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.proto.v1.GetPortCountersRequest;
import org.fabriclab.proto.v1.PortCounters;
import org.fabriclab.proto.v1.PortInfo;
import org.fabriclab.proto.v1.PortState;

/**
 * The performance manager: polls every linked port's counters on an interval (as OpenSM's perfmgr
 * does) and exports them per directed link: transmitted bytes and packets, transmit wait and
 * discards as counters, utilisation (the share of the link's rate used over the last interval) as
 * a gauge. Meters read this class's arrays at scrape time. Tags are the node and port names, so
 * their number is bounded by the fabric. Runs on its own {@code perf-manager} thread.
 */
public final class PerfManager implements AutoCloseable {
    private final FabricManager manager;
    private final MeterRegistry registry;
    private final long intervalMillis;
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "perf-manager");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Link> links = new ConcurrentHashMap<>();

    /** Counters of one directed link, as last polled. */
    static final class Link {
        volatile long xmitBytes;
        volatile long xmitPkts;
        volatile long xmitWaitNs;
        volatile long discards;
        volatile double utilisation;
        long lastBytes = -1;
        long lastNanos;
        double rateGbps;
    }

    public PerfManager(FabricManager manager, MeterRegistry registry, long intervalMillis) {
        this.manager = manager;
        this.registry = registry;
        this.intervalMillis = intervalMillis;
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
        for (DiscoveredNode n : s.discovered().nodes()) {
            if (poller.isShutdown()) {
                return;
            }
            for (PortInfo p : n.ports()) {
                if (p.getState() == PortState.PORT_STATE_DOWN || p.getNeighbourNodeGuid() == 0) {
                    continue;
                }
                try {
                    PortCounters c = manager.channels().blocking(n.endpoint())
                            .getPortCounters(GetPortCountersRequest.newBuilder().setPortNumber(p.getPortNumber()).build());
                    update(n.info().getDescription(), p, c);
                } catch (RuntimeException e) {
                    // a node that went away: its meters keep their last values until the next sweep
                }
            }
        }
    }

    private void update(String node, PortInfo p, PortCounters c) {
        String key = node + "/" + p.getPortNumber();
        Link l = links.computeIfAbsent(key, k -> register(node, p));
        long now = System.nanoTime();
        if (l.lastBytes >= 0 && now > l.lastNanos && l.rateGbps > 0) {
            double bits = (c.getXmitDataOctets() - l.lastBytes) * 8.0;
            l.utilisation = Math.max(0, Math.min(1, bits / ((now - l.lastNanos) * l.rateGbps)));
        }
        l.lastBytes = c.getXmitDataOctets();
        l.lastNanos = now;
        l.rateGbps = p.getRateGbps();
        l.xmitBytes = c.getXmitDataOctets();
        l.xmitPkts = c.getXmitPkts();
        l.xmitWaitNs = c.getXmitWaitNs();
        l.discards = c.getXmitDiscards();
    }

    private Link register(String node, PortInfo p) {
        Link l = new Link();
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
        return l;
    }

    /** One link's counters as last polled. */
    public record LinkSample(String node, int port, long xmitBytes, long xmitPkts, long xmitWaitNs, long discards,
                             double utilisation) {
    }

    /** Every polled link, in node/port order. */
    public java.util.List<LinkSample> samples() {
        java.util.List<LinkSample> out = new java.util.ArrayList<>();
        new java.util.TreeMap<>(links).forEach((k, l) -> {
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
