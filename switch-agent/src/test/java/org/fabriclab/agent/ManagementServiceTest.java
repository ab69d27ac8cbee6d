package org.fabriclab.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.FlowSink;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.agent.mgmt.ManagementService;
import org.fabriclab.proto.v1.ArGroup;
import org.fabriclab.proto.v1.ArLftBlock;
import org.fabriclab.proto.v1.DirectionPorts;
import org.fabriclab.proto.v1.Event;
import org.fabriclab.proto.v1.GetArTablesRequest;
import org.fabriclab.proto.v1.GetFlowCountersRequest;
import org.fabriclab.proto.v1.GetLftBlockRequest;
import org.fabriclab.proto.v1.GetNodeInfoRequest;
import org.fabriclab.proto.v1.GetNodeRecordRequest;
import org.fabriclab.proto.v1.GetPortCountersRequest;
import org.fabriclab.proto.v1.GetPortInfoRequest;
import org.fabriclab.proto.v1.GetSmInfoRequest;
import org.fabriclab.proto.v1.GetSourceRoutesRequest;
import org.fabriclab.proto.v1.GetSwitchInfoRequest;
import org.fabriclab.proto.v1.LftBlock;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortSet;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.proto.v1.SetPortInfoRequest;
import org.fabriclab.proto.v1.SetSmInfoRequest;
import org.fabriclab.proto.v1.Sl2VlTable;
import org.fabriclab.proto.v1.SmState;
import org.fabriclab.proto.v1.SourceRouteEntry;
import org.fabriclab.proto.v1.SubscribeEventsRequest;
import org.fabriclab.proto.v1.SwitchInfo;
import org.fabriclab.proto.v1.WriteSourceRoutesRequest;
import org.fabriclab.proto.v1.WriteTablesRequest;
import org.fabriclab.routing.torus.SourceRoute;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The management service over a real in-process gRPC channel: table writes are all-or-nothing and
 * versioned, every bad request gets its status with a description and changes nothing, the M_Key
 * guards writes, traps stream until cancelled.
 */
class ManagementServiceTest {
    private static final int PORTS = 8;
    private ManagedNode node;
    private Server server;
    private ManagedChannel channel;
    private ManagementGrpc.ManagementBlockingStub stub;

