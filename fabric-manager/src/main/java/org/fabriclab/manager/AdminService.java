package org.fabriclab.manager;

import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Supplier;
import org.fabriclab.manager.discovery.DiscoveredNode;
import org.fabriclab.proto.v1.AdminGrpc;
import org.fabriclab.proto.v1.Counters;
import org.fabriclab.proto.v1.DumpTablesRequest;
import org.fabriclab.proto.v1.DumpTablesResponse;
import org.fabriclab.proto.v1.EngineChainInfo;
import org.fabriclab.proto.v1.EngineGuarantees;
import org.fabriclab.proto.v1.GetCountersRequest;
import org.fabriclab.proto.v1.GetEngineRequest;
import org.fabriclab.proto.v1.GetLftBlockRequest;
import org.fabriclab.proto.v1.GetQTableRequest;
import org.fabriclab.proto.v1.GetStatusRequest;
import org.fabriclab.proto.v1.GetSwitchInfoRequest;
import org.fabriclab.proto.v1.GetTopologyRequest;
import org.fabriclab.proto.v1.Hop;
import org.fabriclab.proto.v1.LftEntry;
import org.fabriclab.proto.v1.HostNicCounters;
import org.fabriclab.proto.v1.LinkCounters;
import org.fabriclab.proto.v1.ListQTableSnapshotsRequest;
import org.fabriclab.proto.v1.ManagerStatus;
import org.fabriclab.proto.v1.QTable;
import org.fabriclab.proto.v1.QTableSnapshotInfo;
import org.fabriclab.proto.v1.QTableSnapshotList;
import org.fabriclab.proto.v1.ReseedQTablesRequest;
import org.fabriclab.proto.v1.ReseedQTablesResponse;
import org.fabriclab.proto.v1.RestoreQTableSnapshotRequest;
import org.fabriclab.proto.v1.RouteJobRequest;
import org.fabriclab.proto.v1.SaveQTableSnapshotRequest;
import org.fabriclab.proto.v1.SetEngineRequest;
import org.fabriclab.proto.v1.SweepRequest;
import org.fabriclab.proto.v1.Topology;
import org.fabriclab.proto.v1.TopologyLink;
import org.fabriclab.proto.v1.TopologyNode;
import org.fabriclab.proto.v1.TraceRouteRequest;
import org.fabriclab.proto.v1.TraceRouteResponse;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.text.Excerpt;
import org.fabriclab.routing.lid.LidAssignment;

/**
 * The {@code Admin} gRPC service (see {@code admin.proto}): status, topology, route traces and table
 * dumps read from the switches themselves, sweeps, the engine chain, and Q-adaptive's tables read,
 * kept as snapshots, restored and reseeded ({@link QTables}). Bad input is INVALID_ARGUMENT
 * quoting at most 200 characters of it ({@link Excerpt}), a fabric not routed yet
 * FAILED_PRECONDITION, a switch that does not answer a trace or dump UNAVAILABLE; who may call what
 * is {@link AdminCalls}'s business (the daemon serves this behind it, {@link AdminServer}).
 */
public final class AdminService extends AdminGrpc.AdminImplBase {
    private final FabricManager manager;
    private final PerfManager perf;
    private final EmulationMonitor emulation;

    public AdminService(FabricManager manager) {
        this(manager, null);
    }

    /**
     * The service as the daemon serves it: every status description capped ({@link BoundedDescriptions}).
     * Tests that talk to the service as a client would use this too.
     */
    public static ServerServiceDefinition served(FabricManager manager, PerfManager perf, EmulationMonitor emulation) {
        return ServerInterceptors.intercept(new AdminService(manager, perf, emulation), new BoundedDescriptions());
    }

    /** With a perf manager, {@code GetCounters} answers from its last poll. */
    public AdminService(FabricManager manager, PerfManager perf) {
        this(manager, perf, null);
    }

    /** With an emulation monitor, {@code GetStatus} also says the dilation and fidelity of its last poll. */
    public AdminService(FabricManager manager, PerfManager perf, EmulationMonitor emulation) {
        this.manager = manager;
        this.perf = perf;
        this.emulation = emulation;
    }

