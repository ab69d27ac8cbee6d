package org.fabriclab.manager.sweep;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.fabriclab.manager.NodeChannels;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.proto.v1.GetLftBlockRequest;
import org.fabriclab.proto.v1.LftBlock;
import org.fabriclab.proto.v1.PortInfo;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.proto.v1.SetPortInfoRequest;
import org.fabriclab.proto.v1.WriteTablesRequest;
import org.fabriclab.routing.analysis.RouteAnalyzer;
import org.fabriclab.routing.analysis.RouteReport;
import org.fabriclab.routing.engine.EngineChain;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.lid.LidAssignment;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One heavy sweep after discovery, as OpenSM's: assign LIDs (keeping remembered ones), route with
 * the engine chain, validate the routes before any switch is touched (every pair of connected
 * hosts routed, no loop, an acyclic channel dependency graph where the engine promises one), then
 * push. The push has two phases: first every switch gets its new tables, each switch swapping its
 * own whole (a versioned all-or-nothing write of only the blocks that changed); only then are
 * ports armed and activated, so no host sends before every table is in.
 */
public final class HeavySweep {
    private static final Logger LOG = LoggerFactory.getLogger(HeavySweep.class);
    private static final int BLOCK = 64;

    private final NodeChannels channels;
    private final ExecutorService executor;
    /** What this manager last wrote to each switch (by GUID): a push compares against it without reading back. */
    private final Map<Long, Pushed> pushed = new java.util.concurrent.ConcurrentHashMap<>();

    private record Pushed(long version, byte[] table, int top) {
    }

    public HeavySweep(NodeChannels channels, ExecutorService executor) {
        this.channels = channels;
        this.executor = executor;
    }

    /** What a sweep produced. */
    public record Outcome(Fabric fabric, LidAssignment lids, ForwardingTables tables, RouteReport report,
                          int changedBlocks, int activatedPorts, long routingMillis, long pushMillis) {
    }

    /**
     * Runs the sweep on a discovered fabric.
     *
     * @param previousLids remembered LIDs by port GUID (a restart keeps them)
     */
    public Outcome run(Discovery.Result d, EngineChain chain, Map<Long, Integer> previousLids)
            throws SweepException, InterruptedException {
        Fabric f = d.fabric();
        LidAssignment lids = LidAssigner.assign(f, previousLids);
        long t0 = System.nanoTime();
        EngineChain.Result routed;
        try {
            routed = chain.route(new RoutingRequest(f, lids, RoutingOptions.DEFAULTS));
        } catch (RoutingException e) {
            throw new SweepException("no engine of the chain " + chain.names() + " could route the fabric: " + e.getMessage());
        }
        long routingMillis = (System.nanoTime() - t0) / 1_000_000;
        for (RoutingException x : routed.failures()) {
            LOG.warn("routing engine fell back: {}", x.getMessage());
        }
        RouteReport report = RouteAnalyzer.analyze(routed.tables());
        validate(f, routed, report);
        long t1 = System.nanoTime();
        int changed = pushTables(d, routed.tables());
        int activated = activate(d, lids);
        long pushMillis = (System.nanoTime() - t1) / 1_000_000;
        return new Outcome(f, lids, routed.tables(), report, changed, activated, routingMillis, pushMillis);
    }

    private static void validate(Fabric f, EngineChain.Result routed, RouteReport r) throws SweepException {
        if (r.unreachablePairs() > 0) {
            // pairs in different components of a partitioned fabric cannot be routed by anyone
            long disconnected = disconnectedPairs(f);
            if (r.unreachablePairs() > disconnected || r.unreachableReasons().containsKey("routing loop")) {
                throw new SweepException(routed.engine() + " left " + r.unreachablePairs() + " host pairs unrouted ("
                        + r.unreachableReasons() + ", e.g. " + r.unreachableExamples() + "); no switch was changed");
            }
        }
        if (routed.engine().equals("updn") && !r.deadlockFree()) {
            throw new SweepException("updn promises deadlock freedom but the channel dependency graph has a cycle "
                    + r.cdgCycle() + "; no switch was changed");
        }
    }

    private static long disconnectedPairs(Fabric f) {
        org.fabriclab.routing.engine.SwitchGraph g = new org.fabriclab.routing.engine.SwitchGraph(f);
        int[] comp = new int[g.switchCount()];
        Arrays.fill(comp, -1);
        int[] dist = new int[g.switchCount()];
        int[] queue = new int[g.switchCount()];
        int c = 0;
        for (int s = 0; s < comp.length; s++) {
            if (comp[s] < 0) {
                g.bfs(s, dist, queue);
                for (int x = 0; x < dist.length; x++) {
                    if (dist[x] != org.fabriclab.routing.engine.SwitchGraph.UNREACHABLE) {
                        comp[x] = c;
                    }
                }
                c++;
            }
        }
        long[] hosts = new long[Math.max(c, 1)];
        for (int e = 0; e < f.endpointCount(); e++) {
            int sw = f.endpointSwitch(e);
            if (sw >= 0) {
                hosts[comp[f.switchIndex(sw)]]++;
            }
        }
        long n = f.endpointCount();
        long connected = 0;
        for (long h : hosts) {
            connected += h * (h - 1);
        }
        return n * (n - 1) - connected;
    }