    @BeforeEach
    void start() throws Exception {
        node = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, 0x200000L, "S1", PORTS));
        String name = InProcessServerBuilder.generateName();
        server = InProcessServerBuilder.forName(name).directExecutor().addService(new ManagementService(node)).build().start();
        channel = InProcessChannelBuilder.forName(name).directExecutor().build();
        stub = ManagementGrpc.newBlockingStub(channel);
    }

    @AfterEach
    void stop() throws Exception {
        channel.shutdownNow();
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    private ManagementGrpc.ManagementBlockingStub call() {
        return stub.withDeadlineAfter(5, TimeUnit.SECONDS);
    }

    private static LftBlock block(int n, int port) {
        byte[] b = new byte[64];
        Arrays.fill(b, (byte) port);
        return LftBlock.newBuilder().setBlock(n).setPorts(ByteString.copyFrom(b)).build();
    }

    private static WriteTablesRequest.Builder write(long from, long to) {
        return WriteTablesRequest.newBuilder().setFromVersion(from).setToVersion(to);
    }

    /** Everything a write could have changed, read back through the service. */
    private String snapshot() {
        SwitchInfo info = call().getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance());
        StringBuilder sb = new StringBuilder(info.toString());
        for (int b = 0; b < 4; b++) {
            sb.append(Arrays.toString(call().getLftBlock(GetLftBlockRequest.newBuilder().setBlock(b).build()).getPorts().toByteArray()));
        }
        sb.append(node.tables().current().vl(1, 2, 3));
        return sb.toString();
    }

    @Test
    void aNodeRecordHoldsWhatTheSingleAttributesSay() {
        node.linkUp(3, 100, 0x100000L, 1, "H1");
        var record = call().getNodeRecord(GetNodeRecordRequest.getDefaultInstance());
        assertEquals(call().getNodeInfo(GetNodeInfoRequest.getDefaultInstance()), record.getNodeInfo());
        assertEquals(call().getPortInfo(GetPortInfoRequest.getDefaultInstance()).getPortsList(), record.getPortsList());
        assertEquals(call().getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()), record.getSwitchInfo());
        assertEquals(call().getSmInfo(GetSmInfoRequest.getDefaultInstance()), record.getSmInfo());
        assertEquals(0x100000L, record.getPorts(2).getNeighbourNodeGuid());
    }

    @Test
    void adaptiveRoutingTablesAreWrittenWithTheLftAndReadBack() {
        var ar = ArLftBlock.newBuilder().setBlock(0);
        for (int i = 0; i < 64; i++) {
            ar.addGroups(i == 5 ? 2 : 0);
        }
        call().writeTables(write(0, 1).addLftBlocks(block(0, 3))
                .addArGroups(ArGroup.newBuilder().setGroup(2).addPorts(3).addPorts(4).addDetourPorts(4))
                .setArStaticInputPorts(PortSet.newBuilder().addPorts(2))
                .addArLftBlocks(ar).setArEnabled(true).build());
        var read = call().getArTables(GetArTablesRequest.newBuilder().setBlock(0).build());
        assertTrue(read.getArEnabled());
        assertEquals(1, read.getGroupsCount());
        assertEquals(List.of(3, 4), read.getGroups(0).getPortsList());
        assertEquals(List.of(4), read.getGroups(0).getDetourPortsList());
        assertEquals(List.of(2), read.getStaticInputPortsList());
        assertEquals(2, read.getBlock().getGroups(5));
        assertEquals(0, read.getBlock().getGroups(6));
        assertTrue(call().getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()).getArEnabled());

        // an AR entry naming a group that does not exist: refused, nothing changes
        String before = snapshot();
        var bad = ArLftBlock.newBuilder().setBlock(0);
        for (int i = 0; i < 64; i++) {
            bad.addGroups(i == 7 ? 9 : 0);
        }
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> call().writeTables(write(1, 2).addLftBlocks(block(0, 4)).addArLftBlocks(bad).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("AR group 9, which is not defined"), e.getStatus().getDescription());
        assertEquals(before, snapshot());
        assertEquals(2, call().getArTables(GetArTablesRequest.newBuilder().setBlock(0).build())
                .getBlock().getGroups(5));

        // a uint32 group of 2^31 or more (negative in Java) whose low 16 bits name group 2: refused, not group 2
        var wrapped = ArLftBlock.newBuilder().setBlock(0);
        for (int i = 0; i < 64; i++) {
            wrapped.addGroups(i == 7 ? 0xFFFF0002 : 0);
        }
        StatusRuntimeException w = assertThrows(StatusRuntimeException.class,
                () -> call().writeTables(write(1, 2).addLftBlocks(block(0, 4)).addArLftBlocks(wrapped).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, w.getStatus().getCode());
        assertEquals(before, snapshot());
    }

    @Test
    void aBatchIsAppliedWholeAndVersioned() {
        assertEquals(0, call().getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()).getTableVersion());
        var r = call().writeTables(write(0, 1).addLftBlocks(block(0, 3)).addLftBlocks(block(2, 255)).setLftTop(130).build());
        assertEquals(1, r.getVersion());
        assertEquals(1, r.getChangedBlocks(), "block 2 written with no-route entries changes nothing");
        SwitchInfo info = call().getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance());
        assertEquals(1, info.getTableVersion());
        assertEquals(130, info.getLftTop());
        assertEquals(0xC000, info.getLftCapacity());
        byte[] b0 = call().getLftBlock(GetLftBlockRequest.newBuilder().setBlock(0).build()).getPorts().toByteArray();
        assertEquals(3, b0[17]);
        assertEquals(3, node.tables().current().port(17));
        assertEquals(255, node.tables().current().port(500), "unwritten LIDs have no route");
    }

    @Test
    void badBatchesGetTheirStatusAndChangeNothing() {
        call().writeTables(write(0, 1).addLftBlocks(block(0, 2)).build());
        String before = snapshot();
        byte[] badEntry = new byte[64];
        badEntry[5] = 9;
        Object[][] cases = {
            {write(1, 2).addLftBlocks(block(1, 4)).addLftBlocks(LftBlock.newBuilder().setBlock(3)
                    .setPorts(ByteString.copyFrom(badEntry))), Status.Code.INVALID_ARGUMENT,
                "lft_blocks[1] (block 3): entry 5 (LID 197) names port 9 but the switch has ports 0..8"},
            {write(1, 2).addLftBlocks(block(768, 1)), Status.Code.INVALID_ARGUMENT, "block is beyond the LFT capacity"},
            {write(1, 2).addLftBlocks(LftBlock.newBuilder().setBlock(1).setPorts(ByteString.copyFrom(new byte[63]))),
                Status.Code.INVALID_ARGUMENT, "exactly 64 entries, not 63"},
            {write(1, 2).addLftBlocks(block(1, 1)).addLftBlocks(block(1, 2)), Status.Code.INVALID_ARGUMENT, "appears twice"},
            {write(0, 2).addLftBlocks(block(1, 1)), Status.Code.FAILED_PRECONDITION, "the switch holds version 1"},
            {write(1, 1).addLftBlocks(block(1, 1)), Status.Code.INVALID_ARGUMENT, "must be greater than from_version"},
            {write(1, 2).setLftTop(0xC000), Status.Code.INVALID_ARGUMENT, "lft_top 49152 is beyond"},
            {write(1, 2).addLftBlocks(block(1, 1)).addSl2Vl(Sl2VlTable.newBuilder().setInputPort(1).setOutputPort(2)
                    .setVl(ByteString.copyFrom(new byte[15]))), Status.Code.INVALID_ARGUMENT, "sl2vl[0]: needs 16 VL entries"},
        };
        for (Object[] c : cases) {
            WriteTablesRequest req = ((WriteTablesRequest.Builder) c[0]).build();
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> call().writeTables(req));
            assertEquals(c[1], e.getStatus().getCode(), e.getStatus().toString());
            assertTrue(e.getStatus().getDescription().contains((String) c[2]), e.getStatus().getDescription());
            assertTrue(e.getStatus().getDescription().endsWith("the tables were left as they were"));
            assertEquals(before, snapshot(), "a refused batch must leave the tables exactly as they were: " + c[2]);
        }
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> call().getLftBlock(GetLftBlockRequest.newBuilder().setBlock(768).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
    }

    @Test
    void theMKeyGuardsWrites() {
        call().setSmInfo(SetSmInfoRequest.newBuilder().setSmGuid(0x100000L).setState(SmState.SM_STATE_MASTER).setNewMKey(42).build());
        String before = snapshot();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> call().writeTables(write(0, 1).setMKey(7).addLftBlocks(block(0, 1)).build()));
        assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("wrong M_Key for node S1"));
        assertEquals(before, snapshot());
        assertEquals(1, call().writeTables(write(0, 1).setMKey(42).addLftBlocks(block(0, 1)).build()).getVersion());
        assertThrows(StatusRuntimeException.class, () -> call().setSmInfo(SetSmInfoRequest.newBuilder().setMKey(1).build()));
    }

    @Test
    void portStatesFollowTheLinkAndTheManagersOrder() {
        StatusRuntimeException down = assertThrows(StatusRuntimeException.class, () -> call().setPortInfo(
                SetPortInfoRequest.newBuilder().setPortNumber(1).setState(PortState.PORT_STATE_ACTIVE).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, down.getStatus().getCode());
        assertTrue(down.getStatus().getDescription().contains("has no link and stays DOWN"));
        node.linkUp(1, 100, 0x200001L, 4, "S2");
        var p = call().getPortInfo(GetPortInfoRequest.newBuilder().setPortNumber(1).build()).getPorts(0);
        assertEquals(PortState.PORT_STATE_INIT, p.getState());
        assertEquals(0x200001L, p.getNeighbourNodeGuid());
        assertEquals(4, p.getNeighbourPort());
        call().setPortInfo(SetPortInfoRequest.newBuilder().setPortNumber(1).setLid(5).setState(PortState.PORT_STATE_ARMED).build());
        var active = call().setPortInfo(SetPortInfoRequest.newBuilder().setPortNumber(1).setState(PortState.PORT_STATE_ACTIVE).build());
        assertEquals(PortState.PORT_STATE_ACTIVE, active.getState());
        assertEquals(5, active.getLid());
        assertEquals(8, call().getPortInfo(GetPortInfoRequest.getDefaultInstance()).getPortsCount());
        StatusRuntimeException missing = assertThrows(StatusRuntimeException.class,
                () -> call().getPortInfo(GetPortInfoRequest.newBuilder().setPortNumber(9).build()));
        assertEquals(Status.Code.NOT_FOUND, missing.getStatus().getCode());
    }

    @Test
    void trapsStreamUntilTheSubscriberCancels() throws Exception {
        var events = new LinkedBlockingQueue<Event>();
        io.grpc.Context.CancellableContext ctx = io.grpc.Context.current().withCancellation();
        Iterator<Event>[] it = new Iterator[1];
        ctx.run(() -> it[0] = stub.subscribeEvents(SubscribeEventsRequest.getDefaultInstance()));
        node.linkUp(3, 100, 0x100000L, 1, "H1");
        node.linkDown(3);
        events.add(it[0].next());
        events.add(it[0].next());
        Event up = events.take();
        Event gone = events.take();
        assertEquals(3, up.getPortStateChange().getPortNumber());
        assertEquals(PortState.PORT_STATE_INIT, up.getPortStateChange().getState());
        assertEquals(PortState.PORT_STATE_DOWN, gone.getPortStateChange().getState());
        assertEquals(up.getSequence() + 1, gone.getSequence());
        assertEquals(1, node.subscriberCount());
        ctx.cancel(null);
        // the watcher is removed when the subscriber cancels (the server learns of it asynchronously)
        for (int i = 0; i < 500 && node.subscriberCount() > 0; i++) {
            Thread.sleep(10);
        }
        assertEquals(0, node.subscriberCount());
        node.linkUp(3, 100, 0x100000L, 1, "H1");
    }

    @Test
    void aChannelAdapterServesNoSwitchAttributes() throws Exception {
        ManagedNode ca = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_CA, 0x100000L, "H1", 1));
        String name = InProcessServerBuilder.generateName();
        Server s = InProcessServerBuilder.forName(name).directExecutor().addService(new ManagementService(ca)).build().start();
        ManagedChannel c = InProcessChannelBuilder.forName(name).directExecutor().build();
        try {
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> ManagementGrpc.newBlockingStub(c)
                    .withDeadlineAfter(5, TimeUnit.SECONDS).getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()));
            assertEquals(Status.Code.UNIMPLEMENTED, e.getStatus().getCode());
            var record = ManagementGrpc.newBlockingStub(c).withDeadlineAfter(5, TimeUnit.SECONDS)
                    .getNodeRecord(GetNodeRecordRequest.getDefaultInstance());
            assertFalse(record.hasSwitchInfo(), "a CA's record has no SwitchInfo");
            assertEquals(1, record.getPortsCount());
        } finally {
            c.shutdownNow();
            s.shutdownNow();
        }
    }

    @Test
    void portCountersCarryQueueGaugesAndTheBytesEachInputSent() {
        var c = node.counters();
        c.add(3, PortCounterArray.XMIT_DATA, 900);
        c.addInput(3, 1, 600);
        c.addInput(3, 2, 300);
        node.gauges(new ManagedNode.Gauges() {
            @Override
            public int queuedPackets(int port) {
                return port == 1 ? 5 : 0;
            }

            @Override
            public int waitingHeads(int port) {
                return port == 3 ? 2 : 0;
            }
        });
        var pc = call().getPortCounters(GetPortCountersRequest.newBuilder().setPortNumber(3).build());
        assertEquals(900, pc.getXmitDataOctets());
        assertEquals(2, pc.getOutputWaitingHeads());
        assertEquals(2, pc.getInputBytesCount(), "inputs that sent nothing through port 3 are left out");
        assertEquals(1, pc.getInputBytes(0).getInputPort());
        assertEquals(600, pc.getInputBytes(0).getBytes());
        assertEquals(300, pc.getInputBytes(1).getBytes());
        assertEquals(5, call().getPortCounters(GetPortCountersRequest.newBuilder().setPortNumber(1).build())
                .getInputQueuedPackets());
    }

    @Test
    void flowCountersComeFromAChannelAdapterAndASwitchSaysItHasNone() throws Exception {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> call().getFlowCounters(GetFlowCountersRequest.getDefaultInstance()));
        assertEquals(Status.Code.FAILED_PRECONDITION, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("S1 receives no flows"), e.getStatus().getDescription());

        ManagedNode ca = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_CA, 0x300000L, "H1", 1));
        FlowSink sink = new FlowSink();
        sink.record(7, 0, 100, 1_000);
        sink.record(7, 2, 100, 3_000); // seq 1 skipped
        sink.record(7, 1, 100, 2_000); // ... and arrived late: reordered, not lost
        sink.record(9, 0, 50, 500);
        ca.flowSource(() -> CompletableFuture.completedFuture(sink.flows()));
        String name = InProcessServerBuilder.generateName();
        Server s = InProcessServerBuilder.forName(name).directExecutor().addService(new ManagementService(ca)).build().start();
        ManagedChannel ch = InProcessChannelBuilder.forName(name).directExecutor().build();
        try {
            var flows = ManagementGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS)
                    .getFlowCounters(GetFlowCountersRequest.getDefaultInstance()).getFlowsList();
            assertEquals(2, flows.size());
            assertEquals(7, flows.get(0).getSourceLid());
            assertEquals(3, flows.get(0).getPackets());
            assertEquals(300, flows.get(0).getBytes());
            assertEquals(1, flows.get(0).getOutOfOrder());
            assertEquals(0, flows.get(0).getMissing());
            assertEquals(6_000, flows.get(0).getLatencyNsSum());
            assertEquals(9, flows.get(1).getSourceLid());
        } finally {
            ch.shutdownNow();
            s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void directionPortsAreWrittenWithTheTablesAndReadBack() {
        call().writeTables(write(0, 1).setDirectionPorts(DirectionPorts.newBuilder().addAllPorts(List.of(1, 3, 2, 4)))
                .build());
        assertEquals(List.of(1, 3, 2, 4), call().getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()).getDirectionPortsList());
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> call().writeTables(write(1, 2)
                .setDirectionPorts(DirectionPorts.newBuilder().addAllPorts(List.of(1, 9))).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("direction_ports[1]: port 9"), e.getStatus().getDescription());
        assertEquals(1, call().getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()).getTableVersion(), "left as it was");
        // a write without the field keeps them
        call().writeTables(write(1, 2).build());
        assertEquals(4, call().getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()).getDirectionPortsCount());
    }

    @Test
    void sourceRoutesGoToAdaptersWholeAndBadOnesChangeNothing() throws Exception {
        StatusRuntimeException sw = assertThrows(StatusRuntimeException.class,
                () -> call().writeSourceRoutes(WriteSourceRoutesRequest.getDefaultInstance()));
        assertEquals(Status.Code.FAILED_PRECONDITION, sw.getStatus().getCode());
        ManagedNode ca = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_CA, 0x300001L, "H1", 1));
        String name = InProcessServerBuilder.generateName();
        Server s = InProcessServerBuilder.forName(name).directExecutor().addService(new ManagementService(ca)).build().start();
        ManagedChannel ch = InProcessChannelBuilder.forName(name).directExecutor().build();
        try {
            var stub = ManagementGrpc.newBlockingStub(ch).withDeadlineAfter(5, TimeUnit.SECONDS);
            var route = SourceRouteEntry.newBuilder().setDlid(7).setDirections(ByteString.copyFrom(new byte[] {0, 1, 5}));
            var table = stub.writeSourceRoutes(WriteSourceRoutesRequest.newBuilder().addRoutes(route).build());
            assertEquals(1, table.getRoutesCount());
            assertEquals(SourceRoute.encode(new byte[] {0, 1, 5}), ca.sourceRoute(7));
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.writeSourceRoutes(
                    WriteSourceRoutesRequest.newBuilder().addRoutes(route)
                            .addRoutes(SourceRouteEntry.newBuilder().setDlid(8).setDirections(ByteString.copyFrom(new byte[] {9})))
                            .build()));
            assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
            assertTrue(e.getStatus().getDescription().contains("routes[1] (LID 8): direction 9"), e.getStatus().getDescription());
            assertEquals(1, stub.getSourceRoutes(GetSourceRoutesRequest.getDefaultInstance()).getRoutesCount(),
                    "the table was left as it was");
            assertEquals("[0, 1, 5]", Arrays.toString(
                    stub.getSourceRoutes(GetSourceRoutesRequest.getDefaultInstance()).getRoutes(0).getDirections().toByteArray()));
            // LIDs out of range, down to a uint32 read as negative, are refused before the table is sized by them
            for (int dlid : new int[] {0xC000, 300_000_000, 0x7FFFFFFF, -1}) {
                StatusRuntimeException big = assertThrows(StatusRuntimeException.class, () -> stub.writeSourceRoutes(
                        WriteSourceRoutesRequest.newBuilder().addRoutes(SourceRouteEntry.newBuilder().setDlid(dlid)
                                .setDirections(ByteString.copyFrom(new byte[] {0}))).build()));
                assertEquals(Status.Code.INVALID_ARGUMENT, big.getStatus().getCode(), Integer.toUnsignedString(dlid));
                assertTrue(big.getStatus().getDescription().contains("not a unicast LID"), big.getStatus().getDescription());
            }
            assertEquals(SourceRoute.encode(new byte[] {0, 1, 5}), ca.sourceRoute(7), "the table was left as it was");
        } finally {
            ch.shutdownNow();
            s.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