    /** Per-link counters, and every host's NIC counters, as the perf manager last polled them. */
    @Override
    public void getCounters(GetCountersRequest request, StreamObserver<Counters> out) {
        if (perf == null) {
            out.onError(Status.FAILED_PRECONDITION.withDescription("this manager runs no perf manager").asRuntimeException());
            return;
        }
        Counters.Builder b = Counters.newBuilder();
        for (PerfManager.LinkSample l : perf.samples()) {
            if (request.getNode().isEmpty() || request.getNode().equals(l.node())) {
                b.addLinks(LinkCounters.newBuilder().setNode(l.node()).setPort(l.port())
                        .setXmitDataOctets(l.xmitBytes()).setXmitPkts(l.xmitPkts()).setXmitWaitNs(l.xmitWaitNs())
                        .setXmitDiscards(l.discards()).setRcvErrors(l.rcvErrors()).setUtilisation(l.utilisation()));
            }
        }
        for (PerfManager.NicSample n : perf.nicSamples()) {
            if (request.getNode().isEmpty() || request.getNode().equals(n.node())) {
                HostNicCounters.Builder h = HostNicCounters.newBuilder();
                for (long packets : n.jobModePackets()) {
                    h.addJobModePackets(packets);
                }
                b.addHosts(h.setNode(n.node()).setRequestFlits(n.requestFlits())
                        .setRequestFlitsStalledCycles(n.stalledCycles()).setLatencyPackets(n.latencyPackets()).setLatencyNsSum(n.latencyNsSum())
                        .setReceivedHops(n.receivedHops()).setCongestionControl(n.congestionControl()).setCnpsReceived(n.cnpsReceived())
                        .setAcksReceived(n.acksReceived()).setControlSent(n.controlSent()).setControlDropped(n.controlDropped())
                        .setJob(n.job()).setJobMessages(n.jobMessages()).setJobMessageNsSum(n.jobMessageNs()).setJobPackets(n.jobPackets())
                        .setJobNonminimalPackets(n.jobNonminimal()).setJobIterations(n.jobIterations())
                        .setJobIterationNsSum(n.jobIterationNs()).setJobRefusedMessages(n.jobRefused()));
            }
        }
        if (!request.getNode().isEmpty() && b.getLinksCount() == 0) {
            out.onError(Status.INVALID_ARGUMENT.withDescription("no polled ports of a node named " + Excerpt.quote(request.getNode())
                    + " (unknown, or not polled yet)").asRuntimeException());
            return;
        }
        reply(out, b.build());
    }

    static ManagerStatus status(FabricManager.Snapshot s) {
        ManagerStatus.Builder b = ManagerStatus.newBuilder().setState(s.state().name()).setTableVersion(s.tableVersion())
                .setLastHeavySweepMillis(s.lastHeavySweepMillis()).setUpSinceEpochMillis(s.upSinceEpochMillis())
                .setLastError(s.lastError() == null ? "" : s.lastError()).setHeavySweeps(s.heavySweeps()).setTraps(s.traps());
        if (s.discoveredNow() != null) { // while discovery fails the fabric is not known: 0, not the last sweep's counts
            Fabric f = s.discoveredNow().fabric();
            b.setSwitches(f.switchCount()).setHosts(f.caCount()).setLinks(f.linkCount());
        }
        if (s.outcome() != null) {
            b.setEngine(s.outcome().tables().engine()).setJobNodes(s.outcome().jobNodes());
        }
        return b.build();
    }

    /** Get the manager's state and the fabric's size. */
    @Override
    public void getStatus(GetStatusRequest request, StreamObserver<ManagerStatus> out) {
        ManagerStatus s = status(manager.snapshot());
        if (emulation != null) {
            EmulationMonitor.Summary e = emulation.summary();
            s = s.toBuilder().setTimeDilation(e.dilation()).setEmulationFaithful(e.faithful()).setEmulationLagSeconds(e.worstLagSeconds())
                    .setEmulationLagWhere(e.worstWhere()).build();
        }
        reply(out, s);
    }

