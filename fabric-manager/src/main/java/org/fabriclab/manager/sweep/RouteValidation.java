package org.fabriclab.manager.sweep;

import java.util.List;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.routing.analysis.Connectivity;
import org.fabriclab.routing.analysis.RouteReport;
import org.fabriclab.routing.engine.ArTables;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.engine.EngineGuarantees;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.torus.SourceRouteAnalysis;

/**
 * The checks a heavy sweep makes before any switch is touched: every pair of connected hosts
 * routed and no loop; consistent AR tables; source routes without a cycle of channel
 * dependencies; and what the engine promises ({@link EngineGuarantees}, data, not its name):
 * deadlock freedom (an acyclic channel dependency graph per lane) and the lanes its tables need,
 * which every switch must have. A failure is a {@link SweepException} naming the engine and,
 * where one is at fault, the switch, and saying that nothing was changed.
 */
final class RouteValidation {
    private RouteValidation() {
    }

    static void validate(Discovery.Result d, EngineChain.Result routed, RouteReport r) throws SweepException {
        Fabric f = d.fabric();
        ForwardingTables t = routed.tables();
        String engine = routed.engine();
        if (r.unreachablePairs() > 0) {
            // pairs in different components of a partitioned fabric cannot be routed by anyone
            long disconnected = Connectivity.disconnectedPairs(f);
            if (r.unreachablePairs() > disconnected || r.unreachableReasons().containsKey("routing loop")) {
                throw new SweepException(engine + " left " + r.unreachablePairs() + " host pairs unrouted ("
                        + r.unreachableReasons() + ", e.g. " + r.unreachableExamples() + "); no switch was changed");
            }
        }
        List<String> ar = ArTables.problems(t, 5);
        if (!ar.isEmpty()) {
            throw new SweepException(engine + "'s adaptive-routing tables are inconsistent: " + ar + "; no switch was changed");
        }
        if (t.sourceRoutes() != null) {
            SourceRouteAnalysis.Report a = SourceRouteAnalysis.analyze(t.sourceRoutes());
            if (!a.deadlockFree()) {
                throw new SweepException(engine + "'s source routes have a cycle of channel dependencies with a turn " + a.cycle()
                        + "; no switch was changed");
            }
        }
        EngineGuarantees g = routed.guarantees();
        if (g.deadlockFree() && !g.sourceRoutes() && !r.deadlockFree()) {
            throw new SweepException(engine + " promises deadlock freedom but the channel dependency graph has a cycle "
                    + r.cdgCycle() + "; no switch was changed");
        }
        requireLanes(d, t, engine, g);
    }

    /** Every switch must have the data VLs the tables need (a switch that reports none is not judged). */
    private static void requireLanes(Discovery.Result d, ForwardingTables t, String engine, EngineGuarantees g) throws SweepException {
        int needed = g.lanesNeeded(t);
        if (needed <= 1) {
            return;
        }
        Fabric f = t.fabric();
        for (int s = 0; s < f.switchCount(); s++) {
            int vls = dataVls(d, s);
            if (vls != 0 && vls < needed) {
                throw new SweepException(engine + " needs " + needed + " data VLs (it declares " + g.lanes() + "; its paths use "
                        + t.lanes().laneCount() + ", its adaptive-routing lane turns " + (t.ar() == null ? 1 : t.ar().laneCount())
                        + (t.dragonfly() == null ? "" : ", its Dragonfly algorithm's virtual channels " + t.dragonfly().algorithm().vcs())
                        + "), but switch " + f.name(f.switchNode(s)) + " has " + vls + "; run the switches with more lanes (--vls), or "
                        + "an engine that needs fewer ('fabricctl engines' lists what each needs); no switch was changed");
            }
        }
    }

    /** Switch {@code s}'s data VLs as discovery read them (0: not reported). */
    static int dataVls(Discovery.Result d, int s) {
        Fabric f = d.fabric();
        DiscoveredNode node = d.byGuid().get(f.nodeGuid(f.switchNode(s)));
        return node == null || node.switchInfo() == null ? 0 : node.switchInfo().getDataVls();
    }
}
