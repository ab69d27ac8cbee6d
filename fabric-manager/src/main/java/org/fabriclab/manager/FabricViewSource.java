package org.fabriclab.manager;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.fabriclab.manager.web.FabricView;
import org.fabriclab.manager.web.PortReading;
import org.fabriclab.manager.web.ViewState;

/**
 * Where the fabric view ({@code manager.web}, which knows neither the manager nor the perf
 * manager, so that the packages stay free of cycles) gets its state: the manager's snapshot, and
 * the one place it reads the perf manager: its {@link PerfManager#samples()} for counters,
 * utilisation, congestion and input shares. When the perf manager's API changes, only this class
 * follows it.
 */
public final class FabricViewSource implements Supplier<Map<String, PortReading>> {
    private final PerfManager perf;

    private FabricViewSource(PerfManager perf) {
        this.perf = perf;
    }

    /** The fabric view of {@code manager}'s state and {@code perf}'s polls. */
    public static FabricView view(FabricManager manager, PerfManager perf) {
        return new FabricView(() -> state(manager.snapshot()), new FabricViewSource(perf));
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
        Map<String, PortReading> out = new HashMap<>();
        for (PerfManager.LinkSample s : perf.samples()) {
            out.put(PortReading.key(s.node(), s.port()), new PortReading(s.node(), s.port(), s.utilisation(), s.xmitBytes(),
                    s.xmitPkts(), s.xmitWaitNs(), s.discards(), s.rcvErrors(), s.congested(), s.inputFairness(), s.inputs(), s.shares()));
        }
        return out;
    }
}
