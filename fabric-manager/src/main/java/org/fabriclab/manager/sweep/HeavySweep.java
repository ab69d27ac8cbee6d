package org.fabriclab.manager.sweep;

import com.google.protobuf.ByteString;
import io.grpc.StatusRuntimeException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.fabriclab.manager.channel.NodeChannels;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.proto.v1.GetLftBlockRequest;
import org.fabriclab.proto.v1.LftBlock;
import org.fabriclab.proto.v1.PortInfo;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.proto.v1.SetAllPortInfoRequest;
import org.fabriclab.proto.v1.SetPortInfoRequest;
import org.fabriclab.proto.v1.WriteTablesRequest;
import org.fabriclab.routing.analysis.RouteAnalyzer;
import org.fabriclab.routing.analysis.RouteReport;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.lid.LidAssignment;
import org.fabriclab.routing.registry.EngineChain;
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

    private record Pushed(long version, byte[] table, int top, ArState ar, int[] directions) {
    }

    /** Whether the last sweep gave the channel adapters source routes (the next one without must clear them). */
    private volatile boolean sourceRoutesPushed;

    /**
     * A switch's adaptive-routing tables as an engine made them: its groups (numbered from 1) with
     * their detour ports, one AR LFT entry per LID of the pushed blocks, the input ports that keep
     * to the static LFT, and the lane turns ({@code {in, out, vl}}); none (AR off) for engines
     * without AR.
     */
    record ArState(int[][] groups, int[][] detours, short[] lft, int[] staticInputs, int[][] laneTurns) {
        static final ArState NONE = new ArState(new int[0][], new int[0][], new short[0], new int[0], new int[0][]);

        static ArState of(org.fabriclab.routing.engine.ArTables ar, int s, int blocks) {
            if (ar == null) {
                return NONE;
            }
            int[][] groups = new int[ar.groupCount(s)][];
            int[][] detours = new int[groups.length][];
            for (int g = 1; g <= groups.length; g++) {
                groups[g - 1] = ar.ports(s, g);
                detours[g - 1] = ar.detours(s, g);
            }
            short[] lft = new short[blocks * BLOCK];
            for (int lid = 0; lid < lft.length && lid < ar.size(s); lid++) {
                lft[lid] = (short) ar.group(s, lid);
            }
            return new ArState(groups, detours, lft, ar.staticInputs(s), ar.laneTurns(s));
        }

        boolean enabled() {
            return groups.length > 0;
        }

        boolean sameAs(ArState o) {
            return Arrays.deepEquals(groups, o.groups) && Arrays.deepEquals(detours, o.detours) && Arrays.equals(lft, o.lft)
                    && Arrays.equals(staticInputs, o.staticInputs) && Arrays.deepEquals(laneTurns, o.laneTurns);
        }

        /**
         * Adds the whole AR state to a write: every group (and deletes for the higher numbers
         * {@code before} had), every AR LFT block (zeros clear what a previous engine set), whether
         * AR is on, the static input ports, and the SL-to-VL map: every SL on lane 0, then the lane
         * turns (what a previous engine turned goes back to lane 0).
         */
        void addTo(WriteTablesRequest.Builder w, int blocks, int groupsBefore) {
            for (int g = 1; g <= Math.max(groups.length, groupsBefore); g++) {
                org.fabriclab.proto.v1.ArGroup.Builder b = org.fabriclab.proto.v1.ArGroup.newBuilder().setGroup(g);
                if (g <= groups.length) {
                    for (int p : groups[g - 1]) {
                        b.addPorts(p);
                    }
                    for (int p : detours[g - 1]) {
                        b.addDetourPorts(p);
                    }
                }
                w.addArGroups(b);
            }
            for (int blk = 0; blk < blocks; blk++) {
                org.fabriclab.proto.v1.ArLftBlock.Builder b = org.fabriclab.proto.v1.ArLftBlock.newBuilder().setBlock(blk);
                for (int i = 0; i < BLOCK; i++) {
                    int lid = blk * BLOCK + i;
                    b.addGroups(lid < lft.length ? lft[lid] : 0);
                }
                w.addArLftBlocks(b);
            }
            w.setArEnabled(enabled());
            w.setArStaticInputPorts(org.fabriclab.proto.v1.PortSet.newBuilder().addAllPorts(Arrays.stream(staticInputs).boxed().toList()));
            w.addSl2Vl(org.fabriclab.proto.v1.Sl2VlTable.newBuilder().setVl(ByteString.copyFrom(new byte[16])));
            for (int[] turn : laneTurns) {
                byte[] vl = new byte[16];
                Arrays.fill(vl, (byte) turn[2]);
                w.addSl2Vl(org.fabriclab.proto.v1.Sl2VlTable.newBuilder().setInputPort(turn[0]).setOutputPort(turn[1])
                        .setVl(ByteString.copyFrom(vl)));
            }
        }
    }

    private final long mKey;

    /** {@code mKey}: carried by every write (0 while the nodes have none). */
    public HeavySweep(NodeChannels channels, ExecutorService executor, long mKey) {
        this.channels = channels;
        this.executor = executor;
        this.mKey = mKey;
    }

    /**
     * Claims every node for this manager (IBA SMInfo: GUID, priority, MASTER, activity count) and
     * sets the M_Key, before anything else is written.
     *
     * @throws SweepException naming a node that refuses, e.g. guarded by another manager's M_Key
     */
    public void claim(List<DiscoveredNode> nodes, long smGuid, int priority, int actCount) throws SweepException, InterruptedException {
        org.fabriclab.proto.v1.SetSmInfoRequest claim = org.fabriclab.proto.v1.SetSmInfoRequest.newBuilder().setMKey(mKey)
                .setSmGuid(smGuid).setPriority(priority).setState(org.fabriclab.proto.v1.SmState.SM_STATE_MASTER)
                .setNewMKey(mKey).setActCount(actCount).build();
        runAll(nodes, dn -> channels.blocking(dn.endpoint()).setSmInfo(claim), "claiming the node for this manager (SMInfo)");
    }

    /** What a sweep produced. */
    public record Outcome(Fabric fabric, LidAssignment lids, ForwardingTables tables, RouteReport report,
                          int changedBlocks, int activatedPorts, long routingMillis, long validationMillis,
                          long pushMillis, long activationMillis, String jobNodes) {
    }

    /**
     * Runs the sweep on a discovered fabric.
     *
     * @param previousLids remembered LIDs by port GUID (a restart keeps them)
     */
    public Outcome run(Discovery.Result d, EngineChain chain, Map<Long, Integer> previousLids)
            throws SweepException, InterruptedException {
        return run(d, chain, previousLids, "");
    }

    /**
     * The same, balancing the routes for a job's hosts ({@code jobNodes} in node-set syntax; empty
     * for every host): the engines count loads for the job's pairs only, as ANSU routes before a
     * job; every LID is still routed.
     */
    public Outcome run(Discovery.Result d, EngineChain chain, Map<Long, Integer> previousLids, String jobNodes)
            throws SweepException, InterruptedException {
        Fabric f = d.fabric();
        LidAssignment lids = LidAssigner.assign(f, previousLids);
        long t0 = System.nanoTime();
        EngineChain.Result routed;
        try {
            RoutingOptions options = RoutingOptions.DEFAULTS;
            if (!jobNodes.isEmpty()) {
                try {
                    options = options.withEndpoints(org.fabriclab.routing.fabric.NodeSet.parse(f, jobNodes));
                } catch (IllegalArgumentException e) {
                    throw new SweepException("the job's node set no longer fits the fabric: " + e.getMessage() + "; no switch was changed");
                }
            }
            routed = chain.route(new RoutingRequest(f, lids, options));
        } catch (RoutingException e) {
            throw new SweepException("no engine of the chain " + chain.names() + " could route the fabric: " + e.getMessage());
        }
        long routingMillis = (System.nanoTime() - t0) / 1_000_000;
        for (RoutingException x : routed.failures()) {
            LOG.warn("routing engine fell back: {}", x.getMessage());
        }
        long tv = System.nanoTime();
        RouteReport report = RouteAnalyzer.analyze(routed.tables(), Optional.empty(), executor, Runtime.getRuntime().availableProcessors());
        validate(f, routed, report);
        long t1 = System.nanoTime();
        int changed = pushTables(d, routed.tables());
        pushSourceRoutes(d, routed.tables());
        long t2 = System.nanoTime();
        int activated = activate(d, lids);
        long t3 = System.nanoTime();
        return new Outcome(f, lids, routed.tables(), report, changed, activated, routingMillis, (t1 - tv) / 1_000_000,
                (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000, jobNodes);
    }

    private static void validate(Fabric f, EngineChain.Result routed, RouteReport r) throws SweepException {
        if (r.unreachablePairs() > 0) {
            // pairs in different components of a partitioned fabric cannot be routed by anyone
            long disconnected = org.fabriclab.routing.analysis.Connectivity.disconnectedPairs(f);
            if (r.unreachablePairs() > disconnected || r.unreachableReasons().containsKey("routing loop")) {
                throw new SweepException(routed.engine() + " left " + r.unreachablePairs() + " host pairs unrouted ("
                        + r.unreachableReasons() + ", e.g. " + r.unreachableExamples() + "); no switch was changed");
            }
        }
        List<String> ar = org.fabriclab.routing.engine.ArTables.problems(routed.tables(), 5);
        if (!ar.isEmpty()) {
            throw new SweepException(routed.engine() + "'s adaptive-routing tables are inconsistent: " + ar + "; no switch was changed");
        }
        var sr = routed.tables().sourceRoutes();
        if (sr != null) {
            var a = org.fabriclab.routing.torus.SourceRouteAnalysis.analyze(sr);
            if (!a.deadlockFree()) {
                throw new SweepException(routed.engine() + "'s source routes have a cycle of channel dependencies with a turn " + a.cycle()
                        + "; no switch was changed");
            }
        }
        if (routed.engine().equals("updn") && !r.deadlockFree()) {
            throw new SweepException("updn promises deadlock freedom but the channel dependency graph has a cycle "
                    + r.cdgCycle() + "; no switch was changed");
        }
    }

    /** Phase 1: each switch gets the blocks that differ from what it holds, in one versioned write. */
    private int pushTables(Discovery.Result d, ForwardingTables t) throws SweepException, InterruptedException {
        Fabric f = t.fabric();
        int blocks = (t.lids().maxLid() + BLOCK) / BLOCK;
        if (t.ar() != null && t.ar().laneCount() > 1) {
            // an engine's lane turns need the lanes on every switch: check them all before writing any
            for (int s = 0; s < f.switchCount(); s++) {
                DiscoveredNode node = d.byGuid().get(f.nodeGuid(f.switchNode(s)));
                int vls = node.switchInfo() == null ? 0 : node.switchInfo().getDataVls();
                if (vls != 0 && vls < t.ar().laneCount()) {
                    throw new SweepException(t.engine() + " moves packets to lane " + (t.ar().laneCount() - 1) + " (its detours' deadlock "
                            + "freedom needs " + t.ar().laneCount() + " data VLs), but switch " + f.name(f.switchNode(s)) + " has " + vls
                            + "; run the switches with more lanes, or an engine without lane turns (ar-dfp-minimal); no switch was changed");
                }
            }
        }
        List<Future<Integer>> futures = new ArrayList<>();
        List<String> names = new ArrayList<>();
        for (int s = 0; s < f.switchCount(); s++) {
            int sw = s;
            DiscoveredNode node = d.byGuid().get(f.nodeGuid(f.switchNode(s)));
            names.add(f.name(f.switchNode(s)));
            int[] directions = t.sourceRoutes() == null ? new int[0] : t.sourceRoutes().torus().directionPorts(f.switchNode(s));
            futures.add(executor.submit(() -> pushSwitch(node, t.table(sw), blocks, t.lids().maxLid(), ArState.of(t.ar(), sw, blocks),
                    directions)));
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

    private Integer pushSwitch(DiscoveredNode node, byte[] table, int blocks, int maxLid, ArState ar, int[] directions) {
        long guid = node.info().getNodeGuid();
        long version = channels.blocking(node.endpoint())
                .getSwitchInfo(org.fabriclab.proto.v1.GetSwitchInfoRequest.getDefaultInstance()).getTableVersion();
        Pushed known = pushed.get(guid);
        if (known == null && version == 0) {
            // never written: every entry is still "no route", nothing to read back
            known = new Pushed(0, new byte[0], 0, ArState.NONE, new int[0]);
        }
        boolean trusted = known != null && known.version() == version;
        WriteTablesRequest.Builder w = WriteTablesRequest.newBuilder().setMKey(mKey).setFromVersion(version).setToVersion(version + 1)
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
        // AR tables: sent whole when they differ from what this manager wrote last; from a switch
        // it did not write last, only if it has AR on or the engine wants it (groups are few)
        boolean arKnown = trusted ? ar.sameAs(known.ar())
                : !ar.enabled() && (node.switchInfo() == null || !node.switchInfo().getArEnabled());
        if (!arKnown) {
            int groupsBefore = trusted ? known.ar().groups().length : channels.blocking(node.endpoint())
                    .getArTables(org.fabriclab.proto.v1.GetArTablesRequest.getDefaultInstance()).getGroupsList().stream()
                    .mapToInt(org.fabriclab.proto.v1.ArGroup::getGroup).max().orElse(0);
            ar.addTo(w, blocks, groupsBefore);
        }
        // source routing: the direction ports, when they differ from what the switch holds
        int[] held = trusted ? known.directions() : node.switchInfo() == null ? new int[0]
                : node.switchInfo().getDirectionPortsList().stream().mapToInt(Integer::intValue).toArray();
        boolean directionsKnown = Arrays.equals(held, directions);
        if (!directionsKnown) {
            w.setDirectionPorts(org.fabriclab.proto.v1.DirectionPorts.newBuilder()
                    .addAllPorts(Arrays.stream(directions).boxed().toList()));
        }
        if (w.getLftBlocksCount() == 0 && top == maxLid && arKnown && directionsKnown) {
            pushed.put(guid, new Pushed(version, full, maxLid, ar, directions));
            return 0;
        }
        int changed = channels.blocking(node.endpoint()).writeTables(w.build()).getChangedBlocks();
        pushed.put(guid, new Pushed(version + 1, full, maxLid, ar, directions));
        return changed;
    }

    /**
     * Source routes (Angara): every channel adapter gets, per destination host on another switch,
     * the route between their switches, which it writes into each packet; with an engine that makes
     * none, adapters that had routes get an empty table back (the switches' LFTs route again).
     */
    private void pushSourceRoutes(Discovery.Result d, ForwardingTables t) throws SweepException, InterruptedException {
        var sr = t.sourceRoutes();
        if (sr == null && !sourceRoutesPushed) {
            return;
        }
        Fabric f = t.fabric();
        // each endpoint's switch as a member of the routes' node set (-1: not in it, or no routes)
        int[] member = new int[f.endpointCount()];
        for (int e = 0; e < member.length; e++) {
            member[e] = sr == null ? -1 : sr.indexOf(sr.torus().torusNode(f.endpointSwitch(e)));
        }
        List<DiscoveredNode> adapters = new ArrayList<>();
        Map<Long, org.fabriclab.proto.v1.WriteSourceRoutesRequest> requests = new HashMap<>();
        for (int e = 0; e < f.endpointCount(); e++) {
            int node = f.endpointNode(e);
            DiscoveredNode dn = d.byGuid().get(f.nodeGuid(node));
            if (dn == null || requests.containsKey(dn.info().getNodeGuid())) {
                continue;
            }
            var w = org.fabriclab.proto.v1.WriteSourceRoutesRequest.newBuilder().setMKey(mKey);
            int from = member[e];
            for (int e2 = 0; e2 < f.endpointCount() && from >= 0; e2++) {
                int to = member[e2];
                if (to >= 0 && to != from && !sr.unroutable(from, to)) {
                    w.addRoutes(org.fabriclab.proto.v1.SourceRouteEntry.newBuilder().setDlid(t.lids().endpointLid(e2))
                            .setDirections(ByteString.copyFrom(sr.directions(from, to))));
                }
            }
            requests.put(dn.info().getNodeGuid(), w.build());
            adapters.add(dn);
        }
        runAll(adapters, dn -> channels.blocking(dn.endpoint()).writeSourceRoutes(requests.get(dn.info().getNodeGuid())),
                "writing source routes");
        sourceRoutesPushed = sr != null;
    }

    /**
     * Phase 2, as InfiniBand brings a subnet up: every node's linked ports ARMED (with their LIDs),
     * and only when all are armed, every port ACTIVE. Nodes whose ports are all active with the
     * right LID are left alone. Two calls per node; CAs with several ports get their LIDs per port.
     */
    private int activate(Discovery.Result d, LidAssignment lids) throws SweepException, InterruptedException {
        Fabric f = d.fabric();
        Map<Long, Integer> nodeOf = new HashMap<>();
        for (int n = 0; n < f.nodeCount(); n++) {
            nodeOf.put(f.nodeGuid(n), n);
        }
        List<DiscoveredNode> todo = new ArrayList<>();
        int ports = 0;
        for (DiscoveredNode dn : d.nodes()) {
            int n = nodeOf.get(dn.info().getNodeGuid());
            int waiting = 0;
            for (PortInfo p : dn.ports()) {
                if (f.peerNode(f.globalPort(n, p.getPortNumber())) >= 0
                        && (p.getState() != PortState.PORT_STATE_ACTIVE || p.getLid() != lids.lidOf(f, n, p.getPortNumber()))) {
                    waiting++;
                }
            }
            if (waiting > 0) {
                todo.add(dn);
                ports += waiting;
            }
        }
        runAll(todo, dn -> arm(dn, f, nodeOf.get(dn.info().getNodeGuid()), lids), "arming ports");
        runAll(todo, dn -> channels.blocking(dn.endpoint()).setAllPortInfo(
                SetAllPortInfoRequest.newBuilder().setMKey(mKey).setState(PortState.PORT_STATE_ACTIVE).build()), "activating ports");
        return ports;
    }

    private Object arm(DiscoveredNode dn, Fabric f, int n, LidAssignment lids) {
        var stub = channels.blocking(dn.endpoint());
        if (f.isSwitch(n) || f.portCount(n) == 1) {
            return stub.setAllPortInfo(SetAllPortInfoRequest.newBuilder().setMKey(mKey).setLid(lids.lidOf(f, n, 1))
                    .setState(PortState.PORT_STATE_ARMED).build());
        }
        for (PortInfo p : dn.ports()) {
            if (f.peerNode(f.globalPort(n, p.getPortNumber())) >= 0) {
                channels.blocking(dn.endpoint()).setPortInfo(SetPortInfoRequest.newBuilder().setMKey(mKey).setPortNumber(p.getPortNumber())
                        .setLid(lids.lidOf(f, n, p.getPortNumber())).setState(PortState.PORT_STATE_ARMED).build());
            }
        }
        return null;
    }

    private void runAll(List<DiscoveredNode> nodes, java.util.function.Function<DiscoveredNode, Object> call, String what)
            throws SweepException, InterruptedException {
        List<Future<Object>> futures = new ArrayList<>();
        for (DiscoveredNode dn : nodes) {
            futures.add(executor.submit(() -> call.apply(dn)));
        }
        for (int i = 0; i < futures.size(); i++) {
            try {
                futures.get(i).get();
            } catch (ExecutionException e) {
                Throwable c = e.getCause();
                String hint = c instanceof StatusRuntimeException s && s.getStatus().getCode() == io.grpc.Status.Code.PERMISSION_DENIED
                        ? "; another manager's M_Key guards it: give this manager the fabric's key (--m-key)" : "";
                throw new SweepException(what + " failed at " + nodes.get(i).info().getDescription() + ": "
                        + (c instanceof StatusRuntimeException s ? s.getStatus().getCode() + " " + s.getStatus().getDescription() : c) + hint);
            }
        }
    }
}