    /** Nodes and links of the last sweep. */
    @Override
    public void getTopology(GetTopologyRequest request, StreamObserver<Topology> out) {
        FabricManager.Snapshot s = manager.snapshot();
        if (s.outcome() == null) {
            out.onError(notRouted());
            return;
        }
        Fabric f = s.outcome().fabric();
        LidAssignment lids = s.outcome().lids();
        Topology.Builder b = Topology.newBuilder();
        for (int n = 0; n < f.nodeCount(); n++) {
            DiscoveredNode dn = s.discovered().byGuid().get(f.nodeGuid(n));
            b.addNodes(TopologyNode.newBuilder().setName(f.name(n)).setGuid(f.nodeGuid(n)).setSwitch(f.isSwitch(n))
                    .setPorts(f.portCount(n)).setLid(lids.lidOf(f, n, 1)).setEndpoint(dn == null ? "" : dn.endpoint()));
        }
        for (int g = 0; g < f.globalPortCount(); g++) {
            int peer = f.peerGlobalPort(g);
            if (peer > g) {
                int a = f.nodeOfGlobalPort(g);
                int z = f.nodeOfGlobalPort(peer);
                b.addLinks(TopologyLink.newBuilder().setNode(f.name(a)).setPort(g - f.portBase(a) + 1).setPeer(f.name(z))
                        .setPeerPort(peer - f.portBase(z) + 1));
            }
        }
        reply(out, b.build());
    }

    /** Follows the route hop by hop through the LFT blocks each switch returns. */
    @Override
    public void traceRoute(TraceRouteRequest request, StreamObserver<TraceRouteResponse> out) {
        try {
            trace(request, out);
        } catch (StatusRuntimeException e) {
            out.onError(switchSilent("the trace", e));
        }
    }

    private void trace(TraceRouteRequest request, StreamObserver<TraceRouteResponse> out) {
        FabricManager.Snapshot s = manager.snapshot();
        if (s.outcome() == null) {
            out.onError(notRouted());
            return;
        }
        Fabric f = s.outcome().fabric();
        Integer src = host(f, request.getSource(), out);
        Integer dst = src == null ? null : host(f, request.getDestination(), out);
        if (dst == null) {
            return;
        }
        int dlid = s.outcome().lids().lidOf(f, dst, 1);
        TraceRouteResponse.Builder b = TraceRouteResponse.newBuilder();
        int g = f.globalPort(src, 1);
        b.addHops(Hop.newBuilder().setNode(f.name(src)).setPort(1));
        int cur = f.peerNode(g);
        for (int hops = 0; hops <= f.switchCount(); hops++) {
            if (cur < 0) {
                reply(out, b.setFailure("the route leaves by a port with no link").build());
                return;
            }
            if (!f.isSwitch(cur)) {
                boolean ok = cur == dst;
                reply(out, b.setDelivered(ok).setFailure(ok ? "" : "delivered to the wrong host " + f.name(cur)).build());
                return;
            }
            DiscoveredNode dn = s.discovered().byGuid().get(f.nodeGuid(cur));
            byte[] block = manager.channels().blocking(dn.endpoint())
                    .getLftBlock(GetLftBlockRequest.newBuilder().setBlock(dlid / 64).build()).getPorts().toByteArray();
            int port = block[dlid % 64] & 0xFF;
            if (port == 0xFF || port == 0 || port > f.portCount(cur)) {
                reply(out, b.setFailure("switch " + f.name(cur) + " holds no route for LID " + dlid + " (entry " + port + ")").build());
                return;
            }
            b.addHops(Hop.newBuilder().setNode(f.name(cur)).setPort(port));
            cur = f.peerNode(f.globalPort(cur, port));
        }
        reply(out, b.setFailure("routing loop").build());
    }

    /** A switch's LFT as the switch holds it. */
    @Override
    public void dumpTables(DumpTablesRequest request, StreamObserver<DumpTablesResponse> out) {
        try {
            dump(request, out);
        } catch (StatusRuntimeException e) {
            out.onError(switchSilent("the dump", e));
        }
    }

    /** A switch's call failed under a trace or dump: UNAVAILABLE, saying what the switch answered. */
    private static StatusRuntimeException switchSilent(String what, StatusRuntimeException e) {
        return Status.UNAVAILABLE.withDescription(what + " needs the switches' own tables, and a switch did not answer: "
                + e.getStatus().getCode() + " " + e.getStatus().getDescription()).asRuntimeException();
    }

