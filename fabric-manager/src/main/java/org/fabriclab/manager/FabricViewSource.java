package org.fabriclab.manager;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.fabriclab.manager.web.FabricView;
import org.fabriclab.manager.web.PortReading;
import org.fabriclab.manager.web.ViewState;

/**
 * Where the fabric view ({@code manager.web}, which knows neither the manager nor the perf
 * manager, so that the packages stay free of cycles) gets its state: the manager's snapshot, and
 * the one place it reads the perf manager: its {@link PerfManager#samples()} for counters and
 * utilisation, and the gauges it registers under the metric names of {@code docs/metrics.md}
 * ({@code fabric.port.congested}, {@code fabric.port.input.fairness}, {@code
 * fabric.port.input.share}) for congestion and input shares, which {@code samples()} does not
 * carry. When the perf manager's API changes, only this class follows it.
 */
public final class FabricViewSource implements Supplier<Map<String, PortReading>> {
    private final PerfManager perf;
    private final MeterRegistry registry;

    private FabricViewSource(PerfManager perf, MeterRegistry registry) {
        this.perf = perf;
        this.registry = registry;
    }

    /** The fabric view of {@code manager}'s state and {@code perf}'s polls ({@code perf} registers its meters in {@code registry}). */
    public static FabricView view(FabricManager manager, PerfManager perf, MeterRegistry registry) {
        return new FabricView(() -> state(manager.snapshot()), new FabricViewSource(perf, registry));
    }

    /** The view's state of a snapshot: the tables only if they are of the fabric discovered last. */
    static ViewState state(FabricManager.Snapshot s) {
        if (s.discovered() == null) {
            return new ViewState(s.state().name(), null, null, s.tableVersion());
        }
        boolean routed = s.outcome() != null && s.outcome().fabric() == s.discovered().fabric();
        return new ViewState(s.state().name(), s.discovered().fabric(), routed ? s.outcome().tables() : null, s.tableVersion());
    }

    /** Every polled port by {@link PortReading#key}, as last polled. */
    @Override
    public Map<String, PortReading> get() {
        Map<String, Double> congested = new HashMap<>();
        Map<String, Double> fairness = new HashMap<>();
        Map<String, List<double[]>> shares = new HashMap<>();
        // one pass over the registry (a search per name would pass over every meter each time: 240,000 on the 18-ary 3-tree)
        registry.forEachMeter(m -> {
            if (!(m instanceof Gauge g)) {
                return;
            }
            switch (g.getId().getName()) {
                case "fabric.port.congested" -> congested.put(key(g), g.value());
                case "fabric.port.input.fairness" -> fairness.put(key(g), g.value());
                case "fabric.port.input.share" -> {
                    double v = g.value();
                    String input = g.getId().getTag("input");
                    if (v > 0 && input != null) {
                        shares.computeIfAbsent(key(g), k -> new ArrayList<>()).add(new double[] {Integer.parseInt(input), v});
                    }
                }
                default -> {
                }
            }
        });
        Map<String, PortReading> out = new HashMap<>();
        for (PerfManager.LinkSample s : perf.samples()) {
            String k = PortReading.key(s.node(), s.port());
            boolean hot = congested.getOrDefault(k, 0.0) == 1;
            List<double[]> in = hot ? shares.getOrDefault(k, List.of()).stream().sorted(Comparator.comparingDouble(x -> x[0])).toList()
                    : List.of();
            int[] inputs = in.stream().mapToInt(x -> (int) x[0]).toArray();
            double[] share = in.stream().mapToDouble(x -> x[1]).toArray();
            out.put(k, new PortReading(s.node(), s.port(), s.utilisation(), s.xmitBytes(), s.xmitPkts(), s.xmitWaitNs(), s.discards(),
                    hot, fairness.getOrDefault(k, Double.NaN), inputs, share));
        }
        return out;
    }

    private static String key(Gauge g) {
        return PortReading.key(g.getId().getTag("node"), Integer.parseInt(g.getId().getTag("port")));
    }
}
