package org.fabriclab.agent.mgmt;

import com.google.protobuf.ByteString;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.fabriclab.agent.core.FlowSink;
import org.fabriclab.agent.core.NicCounters;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.core.PortCounterArray.DiscardReason;
import org.fabriclab.agent.core.SwitchCore;
import org.fabriclab.agent.core.SwitchTables;
import org.fabriclab.agent.core.TableWriteException;
import org.fabriclab.routing.dragonfly.DragonflySwitch;
import org.fabriclab.proto.v1.AdaptiveDecisions;
import org.fabriclab.proto.v1.DragonflyState;
import org.fabriclab.proto.v1.GetDragonflyRoutingRequest;
import org.fabriclab.proto.v1.ArGroup;
import org.fabriclab.proto.v1.ArLftBlock;
import org.fabriclab.proto.v1.ArTables;
import org.fabriclab.proto.v1.EmulationStatus;
import org.fabriclab.proto.v1.Event;
import org.fabriclab.proto.v1.FlowCounter;
import org.fabriclab.proto.v1.FlowCounters;
import org.fabriclab.proto.v1.GetArTablesRequest;
import org.fabriclab.proto.v1.GetEmulationStatusRequest;
import org.fabriclab.proto.v1.GetFlowCountersRequest;
import org.fabriclab.proto.v1.GetLftBlockRequest;
import org.fabriclab.proto.v1.GetNodeCountersRequest;
import org.fabriclab.proto.v1.GetNodeInfoRequest;
import org.fabriclab.proto.v1.GetNodeRecordRequest;
import org.fabriclab.proto.v1.GetPortCountersRequest;
import org.fabriclab.proto.v1.GetPortInfoRequest;
import org.fabriclab.proto.v1.GetPortInfoResponse;
import org.fabriclab.proto.v1.GetSmInfoRequest;
import org.fabriclab.proto.v1.GetSourceRoutesRequest;
import org.fabriclab.proto.v1.GetSwitchInfoRequest;
import org.fabriclab.proto.v1.InputBytes;
import org.fabriclab.proto.v1.LftBlock;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.proto.v1.NodeCounters;
import org.fabriclab.proto.v1.QLearning;
import org.fabriclab.proto.v1.NodeInfo;
import org.fabriclab.proto.v1.NodeRecord;
import org.fabriclab.proto.v1.PortCounters;
import org.fabriclab.proto.v1.PortInfo;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.proto.v1.ResetPortCountersRequest;
import org.fabriclab.proto.v1.ResetPortCountersResponse;
import org.fabriclab.proto.v1.SetAllPortInfoRequest;
import org.fabriclab.proto.v1.SetPortInfoRequest;
import org.fabriclab.proto.v1.SetSmInfoRequest;
import org.fabriclab.proto.v1.SetTimeDilationRequest;
import org.fabriclab.proto.v1.SmInfo;
import org.fabriclab.proto.v1.SmState;
import org.fabriclab.proto.v1.SourceRouteEntry;
import org.fabriclab.proto.v1.SourceRouteTable;
import org.fabriclab.proto.v1.SubscribeEventsRequest;
import org.fabriclab.proto.v1.SwitchInfo;
import org.fabriclab.proto.v1.WriteSourceRoutesRequest;
import org.fabriclab.proto.v1.WriteTablesRequest;
import org.fabriclab.proto.v1.WriteTablesResponse;
import org.fabriclab.proto.v1.XmitDiscards;
import org.fabriclab.routing.torus.SourceRoute;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code Management} gRPC service of one node: reads answer from the {@link ManagedNode};
 * writes check the M_Key, then the request, and answer with a status that names what is wrong
 * (never a stack trace, never UNKNOWN). Every uint32 and uint64 field is read unsigned (a port
 * number of 2^31 is a port beyond the node's, not a negative one), every enum value checked
 * against those this node knows. A wrong M_Key is counted, trapped (trap 256, at most
 * {@link ManagedNode#M_KEY_TRAPS_PER_SECOND} a second; beyond, refused unread) and logged without
 * the key. See {@code management.proto} for each RPC's contract; serve it with
 * {@link #definition(ManagedNode)}.
 */
public final class ManagementService extends ManagementGrpc.ManagementImplBase {
    private static final Logger LOG = LoggerFactory.getLogger(ManagementService.class);
    private final ManagedNode node;

    public ManagementService(ManagedNode node) {
        this.node = node;
    }

    /**
     * The service of {@code node} as a server should add it: behind {@link ManagementCalls} (the
     * caller's address for violation reports, descriptions cut to size, no UNKNOWN).
     */
    public static ServerServiceDefinition definition(ManagedNode node) {
        return ServerInterceptors.intercept(ServerInterceptors.useInputStreamMessages(new ManagementService(node).bindService()),
                new ManagementCalls());
    }

    @Override
    public void getNodeInfo(GetNodeInfoRequest request, StreamObserver<NodeInfo> out) {
        reply(out, nodeInfo());
    }

    @Override
    public void getNodeRecord(GetNodeRecordRequest request, StreamObserver<NodeRecord> out) {
        NodeRecord.Builder b = NodeRecord.newBuilder().setNodeInfo(nodeInfo())
                .setSmInfo(smInfo(node.smInfo(), node.mKeyViolations()));
        for (int i = 1; i <= node.identity().ports(); i++) {
            b.addPorts(portInfo(node.port(i)));
        }
        if (node.isSwitch()) {
            b.setSwitchInfo(switchInfo());
        }
        reply(out, b.build());
    }

    private NodeInfo nodeInfo() {
        ManagedNode.Identity id = node.identity();
        return NodeInfo.newBuilder().setType(id.type()).setNodeGuid(id.guid()).setPortCount(id.ports())
                .setDescription(id.description()).build();
    }

    @Override
    public void getPortInfo(GetPortInfoRequest request, StreamObserver<GetPortInfoResponse> out) {
        int n = node.identity().ports();
        long p = Integer.toUnsignedLong(request.getPortNumber());
        if (p > n) {
            out.onError(notFound("port " + p + " does not exist; this node has ports 1.." + n));
            return;
        }
        GetPortInfoResponse.Builder b = GetPortInfoResponse.newBuilder();
        for (int i = p == 0 ? 1 : (int) p; i <= (p == 0 ? n : p); i++) {
            b.addPorts(portInfo(node.port(i)));
        }
        reply(out, b.build());
    }

    @Override
    public void setPortInfo(SetPortInfoRequest request, StreamObserver<PortInfo> out) {
        if (!checkMKey(request.getMKey(), out)) {
            return;
        }
        int n = node.identity().ports();
        long p = Integer.toUnsignedLong(request.getPortNumber());
        if (p < 1 || p > n) {
            out.onError(notFound("port " + p + " does not exist; this node has ports 1.." + n));
            return;
        }
        if (!checkLid(request.getLid(), out) || !checkState(request.getStateValue(), out)) {
            return;
        }
        try {
            reply(out, portInfo(node.setPort((int) p, request.getLid(), request.getState())));
        } catch (IllegalArgumentException e) {
            out.onError(invalid(e.getMessage()));
        }
    }

    @Override
    public void setAllPortInfo(SetAllPortInfoRequest request, StreamObserver<GetPortInfoResponse> out) {
        if (!checkMKey(request.getMKey(), out)) {
            return;
        }
        int n = node.identity().ports();
        if (!checkLid(request.getLid(), out) || !checkState(request.getStateValue(), out)) {
            return;
        }
        if (request.getState() == PortState.PORT_STATE_DOWN) {
            out.onError(invalid("state PORT_STATE_DOWN: only a link's failure takes a port down; the ports were left as they were"));
            return;
        }
        if (request.getLid() != 0 && !node.isSwitch() && n > 1) {
            out.onError(invalid("CA " + node.identity().description() + " has " + n + " ports; set their LIDs with SetPortInfo, port by port"));
            return;
        }
        GetPortInfoResponse.Builder b = GetPortInfoResponse.newBuilder();
        try {
            for (int p = 1; p <= n; p++) {
                PortState now = node.port(p).state();
                if (now != PortState.PORT_STATE_DOWN) {
                    // raise a port's state, never lower it: arming a node leaves its active ports active
                    PortState to = now.getNumber() >= request.getState().getNumber()
                            ? PortState.PORT_STATE_UNSPECIFIED : request.getState();
                    b.addPorts(portInfo(node.setPort(p, request.getLid(), to)));
                }
            }
        } catch (IllegalArgumentException e) {
            out.onError(invalid(e.getMessage()));
            return;
        }
        reply(out, b.build());
    }

    @Override
    public void getSwitchInfo(GetSwitchInfoRequest request, StreamObserver<SwitchInfo> out) {
        if (!requireSwitch(out)) {
            return;
        }
        reply(out, switchInfo());
    }

    private SwitchInfo switchInfo() {
        SwitchTables t = node.tables().current();
        return SwitchInfo.newBuilder().setLftCapacity(SwitchTables.CAPACITY).setLftTop(t.lftTop())
                .setTableVersion(t.version()).setPortCount(node.identity().ports()).setLid(node.port(1).lid())
                .setArEnabled(t.arEnabled()).addAllDirectionPorts(Arrays.stream(t.directionPorts()).boxed().toList())
                .setDataVls(node.dataVls()).build();
    }

    @Override
    public void getDragonflyRouting(GetDragonflyRoutingRequest request, StreamObserver<DragonflyState> out) {
        if (!requireSwitch(out)) {
            return;
        }
        // the routing and the Q-table learnt under it, read together where they are learnt (a
        // routing just written, not yet taken up by the data plane, must not show the old one's values)
        ManagedNode.Gauges g = node.gauges();
        CompletableFuture<SwitchCore.Learning> learning = g == null ? CompletableFuture.completedFuture(null) : g.learning();
        learning.whenComplete((l, error) -> {
            if (error != null) {
                out.onError(Status.UNAVAILABLE.withDescription("the Q-table of " + node.identity().description() + " could not be read: "
                        + error.getMessage()).asRuntimeException());
                return;
            }
            DragonflySwitch d = l == null ? node.tables().current().dragonfly() : l.routing();
            float[] q = l == null ? null : l.qTable();
            DragonflyState.Builder b = DragonflyState.newBuilder().setRouting(DragonflyWire.encode(d, !request.getFull()));
            PortCounterArray c = node.counters();
            b.setQUpdates(c.getNode(PortCounterArray.Q_UPDATES)).setQExplorations(c.getNode(PortCounterArray.Q_EXPLORATIONS))
                    .setMinimalDecisions(c.getNode(PortCounterArray.ADAPTIVE_MINIMAL))
                    .setNonminimalDecisions(c.getNode(PortCounterArray.ADAPTIVE_NONMINIMAL));
            if (d != null && d.qSeed() != null) {
                long first = Integer.toUnsignedLong(request.getFirstRow());
                long count = request.getRowCount() == 0 ? d.rows() - first : Integer.toUnsignedLong(request.getRowCount());
                if (first >= d.rows() || first + count > d.rows()) {
                    out.onError(Status.INVALID_ARGUMENT.withDescription("rows " + first + " to " + (first + count - 1)
                            + " are beyond the Q-table's " + d.rows() + " rows (0.." + (d.rows() - 1) + ")").asRuntimeException());
                    return;
                }
                int cols = d.columns();
                b.setRows(d.rows()).setColumns(cols).setFirstRow((int) first);
                for (long i = first * cols; i < (first + count) * cols; i++) {
                    b.addQValues(q == null ? d.qSeed()[(int) i] : q[(int) i]);
                    b.addQSeed(d.qSeed()[(int) i]);
                }
            }
            reply(out, b.build());
        });
    }

    @Override
    public void getArTables(GetArTablesRequest request, StreamObserver<ArTables> out) {
        if (!requireSwitch(out)) {
            return;
        }
        if (!checkBlock(request.getBlock(), out)) {
            return;
        }
        SwitchTables t = node.tables().current();
        ArTables.Builder b = ArTables.newBuilder().setArEnabled(t.arEnabled());
        for (int g = 1; g <= t.arGroupTop(); g++) {
            int[] ports = t.arPorts(g);
            if (ports != null) {
                ArGroup.Builder gb = ArGroup.newBuilder().setGroup(g);
                for (int p : ports) {
                    gb.addPorts(p);
                }
                for (int p : t.arDetours(g)) {
                    gb.addDetourPorts(p);
                }
                b.addGroups(gb);
            }
        }
        for (int p : t.arStaticInputs()) {
            b.addStaticInputPorts(p);
        }
        ArLftBlock.Builder block = ArLftBlock.newBuilder().setBlock(request.getBlock());
        for (short g : t.arBlock(request.getBlock())) {
            block.addGroups(g);
        }
        reply(out, b.setBlock(block).build());
    }

    @Override
    public void getLftBlock(GetLftBlockRequest request, StreamObserver<LftBlock> out) {
        if (!requireSwitch(out)) {
            return;
        }
        int block = request.getBlock();
        if (!checkBlock(block, out)) {
            return;
        }
        reply(out, LftBlock.newBuilder().setBlock(block)
                .setPorts(ByteString.copyFrom(node.tables().current().block(block))).build());
    }

    @Override
    public void writeTables(WriteTablesRequest request, StreamObserver<WriteTablesResponse> out) {
        if (!requireSwitch(out) || !checkMKey(request.getMKey(), out)) {
            return;
        }
        try {
            int changed = node.tables().apply(TableWriteDecoder.decode(request));
            reply(out, WriteTablesResponse.newBuilder().setVersion(request.getToVersion()).setChangedBlocks(changed).build());
        } catch (TableWriteException e) {
            Status s = switch (e.reason()) {
                case STALE_VERSION -> Status.FAILED_PRECONDITION;
                case VERSION_CEILING -> Status.OUT_OF_RANGE;
                case INVALID -> Status.INVALID_ARGUMENT;
            };
            out.onError(s.withDescription(e.getMessage() + "; the tables were left as they were").asRuntimeException());
        }
    }

    @Override
    public void getPortCounters(GetPortCountersRequest request, StreamObserver<PortCounters> out) {
        int n = node.identity().ports();
        long p = Integer.toUnsignedLong(request.getPortNumber());
        if (p < 1 || p > n) {
            out.onError(notFound("port " + p + " does not exist; this node has ports 1.." + n));
            return;
        }
        reply(out, portCounters((int) p, node.modelTimeNanos()));
    }

    /** Port {@code p}'s counters as read now, stamped with model time {@code modelTimeNs}. */
    private PortCounters portCounters(int p, long modelTimeNs) {
        int n = node.identity().ports();
        PortCounterArray c = node.counters();
        PortCounters.Builder b = PortCounters.newBuilder().setPortNumber(p).setModelTimeNs(modelTimeNs)
                .setXmitDataOctets(c.get(p, PortCounterArray.XMIT_DATA)).setRcvDataOctets(c.get(p, PortCounterArray.RCV_DATA))
                .setXmitPkts(c.get(p, PortCounterArray.XMIT_PKTS)).setRcvPkts(c.get(p, PortCounterArray.RCV_PKTS))
                .setXmitWaitNs(c.get(p, PortCounterArray.XMIT_WAIT_NS))
                .setXmitDiscards(c.get(p, PortCounterArray.XMIT_DISCARDS))
                .setXmitDiscardsByReason(XmitDiscards.newBuilder()
                        .setNoRoute(c.discards(p, DiscardReason.NO_ROUTE)).setNoLane(c.discards(p, DiscardReason.NO_LANE))
                        .setPortDown(c.discards(p, DiscardReason.PORT_DOWN)).setOverflow(c.discards(p, DiscardReason.OVERFLOW))
                        .setLinkLost(c.discards(p, DiscardReason.LINK_LOST)))
                .setRcvErrors(c.rcvErrors(p));
        ManagedNode.Gauges g = node.gauges();
        if (g != null) {
            // read while the data plane moves them: never report a transient below zero
            b.setInputQueuedPackets(Math.max(0, g.queuedPackets(p))).setOutputWaitingHeads(Math.max(0, g.waitingHeads(p)));
        }
        for (int in = 1; in <= n; in++) {
            long bytes = c.inputBytes(p, in);
            if (bytes > 0) {
                b.addInputBytes(InputBytes.newBuilder().setInputPort(in).setBytes(bytes));
            }
        }
        return b.build();
    }

    /**
     * Every port's counters, the node's adaptive decisions (and a Q-adaptive switch's learning) and,
     * on a channel adapter with a data plane, its NIC counters and flow counters: one call where a manager polling port by port makes one per port.
     * Everything is stamped with one model time, read first.
     */
    @Override
    public void getNodeCounters(GetNodeCountersRequest request, StreamObserver<NodeCounters> out) {
        long modelTimeNs = node.modelTimeNanos();
        PortCounterArray c = node.counters();
        NodeCounters.Builder b = NodeCounters.newBuilder().setModelTimeNs(modelTimeNs).setMKeyViolations(node.mKeyViolations());
        for (int p = 1; p <= node.identity().ports(); p++) {
            b.addPorts(portCounters(p, modelTimeNs));
        }
        if (node.isSwitch()) {
            b.setAdaptiveDecisions(AdaptiveDecisions.newBuilder().setMinimal(c.getNode(PortCounterArray.ADAPTIVE_MINIMAL))
                    .setNonminimal(c.getNode(PortCounterArray.ADAPTIVE_NONMINIMAL)));
            DragonflySwitch d = node.tables().current().dragonfly();
            if (d != null && d.qSeed() != null) {
                b.setQLearning(QLearning.newBuilder().setUpdates(c.getNode(PortCounterArray.Q_UPDATES))
                        .setExplorations(c.getNode(PortCounterArray.Q_EXPLORATIONS)).setChangePs(c.getNode(PortCounterArray.Q_CHANGE_PS))
                        .setEntries(d.qSeed().length));
            }
        }
        ManagedNode.FlowSource source = node.flowSource();
        String cc = node.congestionControl();
        if (source != null) { // a channel adapter with a data plane: its NIC's counters
            b.setNic(org.fabriclab.proto.v1.NicCounters.newBuilder().setRequestFlits(c.getNode(PortCounterArray.NIC_REQUEST_FLITS))
                    .setRequestFlitsStalledCycles(NicCounters.cycles(c.get(1, PortCounterArray.XMIT_WAIT_NS)))
                    .setLatencyPackets(c.getNode(PortCounterArray.NIC_LATENCY_PACKETS))
                    .setLatencyNsSum(c.getNode(PortCounterArray.NIC_LATENCY_NS))
                    .setReceivedHops(c.getNode(PortCounterArray.NIC_RECEIVED_HOPS))
                    .setCongestionControl(cc == null ? "" : cc)
                    .setCnpsReceived(c.getNode(PortCounterArray.NIC_CNPS_RECEIVED))
                    .setAcksReceived(c.getNode(PortCounterArray.NIC_ACKS_RECEIVED))
                    .setControlSent(c.getNode(PortCounterArray.NIC_CONTROL_SENT))
                    .setControlDropped(c.getNode(PortCounterArray.NIC_CONTROL_DROPPED))
                    .setJob(node.job() == null ? "" : node.job())
                    .setJobMessages(c.getNode(PortCounterArray.JOB_MESSAGES))
                    .setJobMessageNsSum(c.getNode(PortCounterArray.JOB_MESSAGE_NS))
                    .setJobPackets(c.getNode(PortCounterArray.JOB_PACKETS))
                    .setJobNonminimalPackets(c.getNode(PortCounterArray.JOB_NONMINIMAL_PACKETS))
                    .setJobIterations(c.getNode(PortCounterArray.JOB_ITERATIONS))
                    .setJobIterationNsSum(c.getNode(PortCounterArray.JOB_ITERATION_NS))
                    .setJobRefusedMessages(c.getNode(PortCounterArray.JOB_REFUSED_MESSAGES))
                    .addAllJobModePackets(jobModePackets(c, node.job() != null)));
        } else if (cc != null) { // a switch that marks ECN
            b.setEcn(org.fabriclab.proto.v1.EcnCounters.newBuilder().setMarked(c.getNode(PortCounterArray.ECN_MARKED)));
        }
        if (source == null) {
            reply(out, b.build());
            return;
        }
        source.flows().whenComplete((flows, error) -> {
            if (error != null) {
                out.onError(flowsUnreadable(error));
                return;
            }
            reply(out, b.setFlows(flowCounters(flows, modelTimeNs)).build());
        });
    }

    @Override
    public void writeSourceRoutes(WriteSourceRoutesRequest request,
                                  StreamObserver<SourceRouteTable> out) {
        if (!requireAdapter(out) || !checkMKey(request.getMKey(), out)) {
            return;
        }
        // every LID checked before the table is sized by the largest (a uint32 LID could ask for gigabytes)
        int top = 0;
        for (int k = 0; k < request.getRoutesCount(); k++) {
            int dlid = request.getRoutes(k).getDlid();
            if (dlid < 1 || dlid > 0xBFFF) {
                out.onError(invalid("routes[" + k + "] (LID " + Integer.toUnsignedString(dlid)
                        + "): not a unicast LID (1..0xbfff); the routes were left as they were"));
                return;
            }
            top = Math.max(top, dlid);
        }
        long[] table = new long[top + 1];
        for (int k = 0; k < request.getRoutesCount(); k++) {
            var r = request.getRoutes(k);
            String where = "routes[" + k + "] (LID " + r.getDlid() + ")";
            if (table[r.getDlid()] != 0) {
                out.onError(invalid(where + ": the LID appears twice; the routes were left as they were"));
                return;
            }
            try {
                table[r.getDlid()] = SourceRoute.encode(r.getDirections().toByteArray());
            } catch (IllegalArgumentException e) {
                out.onError(invalid(where + ": " + e.getMessage() + "; the routes were left as they were"));
                return;
            }
            if (table[r.getDlid()] == 0) {
                out.onError(invalid(where + ": an empty route; leave the LID out to route it by the switches' tables"));
                return;
            }
        }
        node.sourceRoutes(table);
        reply(out, sourceRouteTable());
    }

    @Override
    public void getSourceRoutes(GetSourceRoutesRequest request,
                                StreamObserver<SourceRouteTable> out) {
        if (requireAdapter(out)) {
            reply(out, sourceRouteTable());
        }
    }

    private SourceRouteTable sourceRouteTable() {
        var b = SourceRouteTable.newBuilder();
        long[] table = node.sourceRouteTable();
        for (int lid = 0; lid < table.length; lid++) {
            if (table[lid] != 0) {
                byte[] dirs = new byte[SourceRoute.length(table[lid])];
                for (int h = 0; h < dirs.length; h++) {
                    dirs[h] = (byte) SourceRoute.direction(table[lid], h);
                }
                b.addRoutes(SourceRouteEntry.newBuilder().setDlid(lid)
                        .setDirections(ByteString.copyFrom(dirs)));
            }
        }
        return b.build();
    }

    private boolean requireAdapter(StreamObserver<?> out) {
        if (node.isSwitch()) {
            out.onError(Status.FAILED_PRECONDITION.withDescription(node.identity().description()
                    + " is a switch; source routes are written to channel adapters (the switches forward by the header)").asRuntimeException());
            return false;
        }
        return true;
    }

    @Override
    public void getFlowCounters(GetFlowCountersRequest request, StreamObserver<FlowCounters> out) {
        ManagedNode.FlowSource source = node.flowSource();
        if (source == null) {
            out.onError(Status.FAILED_PRECONDITION.withDescription(node.identity().description()
                    + " receives no flows (it is a switch, or has no data plane); ask a channel adapter").asRuntimeException());
            return;
        }
        source.flows().whenComplete((flows, error) -> {
            if (error != null) {
                out.onError(flowsUnreadable(error));
                return;
            }
            reply(out, flowCounters(flows, node.modelTimeNanos()));
        });
    }

    private StatusRuntimeException flowsUnreadable(Throwable error) {
        return Status.UNAVAILABLE.withDescription("the flow counters of " + node.identity().description()
                + " could not be read: " + error.getMessage()).asRuntimeException();
    }

    private static FlowCounters flowCounters(List<FlowSink.Flow> flows, long modelTimeNs) {
        FlowCounters.Builder b = FlowCounters.newBuilder().setModelTimeNs(modelTimeNs);
        for (FlowSink.Flow f : flows) {
            b.addFlows(FlowCounter.newBuilder().setSourceLid(f.sourceLid()).setPackets(f.packets()).setBytes(f.bytes())
                    .setOutOfOrder(f.outOfOrder()).setMissing(f.missing()).setLatencyNsSum(f.latencyNsSum()));
        }
        return b.build();
    }

    @Override
    public void resetPortCounters(ResetPortCountersRequest request, StreamObserver<ResetPortCountersResponse> out) {
        if (!checkMKey(request.getMKey(), out)) {
            return;
        }
        int n = node.identity().ports();
        if (Integer.toUnsignedLong(request.getPortNumber()) > n) {
            out.onError(notFound("port " + Integer.toUnsignedString(request.getPortNumber()) + " does not exist; this node has ports 1.."
                    + n + " (0: every port)"));
            return;
        }
        node.resetCounters(request.getPortNumber()).whenComplete((done, error) -> {
            if (error != null) {
                out.onError(Status.UNAVAILABLE.withDescription("the counters of " + node.identity().description()
                        + " could not be reset: its data plane is shutting down").asRuntimeException());
            } else {
                reply(out, ResetPortCountersResponse.getDefaultInstance());
            }
        });
    }

    @Override
    public void getSmInfo(GetSmInfoRequest request, StreamObserver<SmInfo> out) {
        reply(out, smInfo(node.smInfo(), node.mKeyViolations()));
    }

    @Override
    public void setSmInfo(SetSmInfoRequest request, StreamObserver<SmInfo> out) {
        if (!checkMKey(request.getMKey(), out)) {
            return;
        }
        if (Integer.toUnsignedLong(request.getPriority()) > 15) {
            out.onError(invalid("priority " + Integer.toUnsignedString(request.getPriority())
                    + " is out of range 0..15 (IBA SMInfo:Priority); SMInfo was left as it was"));
            return;
        }
        if (SmState.forNumber(request.getStateValue()) == null) {
            out.onError(invalid("state " + request.getStateValue() + " is not an SmState (0 keeps it, 1 NOT_ACTIVE, 2 DISCOVERING, "
                    + "3 STANDBY, 4 MASTER); SMInfo was left as it was"));
            return;
        }
        reply(out, smInfo(node.setSmInfo(request.getSmGuid(), request.getPriority(), request.getState(), request.getNewMKey(),
                request.getActCount()), node.mKeyViolations()));
    }

    @Override
    public void subscribeEvents(SubscribeEventsRequest request, StreamObserver<Event> out) {
        ServerCallStreamObserver<Event> call = (ServerCallStreamObserver<Event>) out;
        Consumer<Event> listener = e -> {
            synchronized (call) {
                if (!call.isCancelled()) {
                    call.onNext(e);
                }
            }
        };
        call.setOnCancelHandler(() -> node.removeListener(listener));
        node.addListener(listener);
    }

    @Override
    public void getEmulationStatus(GetEmulationStatusRequest request, StreamObserver<EmulationStatus> out) {
        ManagedNode.Emulation e = emulation(out);
        if (e != null) {
            replyEmulation(e, Integer.toUnsignedLong(request.getWindowMs()), out);
        }
    }

    @Override
    public void setTimeDilation(SetTimeDilationRequest request, StreamObserver<EmulationStatus> out) {
        ManagedNode.Emulation e = emulation(out);
        if (e == null || !checkMKey(request.getMKey(), out)) {
            return;
        }
        try {
            if (request.getAnchored()) {
                e.anchor(request.getAnchorModelNs(), request.getAnchorWallNs(), request.getDilation());
            } else {
                e.dilation(request.getDilation());
            }
        } catch (IllegalArgumentException x) {
            out.onError(invalid(x.getMessage() + "; node " + node.identity().description() + " keeps its dilation"));
            return;
        }
        replyEmulation(e, 0, out);
    }

    private ManagedNode.Emulation emulation(StreamObserver<?> out) {
        ManagedNode.Emulation e = node.emulation();
        if (e == null) {
            out.onError(Status.UNIMPLEMENTED.withDescription("node " + node.identity().description()
                    + " has no live data plane; time dilation is the emulated plane's").asRuntimeException());
        }
        return e;
    }

    private void replyEmulation(ManagedNode.Emulation e, long windowMs, StreamObserver<EmulationStatus> out) {
        e.state(windowMs).whenComplete((s, error) -> {
            if (error != null) {
                out.onError(Status.UNAVAILABLE.withDescription("the emulation status of " + node.identity().description()
                        + " could not be read: " + error.getMessage()).asRuntimeException());
                return;
            }
            reply(out, EmulationStatus.newBuilder().setDilation(s.dilation()).setModelTimeNs(s.modelTimeNs())
                    .setLoopLagNs(s.loopLagNs()).setLinkLagNs(s.linkLagNs()).setLinkLagPort(s.linkLagPort())
                    .setLagBoundNs(s.boundNs()).setAnchorModelNs(s.anchorModelNs()).setAnchorWallNs(s.anchorWallNs()).build());
        });
    }

    private static SmInfo smInfo(ManagedNode.SmInfoState s, long violations) {
        return SmInfo.newBuilder().setSmGuid(s.smGuid()).setPriority(s.priority()).setState(s.state()).setMKeySet(s.mKeySet())
                .setActCount(s.actCount()).setMKeyViolations(violations).build();
    }

    private static PortInfo portInfo(ManagedNode.Port p) {
        return PortInfo.newBuilder().setPortNumber(p.number()).setState(p.state()).setLid(p.lid()).setRateGbps(p.rateGbps())
                .setNeighbourNodeGuid(p.neighbourGuid()).setNeighbourPort(p.neighbourPort())
                .setNeighbourEndpoint(p.neighbourEndpoint()).build();
    }

    private boolean requireSwitch(StreamObserver<?> out) {
        if (!node.isSwitch()) {
            out.onError(Status.UNIMPLEMENTED.withDescription("node " + node.identity().description()
                    + " is a channel adapter; switch attributes are not served here").asRuntimeException());
            return false;
        }
        return true;
    }

    /**
     * True if {@code key} may change this node. Otherwise the call is refused PERMISSION_DENIED,
     * counted, reported by trap 256 and logged (the key tried never is), or, past the node's trap
     * rate, only counted and refused unread.
     */
    private boolean checkMKey(long key, StreamObserver<?> out) {
        if (node.mKeyAllows(key)) {
            return true;
        }
        String method = ManagementCalls.method();
        String peer = ManagementCalls.peer();
        String who = node.identity().description();
        ManagedNode.Violation v = node.mKeyViolation(method, peer);
        if (!v.trapped()) {
            out.onError(Status.PERMISSION_DENIED.withDescription("too many M_Key violations at node " + who + " (over "
                    + ManagedNode.M_KEY_TRAPS_PER_SECOND + " a second): " + method + " refused unread (violation " + v.total()
                    + ", to be reported with the next trap 256)").asRuntimeException());
            return false;
        }
        LOG.warn("M_Key violation at {}: {} from {} refused, {} (violation {} at this node{}); trap 256 sent", who, method, peer,
                key == 0 ? "no M_Key given" : "a wrong M_Key", v.total(),
                v.coalesced() > 1 ? ", with " + (v.coalesced() - 1) + " refused unread since the last trap" : "");
        out.onError(Status.PERMISSION_DENIED.withDescription((key == 0 ? "no M_Key given, and an M_Key guards node " : "wrong M_Key for node ")
                + who + "; only the manager that set it may change this node (M_Key violation " + v.total() + ", reported by trap 256)")
                .asRuntimeException());
        return false;
    }

    /** A uint32 LID field: 0 (keep) or a unicast LID. */
    private static boolean checkLid(int lid, StreamObserver<?> out) {
        if (Integer.toUnsignedLong(lid) > 0xBFFF) {
            out.onError(invalid("LID " + Integer.toUnsignedString(lid) + " is not a unicast LID (1..0xbfff; 0 keeps the LID)"
                    + "; the ports were left as they were"));
            return false;
        }
        return true;
    }

    /** A PortState field: one this node knows. */
    private static boolean checkState(int state, StreamObserver<?> out) {
        if (PortState.forNumber(state) == null) {
            out.onError(invalid("state " + state + " is not a PortState (0 keeps it, 2 INIT, 3 ARMED, 4 ACTIVE)"
                    + "; the ports were left as they were"));
            return false;
        }
        return true;
    }

    /** A uint32 LFT (or AR LFT) block number within the LFT's capacity. */
    private static boolean checkBlock(int block, StreamObserver<?> out) {
        if (Integer.toUnsignedLong(block) >= SwitchTables.CAPACITY / SwitchTables.BLOCK) {
            out.onError(invalid("block " + Integer.toUnsignedString(block) + " is beyond the LFT capacity of "
                    + SwitchTables.CAPACITY / SwitchTables.BLOCK + " blocks (0.." + (SwitchTables.CAPACITY / SwitchTables.BLOCK - 1) + ")"));
            return false;
        }
        return true;
    }

    private static <T> void reply(StreamObserver<T> out, T value) {
        out.onNext(value);
        out.onCompleted();
    }

    private static StatusRuntimeException invalid(String message) {
        return Status.INVALID_ARGUMENT.withDescription(message).asRuntimeException();
    }

    private static StatusRuntimeException notFound(String message) {
        return Status.NOT_FOUND.withDescription(message).asRuntimeException();
    }

    /** A job's host's packets received by routing mode, by the mode's code ({@link PortCounterArray#JOB_MODE_PACKETS}); none without a job. */
    private static List<Long> jobModePackets(PortCounterArray c, boolean job) {
        List<Long> out = new ArrayList<>(job ? PortCounterArray.ROUTING_MODES : 0);
        for (int m = 0; job && m < PortCounterArray.ROUTING_MODES; m++) {
            out.add(c.getNode(PortCounterArray.JOB_MODE_PACKETS + m));
        }
        return out;
    }
}