    /** Phase 1: each switch gets the blocks that differ from what it holds, in one versioned write. */
    private int pushTables(Discovery.Result d, ForwardingTables t) throws SweepException, InterruptedException {
        Fabric f = t.fabric();
        int blocks = (t.lids().maxLid() + BLOCK) / BLOCK;
        List<Future<Integer>> futures = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int s = 0; s < f.switchCount(); s++) {
            int sw = s;
            DiscoveredNode node = d.byGuid().get(f.nodeGuid(f.switchNode(s)));
            names.add(f.name(f.switchNode(s)));
            futures.add(executor.submit(() -> pushSwitch(node, t.table(sw), blocks, t.lids().maxLid())));
        }
        int changed = 0;
        List<String> failed = new ArrayList<>();
        for (int i = 0; i < futures.size(); i++) {
            try {
                changed += futures.get(i).get();
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                failed.add(names.get(i) + ": " + (c instanceof StatusRuntimeException s ? s.getStatus().getCode() + " "
                        + s.getStatus().getDescription() : c.toString()));
            }
        }
        if (!failed.isEmpty()) {
            throw new SweepException("table push failed on " + failed.size() + " switch(es), which keep their previous tables: "
                    + failed.subList(0, Math.min(5, failed.size())) + "; ports were not activated; the next sweep retries");
        }
        return changed;
    }

    private Integer pushSwitch(DiscoveredNode node, byte[] table, int blocks, int maxLid) {
        long guid = node.info().getNodeGuid();
        long version = channels.blocking(node.endpoint())
                .getSwitchInfo(org.fabriclab.proto.v1.GetSwitchInfoRequest.getDefaultInstance()).getTableVersion();
        Pushed known = pushed.get(guid);
        boolean trusted = known != null && known.version() == version;
        WriteTablesRequest.Builder w = WriteTablesRequest.newBuilder().setFromVersion(version).setToVersion(version + 1)
                .setLftTop(maxLid);
        byte[] full = new byte[blocks * BLOCK];
        Arrays.fill(full, (byte) 0xFF);
        System.arraycopy(table, 0, full, 0, Math.min(table.length, full.length));
        for (int b = 0; b < blocks; b++) {
            byte[] want = Arrays.copyOfRange(full, b * BLOCK, (b + 1) * BLOCK);
            byte[] held;
            if (trusted) {
                held = new byte[BLOCK];
                Arrays.fill(held, (byte) 0xFF);
                int from = b * BLOCK;
                if (from < known.table().length) {
                    System.arraycopy(known.table(), from, held, 0, Math.min(BLOCK, known.table().length - from));
                }
            } else {
                // a switch we did not write last (a restart, another manager): read what it holds
                held = channels.blocking(node.endpoint()).getLftBlock(GetLftBlockRequest.newBuilder().setBlock(b).build())
                        .getPorts().toByteArray();
            }
            if (!Arrays.equals(held, want)) {
                w.addLftBlocks(LftBlock.newBuilder().setBlock(b).setPorts(ByteString.copyFrom(want)));
            }
        }
        int top = trusted ? known.top() : node.switchInfo() == null ? -1 : node.switchInfo().getLftTop();
        if (w.getLftBlocksCount() == 0 && top == maxLid) {
            pushed.put(guid, new Pushed(version, full, maxLid));
            return 0;
        }
        int changed = channels.blocking(node.endpoint()).writeTables(w.build()).getChangedBlocks();
        pushed.put(guid, new Pushed(version + 1, full, maxLid));
        return changed;
    }

    /** Phase 2: LIDs on every node, then every linked port ARMED, then ACTIVE (ports already ACTIVE are left alone). */
    private int activate(Discovery.Result d, LidAssignment lids) throws SweepException, InterruptedException {
        Fabric f = d.fabric();
        Map<Long, Integer> nodeOf = new HashMap<>();
        for (int n = 0; n < f.nodeCount(); n++) {
            nodeOf.put(f.nodeGuid(n), n);
        }
        List<Future<Integer>> futures = new ArrayList<>();
        for (DiscoveredNode dn : d.nodes()) {
            int n = nodeOf.get(dn.info().getNodeGuid());
            futures.add(executor.submit(() -> activateNode(dn, f, n, lids)));
        }
        int activated = 0;
        for (Future<Integer> fu : futures) {
            try {
                activated += fu.get();
            } catch (ExecutionException e) {
                throw new SweepException("activating ports failed: " + e.getCause().getMessage());
            }
        }
        return activated;
    }

    private int activateNode(DiscoveredNode dn, Fabric f, int n, LidAssignment lids) {
        int activated = 0;
        for (PortInfo p : dn.ports()) {
            int port = p.getPortNumber();
            if (f.peerNode(f.globalPort(n, port)) < 0) {
                continue;
            }
            int lid = lids.lidOf(f, n, port);
            var stub = channels.blocking(dn.endpoint());
            if (p.getState() == PortState.PORT_STATE_ACTIVE && p.getLid() == lid) {
                continue;
            }
            if (p.getState() == PortState.PORT_STATE_INIT) {
                stub.setPortInfo(SetPortInfoRequest.newBuilder().setPortNumber(port).setLid(lid).setState(PortState.PORT_STATE_ARMED).build());
            } else if (p.getLid() != lid) {
                stub.setPortInfo(SetPortInfoRequest.newBuilder().setPortNumber(port).setLid(lid).build());
            }
            channels.blocking(dn.endpoint()).setPortInfo(
                    SetPortInfoRequest.newBuilder().setPortNumber(port).setState(PortState.PORT_STATE_ACTIVE).build());
            activated++;
        }
        return activated;
    }
}