    private void dump(DumpTablesRequest request, StreamObserver<DumpTablesResponse> out) {
        FabricManager.Snapshot s = manager.snapshot();
        if (s.outcome() == null) {
            out.onError(notRouted());
            return;
        }
        Fabric f = s.outcome().fabric();
        Integer node = f.nodeByName(request.getSwitchName()).orElse(null);
        if (node == null || !f.isSwitch(node)) {
            out.onError(Status.INVALID_ARGUMENT.withDescription(noSuch(f, request.getSwitchName(), "switch", "")).asRuntimeException());
            return;
        }
        DiscoveredNode dn = s.discovered().byGuid().get(f.nodeGuid(node));
        var stub = manager.channels().blocking(dn.endpoint());
        var info = stub.getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance());
        LidAssignment lids = s.outcome().lids();
        DumpTablesResponse.Builder b = DumpTablesResponse.newBuilder().setSwitchName(f.name(node)).setTableVersion(info.getTableVersion());
        for (int block = 0; block <= info.getLftTop() / 64; block++) {
            byte[] ports = manager.channels().blocking(dn.endpoint())
                    .getLftBlock(GetLftBlockRequest.newBuilder().setBlock(block).build()).getPorts().toByteArray();
            for (int i = 0; i < 64; i++) {
                int lid = block * 64 + i;
                int port = ports[i] & 0xFF;
                if (port == 0xFF || lid > info.getLftTop()) {
                    continue;
                }
                int e = lids.endpointOfLid(lid);
                int sw = lids.switchOfLid(lid);
                String owner = e >= 0 ? f.endpointName(e) : sw >= 0 ? f.name(f.switchNode(sw)) : "";
                b.addEntries(LftEntry.newBuilder().setLid(lid).setPort(port).setDestination(owner));
            }
        }
        reply(out, b.build());
    }

    /** A heavy sweep now. */
    @Override
    public void sweep(SweepRequest request, StreamObserver<ManagerStatus> out) {
        forward(manager.sweep(), out);
    }

    @Override
    public void getEngine(GetEngineRequest request, StreamObserver<EngineChainInfo> out) {
        reply(out, engineInfo(manager.snapshot()));
    }

    /** The chain, the engine that produced the installed tables and what it promises (as the sweep's routing result carried it). */
    private static EngineChainInfo engineInfo(FabricManager.Snapshot s) {
        EngineChainInfo.Builder b = EngineChainInfo.newBuilder().setChain(s.engineChain());
        if (s.outcome() != null) {
            String active = s.outcome().tables().engine();
            var g = s.outcome().guarantees();
            b.setActive(active).setActiveGuarantees(EngineGuarantees.newBuilder()
                    .setDeadlockFree(g.deadlockFree()).setLanes(g.lanes()).setSourceRoutes(g.sourceRoutes()));
        }
        return b.build();
    }

    /** Routes for a job's hosts and pushes the tables before it starts. */
    @Override
    public void routeJob(RouteJobRequest request, StreamObserver<ManagerStatus> out) {
        CompletableFuture<FabricManager.Snapshot> f;
        try {
            f = manager.routeJob(request.getNodes());
        } catch (IllegalArgumentException e) {
            out.onError(Status.INVALID_ARGUMENT.withDescription(Excerpt.message(e.getMessage(), "; nothing was changed")).asRuntimeException());
            return;
        }
        forward(f, out);
    }

    /** A new engine chain; the sweep it starts uses it. */
    @Override
    public void setEngine(SetEngineRequest request, StreamObserver<EngineChainInfo> out) {
        CompletableFuture<FabricManager.Snapshot> f;
        try {
            f = manager.setEngine(request.getChain());
        } catch (IllegalArgumentException e) {
            out.onError(Status.INVALID_ARGUMENT.withDescription(Excerpt.message(e.getMessage(), "; the chain was left as it was"))
                    .asRuntimeException());
            return;
        }
        f.whenComplete((s, x) -> {
            if (x instanceof FabricManager.RefusedException r) { // its engines cannot route the fabric: nothing changed
                out.onError(Status.FAILED_PRECONDITION.withDescription(r.getMessage()).asRuntimeException());
            } else if (x != null) {
                out.onError(Status.INTERNAL.withDescription("sweep failed: " + x.getMessage()).asRuntimeException());
            } else {
                reply(out, engineInfo(s));
            }
        });
    }

    /** A switch's Q-table as it holds it, beside its seed. */
    @Override
    public void getQTable(GetQTableRequest request, StreamObserver<QTable> out) {
        try {
            reply(out, manager.qtables().read(request));
        } catch (StatusRuntimeException e) {
            out.onError(e);
        }
    }

    /** Every switch's Q-table kept as a snapshot in the state directory. */
    @Override
    public void saveQTableSnapshot(SaveQTableSnapshotRequest request, StreamObserver<QTableSnapshotInfo> out) {
        answer(() -> manager.qtables().save(request.getName(), request.getReplace()), out);
    }

    /** The snapshots kept, each with whether it fits the fabric now. */
    @Override
    public void listQTableSnapshots(ListQTableSnapshotsRequest request, StreamObserver<QTableSnapshotList> out) {
        try {
            reply(out, manager.qtables().list());
        } catch (StatusRuntimeException e) {
            out.onError(e);
        }
    }

    /** A snapshot's values into every switch's Q-table, or into none. */
    @Override
    public void restoreQTableSnapshot(RestoreQTableSnapshotRequest request, StreamObserver<QTableSnapshotInfo> out) {
        answer(() -> manager.qtables().restore(request.getName()), out);
    }

    /** Every switch's learning restarted from a seed of the policy, or none. */
    @Override
    public void reseedQTables(ReseedQTablesRequest request, StreamObserver<ReseedQTablesResponse> out) {
        answer(() -> manager.qtables().reseed(request.getPolicy()), out);
    }

    /**
     * Answers with what {@code call} completes with: a status it is refused with (before it starts
     * or when it ends) as it is, anything else INTERNAL.
     */
    private static <T> void answer(Supplier<CompletableFuture<T>> call, StreamObserver<T> out) {
        CompletableFuture<T> f;
        try {
            f = call.get();
        } catch (StatusRuntimeException e) {
            out.onError(e);
            return;
        }
        f.whenComplete((v, x) -> {
            Throwable cause = x instanceof CompletionException && x.getCause() != null ? x.getCause() : x;
            if (cause instanceof StatusRuntimeException e) {
                out.onError(e);
            } else if (cause != null) {
                out.onError(Status.INTERNAL.withDescription("failed inside the manager: " + cause).asRuntimeException());
            } else {
                reply(out, v);
            }
        });
    }

    private static void forward(CompletableFuture<FabricManager.Snapshot> f, StreamObserver<ManagerStatus> out) {
        f.whenComplete((s, x) -> {
            if (x != null) {
                out.onError(Status.INTERNAL.withDescription("sweep failed: " + x.getMessage()).asRuntimeException());
            } else {
                reply(out, status(s));
            }
        });
    }

    private static Integer host(Fabric f, String name, StreamObserver<?> out) {
        Integer n = f.nodeByName(name).orElse(null);
        if (n == null || f.isSwitch(n)) {
            out.onError(Status.INVALID_ARGUMENT.withDescription(noSuch(f, name, "host", "")).asRuntimeException());
            return null;
        }
        return n;
    }

    /**
     * Why {@code given} names no {@code kind} ({@code switch} or {@code host}) of {@code f}, as
     * INVALID_ARGUMENT says it: a node of the other kind is called what it is, a name the fabric does
     * not have points to where the names are. {@code alsoBy} says what else was tried (a GUID).
     */
    static String noSuch(Fabric f, String given, String kind, String alsoBy) {
        Integer n = f.nodeByName(given).orElse(null);
        if (n != null) {
            return Excerpt.quote(given) + " is a " + (f.isSwitch(n) ? "switch" : "host") + ", not a " + kind;
        }
        return "no " + kind + " named " + Excerpt.quote(given) + alsoBy + " in the fabric; fabricctl topology lists its nodes";
    }

    private static RuntimeException notRouted() {
        return Status.FAILED_PRECONDITION.withDescription("the fabric has not been routed yet; wait for the first heavy sweep").asRuntimeException();
    }

    private static <T> void reply(StreamObserver<T> out, T v) {
        out.onNext(v);
        out.onCompleted();
    }
}
