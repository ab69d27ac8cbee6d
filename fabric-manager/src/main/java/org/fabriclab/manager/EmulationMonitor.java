package org.fabriclab.manager;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import org.fabriclab.manager.channel.FanOut;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.proto.v1.EmulationStatus;
import org.fabriclab.proto.v1.GetEmulationStatusRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's side of the fidelity monitor: every perf interval asks every node for its
 * emulation status (GetEmulationStatus, fanned out) over the interval just ended, and exports the
 * {@code fabric_emulation_*} metrics of docs/metrics.md: the dilation in force, each node's worst
 * loop and link lag (model seconds), whether every lag stayed within its bound, and the changes of
 * D it saw. A fabric of real switches (or any node answering UNIMPLEMENTED) is not emulated: no
 * series, and the status says so. Polls on a thread of its own; {@link #summary} from any thread.
 */
public final class EmulationMonitor implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmulationMonitor.class);
    /** Concurrent GetEmulationStatus calls at most. */
    private static final int IN_FLIGHT = 8;

    /**
     * What {@code fabricctl status} shows: {@code dilation} 0 when the fabric is not emulated (or
     * not polled yet); the worst lag of the last poll in model seconds and where it was.
     */
    public record Summary(double dilation, boolean faithful, double worstLagSeconds, String worstWhere) {
        static final Summary NONE = new Summary(0, false, 0, "");
    }

    /** One node's lags of the last poll, read by its gauges. */
    private static final class Lags {
        volatile double loopSeconds;
        volatile double linkSeconds;
        Meter loop;
        Meter link;
    }

    private final FabricManager manager;
    private final MeterRegistry registry;
    private final long intervalMillis;
    private final ExecutorService io = Executors.newFixedThreadPool(2, daemon("emulation-monitor-io"));
    private final FanOut fanOut;
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(daemon("emulation-monitor"));
    private final Map<String, Lags> lags = new HashMap<>();
    private final Counter up;
    private final Counter down;
    private volatile Summary summary = Summary.NONE;
    private volatile double dilation = Double.NaN;
    private volatile double faithful = Double.NaN;
    /** Whether the fabric-wide gauges are registered yet (by the first poll that reached a node; the poller's thread). */
    private volatile boolean gauges;

    public EmulationMonitor(FabricManager manager, MeterRegistry registry, long intervalMillis) {
        this.manager = manager;
        this.registry = registry;
        this.intervalMillis = intervalMillis;
        fanOut = new FanOut(manager.channels(), io, IN_FLIGHT);
        up = changes("up");
        down = changes("down");
    }

    private Counter changes(String direction) {
        return Counter.builder("fabric.emulation.dilation.changes").tag("direction", direction)
                .description("changes of the time dilation seen between polls (auto raising or lowering D)").register(registry);
    }

    public void start() {
        poller.scheduleWithFixedDelay(this::pollQuietly, intervalMillis, intervalMillis, TimeUnit.MILLISECONDS);
    }

    /** The last poll's figures. */
    public Summary summary() {
        return summary;
    }

    private void pollQuietly() {
        try {
            poll();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("polling the emulation status failed; polling goes on", e);
        }
    }

    /** Polls every node once (tests call it directly). */
    public void poll() throws InterruptedException {
        FabricManager.Snapshot s = manager.snapshot();
        if (s.discovered() == null) {
            return;
        }
        List<DiscoveredNode> nodes = s.discovered().nodes();
        GetEmulationStatusRequest request = GetEmulationStatusRequest.newBuilder().setWindowMs((int) Math.min(Integer.MAX_VALUE, intervalMillis))
                .build();
        List<FanOut.Result<DiscoveredNode, EmulationStatus>> results = fanOut.run(nodes, FanOut.Retry.IDEMPOTENT,
                n -> fanOut.stub(n.endpoint()).getEmulationStatus(request));
        double d = 0;
        boolean within = true;
        double worst = -1;
        String where = "";
        Set<String> seen = new HashSet<>();
        for (FanOut.Result<DiscoveredNode, EmulationStatus> r : results) {
            if (!r.ok()) {
                if (!(r.failure() instanceof StatusRuntimeException e && e.getStatus().getCode() == Status.Code.UNIMPLEMENTED)) {
                    within = false; // a node that cannot say how late it is is not known to be faithful
                }
                continue;
            }
            EmulationStatus e = r.value();
            String node = r.item().info().getDescription();
            seen.add(node);
            d = Math.max(d, e.getDilation());
            within &= e.getLoopLagNs() <= e.getLagBoundNs() && e.getLinkLagNs() <= e.getLagBoundNs();
            Lags l = lags.computeIfAbsent(node, this::register);
            l.loopSeconds = e.getLoopLagNs() / 1e9;
            l.linkSeconds = e.getLinkLagNs() / 1e9;
            if (l.loopSeconds > worst) {
                worst = l.loopSeconds;
                where = node + " event loop";
            }
            if (l.linkSeconds > worst) {
                worst = l.linkSeconds;
                where = node + " port " + e.getLinkLagPort();
            }
        }
        lags.entrySet().removeIf(e -> {
            if (!seen.contains(e.getKey())) { // a node gone: its series go with it
                registry.remove(e.getValue().loop);
                registry.remove(e.getValue().link);
                return true;
            }
            return false;
        });
        if (seen.isEmpty()) {
            summary = Summary.NONE;
            dilation = Double.NaN;
            faithful = Double.NaN;
            return;
        }
        if (!Double.isNaN(dilation) && d != dilation) {
            (d > dilation ? up : down).increment();
        }
        dilation = d;
        faithful = within ? 1 : 0;
        summary = new Summary(d, within, Math.max(0, worst), where);
        if (!gauges) {
            registerGauges();
        }
    }

    /**
     * The fabric-wide gauges, from the first poll that reached a node on: before it they would be
     * NaN, and one NaN sample makes every average over a range that holds it NaN (the fidelity
     * dashboard's "time unfaithful in range" over the daemon's first seconds).
     */
    private void registerGauges() {
        Gauge.builder("fabric.emulation.dilation", this, m -> m.dilation).description("the time dilation D in force (1: real time)")
                .register(registry);
        Gauge.builder("fabric.emulation.faithful", this, m -> m.faithful)
                .description("1 if every lag stayed within the bound over the last poll").register(registry);
        gauges = true;
    }

    private Lags register(String node) {
        Lags l = new Lags();
        l.loop = lagGauge(l, node, "loop", x -> x.loopSeconds);
        l.link = lagGauge(l, node, "link", x -> x.linkSeconds);
        return l;
    }

    private Meter lagGauge(Lags l, String node, String source, ToDoubleFunction<Lags> value) {
        return Gauge.builder("fabric.emulation.lag", l, value).baseUnit("seconds").tags(Tags.of("node", node, "source", source))
                .description("worst lag over the last poll, model seconds: loop, how far the node's event loop ran behind; link, how far "
                        + "its frames departed behind their model time (its worst link)").register(registry);
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    @Override
    public void close() {
        poller.shutdownNow();
        io.shutdownNow();
    }
}
