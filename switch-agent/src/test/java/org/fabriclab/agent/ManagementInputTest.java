package org.fabriclab.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import com.google.protobuf.Message;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.netty.channel.DefaultEventLoop;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.SwitchTables;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.agent.mgmt.NodeRoutingRegistry;
import org.fabriclab.proto.v1.ArGroup;
import org.fabriclab.proto.v1.ArLftBlock;
import org.fabriclab.proto.v1.DirectionPorts;
import org.fabriclab.proto.v1.DragonflyRouting;
import org.fabriclab.proto.v1.GetArTablesRequest;
import org.fabriclab.proto.v1.GetDragonflyRoutingRequest;
import org.fabriclab.proto.v1.GetEmulationStatusRequest;
import org.fabriclab.proto.v1.GetFlowCountersRequest;
import org.fabriclab.proto.v1.GetLftBlockRequest;
import org.fabriclab.proto.v1.GetPortCountersRequest;
import org.fabriclab.proto.v1.GetPortInfoRequest;
import org.fabriclab.proto.v1.GetSourceRoutesRequest;
import org.fabriclab.proto.v1.GetSwitchInfoRequest;
import org.fabriclab.proto.v1.LftBlock;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortSet;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.proto.v1.ResetPortCountersRequest;
import org.fabriclab.proto.v1.SetAllPortInfoRequest;
import org.fabriclab.proto.v1.SetPortInfoRequest;
import org.fabriclab.proto.v1.SetSmInfoRequest;
import org.fabriclab.proto.v1.SetTimeDilationRequest;
import org.fabriclab.proto.v1.Sl2VlTable;
import org.fabriclab.proto.v1.SmState;
import org.fabriclab.proto.v1.SourceRouteEntry;
import org.fabriclab.proto.v1.WriteSourceRoutesRequest;
import org.fabriclab.proto.v1.WriteTablesRequest;
import org.fabriclab.routing.text.Excerpt;
import org.fabriclab.testkit.GrpcCalls;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 18's finding 8, on the node's side: every RPC of the management service, served over TCP
 * on loopback as {@code emulator up} serves it (one server, nodes by authority), given malformed,
 * huge and out-of-range fields, answers the documented code with a reason of bounded length (never
 * UNKNOWN, never the input echoed whole), and changes nothing: the switch's tables, ports and
 * SMInfo and the adapter's source routes are the same before and after. Every method of the
 * service is covered (a new RPC without cases fails the test), and every method also gets bytes
 * that are not a protobuf message at all.
 */
class ManagementInputTest {
    private static final long KEY = 0x5eed_cafe_f00dL;
    private static final long WRONG = 0x0bad_0bad_0badL;
    private static final int PORTS = 8;
    private static final int U31 = Integer.MIN_VALUE; // 2^31 as a uint32
    private static final int U32_MAX = -1; // 2^32 - 1 as a uint32
    private static final byte[] K64 = new byte[65_536];

    private final DefaultEventLoop loop = new DefaultEventLoop();
    private ManagedNode sw;
    private ManagedNode ca;
    private Server server;
    /** One channel per node, its authority the node's GUID, as the manager's {@code NodeChannels} address them. */
    private final Map<ManagedNode, ManagedChannel> channels = new HashMap<>();

    /** A call of {@code method} with {@code request} at {@code node}, and the answer it must get. */
    private record Case(ManagedNode node, String method, Message request, Status.Code expected, String mentions) {
    }

    @BeforeEach
    void start() throws Exception {
        sw = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, 0x200000L, "S1", PORTS));
        double[] rates = new double[PORTS + 1];
        Arrays.fill(rates, 100);
        new LiveSwitch(loop, sw, 2, 4, rates, "localhost:0/200000");
        ca = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_CA, 0x100000L, "H1", 1));
        NodeRoutingRegistry registry = new NodeRoutingRegistry();
        registry.add(sw);
        registry.add(ca);
        server = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .fallbackHandlerRegistry(registry).directExecutor().build().start();
        for (ManagedNode n : List.of(sw, ca)) {
            channels.put(n, NettyChannelBuilder.forAddress(InetAddress.getLoopbackAddress().getHostAddress(), server.getPort())
                    .overrideAuthority(NodeRoutingRegistry.authority(n.identity().guid())).usePlaintext().build());
        }
        // a node with a key, tables, an up port and source routes, so that "nothing changed" means something
        for (ManagedNode n : List.of(sw, ca)) {
            stub(n).setSmInfo(SetSmInfoRequest.newBuilder().setSmGuid(0xABC).setPriority(3).setState(SmState.SM_STATE_MASTER)
                    .setNewMKey(KEY).build());
        }
        sw.linkUp(3, 100, 0x100000L, 1, "H1");
        ca.linkUp(1, 100, 0x200000L, 3, "S1");
        byte[] ports = new byte[64];
        Arrays.fill(ports, (byte) 3);
        var arBlock = ArLftBlock.newBuilder().setBlock(0);
        for (int i = 0; i < 64; i++) {
            arBlock.addGroups(i == 7 ? 1 : 0);
        }
        stub(sw).writeTables(WriteTablesRequest.newBuilder().setMKey(KEY).setFromVersion(0).setToVersion(1)
                .addLftBlocks(LftBlock.newBuilder().setBlock(0).setPorts(ByteString.copyFrom(ports))).setLftTop(60)
                .addArGroups(ArGroup.newBuilder().setGroup(1).addPorts(3).addPorts(4)).addArLftBlocks(arBlock).setArEnabled(true)
                .build());
        stub(ca).writeSourceRoutes(WriteSourceRoutesRequest.newBuilder().setMKey(KEY)
                .addRoutes(SourceRouteEntry.newBuilder().setDlid(5).setDirections(ByteString.copyFrom(new byte[] {0, 1}))).build());
        stub(sw).setAllPortInfo(SetAllPortInfoRequest.newBuilder().setMKey(KEY).setLid(9).setState(PortState.PORT_STATE_ARMED).build());
    }

    @AfterEach
    void stop() throws Exception {
        channels.values().forEach(ManagedChannel::shutdownNow);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await();
    }

    private ManagementGrpc.ManagementBlockingStub stub(ManagedNode n) {
        return ManagementGrpc.newBlockingStub(channels.get(n)).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    private static LftBlock block(int n, byte[] ports) {
        return LftBlock.newBuilder().setBlock(n).setPorts(ByteString.copyFrom(ports)).build();
    }

    private static WriteTablesRequest.Builder write(long from, long to) {
        return WriteTablesRequest.newBuilder().setMKey(KEY).setFromVersion(from).setToVersion(to);
    }

    private List<Case> cases() {
        byte[] ok = new byte[64];
        Arrays.fill(ok, (byte) 4);
        byte[] vl = new byte[16];
        byte[] badVl = new byte[16];
        badVl[2] = (byte) 200;
        List<Case> c = new ArrayList<>();
        Status.Code invalid = Status.Code.INVALID_ARGUMENT;
        Status.Code notFound = Status.Code.NOT_FOUND;
        Status.Code denied = Status.Code.PERMISSION_DENIED;
        c.add(new Case(sw, "GetPortInfo", GetPortInfoRequest.newBuilder().setPortNumber(U31).build(), notFound, "2147483648"));
        c.add(new Case(sw, "GetPortInfo", GetPortInfoRequest.newBuilder().setPortNumber(U32_MAX).build(), notFound, "4294967295"));
        c.add(new Case(sw, "SetPortInfo", SetPortInfoRequest.newBuilder().setMKey(KEY).setPortNumber(U31).build(), notFound, "2147483648"));
        c.add(new Case(sw, "SetPortInfo", SetPortInfoRequest.newBuilder().setMKey(KEY).setPortNumber(3).setLid(U31).build(), invalid, "2147483648"));
        c.add(new Case(sw, "SetPortInfo", SetPortInfoRequest.newBuilder().setMKey(KEY).setPortNumber(3).setLid(0xC000).build(), invalid, "49152"));
        c.add(new Case(sw, "SetPortInfo", SetPortInfoRequest.newBuilder().setMKey(KEY).setPortNumber(3).setStateValue(99).build(), invalid, "99"));
        c.add(new Case(sw, "SetPortInfo", SetPortInfoRequest.newBuilder().setMKey(KEY).setPortNumber(3).setState(PortState.PORT_STATE_DOWN).build(),
                invalid, "DOWN"));
        c.add(new Case(sw, "SetPortInfo", SetPortInfoRequest.newBuilder().setMKey(WRONG).setPortNumber(3).setState(PortState.PORT_STATE_ACTIVE).build(),
                denied, "M_Key"));
        c.add(new Case(ca, "SetPortInfo", SetPortInfoRequest.newBuilder().setMKey(KEY).setPortNumber(2).build(), notFound, "port 2"));
        c.add(new Case(sw, "SetAllPortInfo", SetAllPortInfoRequest.newBuilder().setMKey(KEY).setLid(U32_MAX).build(), invalid, "4294967295"));
        c.add(new Case(sw, "SetAllPortInfo", SetAllPortInfoRequest.newBuilder().setMKey(KEY).setStateValue(77).build(), invalid, "77"));
        c.add(new Case(sw, "SetAllPortInfo", SetAllPortInfoRequest.newBuilder().setMKey(KEY).setState(PortState.PORT_STATE_DOWN).build(), invalid, "DOWN"));
        c.add(new Case(sw, "SetAllPortInfo", SetAllPortInfoRequest.newBuilder().setState(PortState.PORT_STATE_ACTIVE).build(), denied, "M_Key"));
        c.add(new Case(ca, "GetSwitchInfo", GetSwitchInfoRequest.getDefaultInstance(), Status.Code.UNIMPLEMENTED, "H1"));
        c.add(new Case(sw, "GetLftBlock", GetLftBlockRequest.newBuilder().setBlock(U31).build(), invalid, "2147483648"));
        c.add(new Case(sw, "GetLftBlock", GetLftBlockRequest.newBuilder().setBlock(768).build(), invalid, "768"));
        c.add(new Case(sw, "GetLftBlock", GetLftBlockRequest.newBuilder().setBlock(U32_MAX).build(), invalid, "4294967295"));
        c.add(new Case(sw, "GetArTables", GetArTablesRequest.newBuilder().setBlock(U31).build(), invalid, "2147483648"));
        c.add(new Case(ca, "GetDragonflyRouting", GetDragonflyRoutingRequest.newBuilder().setFirstRow(U31).build(), Status.Code.UNIMPLEMENTED,
                "H1"));
        c.add(new Case(sw, "WriteTables", write(1, 2).setDragonfly(DragonflyRouting.newBuilder().setAlgorithmValue(99)).build(), invalid,
                "algorithm 99"));
        c.add(new Case(sw, "WriteTables", write(1, 2).setDragonfly(DragonflyRouting.newBuilder().setAlgorithmValue(1).setGroups(U31)).build(),
                invalid, "2147483648"));
        c.add(new Case(sw, "WriteTables", write(1, 2).setDragonfly(DragonflyRouting.newBuilder().setAlgorithmValue(1).setGroups(2)
                .setRouters(1).setPortKinds(ByteString.copyFrom(new byte[] {0, 9}))).build(), invalid, "dragonfly"));
        c.add(new Case(sw, "WriteTables", write(1, Long.MAX_VALUE).addLftBlocks(block(1, ok)).build(), Status.Code.OUT_OF_RANGE,
                "9223372036854775807"));
        c.add(new Case(sw, "WriteTables", write(1, -1L).addLftBlocks(block(1, ok)).build(), Status.Code.OUT_OF_RANGE, "18446744073709551615"));
        c.add(new Case(sw, "WriteTables", write(1, SwitchTables.MAX_VERSION + 1).build(), Status.Code.OUT_OF_RANGE, "9007199254740992"));
        c.add(new Case(sw, "WriteTables", write(Long.MIN_VALUE, 2).build(), Status.Code.FAILED_PRECONDITION, "9223372036854775808"));
        c.add(new Case(sw, "WriteTables", write(1, 1).addLftBlocks(block(1, ok)).build(), invalid, "greater than"));
        c.add(new Case(sw, "WriteTables", write(1, 1).setReplace(true).build(), invalid, "differ"));
        c.add(new Case(sw, "WriteTables", write(1, 0).setReplace(true).build(), invalid, "to_version 0"));
        c.add(new Case(sw, "WriteTables", write(1, 2).addLftBlocks(block(U31, ok)).build(), invalid, "2147483648"));
        c.add(new Case(sw, "WriteTables", write(1, 2).addLftBlocks(block(1, K64)).build(), invalid, "65536"));
        c.add(new Case(sw, "WriteTables", write(1, 2).addLftBlocks(block(1, ok)).addLftBlocks(block(1, ok)).build(), invalid, "twice"));
        c.add(new Case(sw, "WriteTables", write(1, 2).setLftTop(U31).build(), invalid, "2147483648"));
        c.add(new Case(sw, "WriteTables", write(1, 2).addSl2Vl(Sl2VlTable.newBuilder().setInputPort(U31).setVl(ByteString.copyFrom(vl))).build(),
                invalid, "2147483648"));
        c.add(new Case(sw, "WriteTables", write(1, 2).addSl2Vl(Sl2VlTable.newBuilder().setVl(ByteString.copyFrom(K64))).build(), invalid, "16 VL"));
        c.add(new Case(sw, "WriteTables", write(1, 2).addSl2Vl(Sl2VlTable.newBuilder().setVl(ByteString.copyFrom(badVl))).build(), invalid, "200"));
        c.add(new Case(sw, "WriteTables", write(1, 2).addArGroups(ArGroup.newBuilder().setGroup(U31).addPorts(3)).build(), invalid, "2147483648"));
        c.add(new Case(sw, "WriteTables", write(1, 2).addArGroups(ArGroup.newBuilder().setGroup(2).addPorts(U31)).build(), invalid, "2147483648"));
        var arBad = ArLftBlock.newBuilder().setBlock(0);
        for (int i = 0; i < 64; i++) {
            arBad.addGroups(i == 1 ? U31 : 0);
        }
        c.add(new Case(sw, "WriteTables", write(1, 2).addArLftBlocks(arBad).build(), invalid, "above 4095"));
        c.add(new Case(sw, "WriteTables", write(1, 2).setDirectionPorts(DirectionPorts.newBuilder().addPorts(U31)).build(), invalid, "2147483648"));
        c.add(new Case(sw, "WriteTables", write(1, 2).setDirectionPorts(DirectionPorts.newBuilder().addAllPorts(List.of(1, 2, 3, 4, 5, 6, 7, 8, 0)))
                .build(), invalid, "at most 8"));
        c.add(new Case(sw, "WriteTables", write(1, 2).setArStaticInputPorts(PortSet.newBuilder().addPorts(U32_MAX)).build(), invalid, "4294967295"));
        c.add(new Case(sw, "WriteTables", write(1, 2).setMKey(WRONG).addLftBlocks(block(0, ok)).build(), denied, "M_Key"));
        WriteTablesRequest.Builder huge = write(1, 2);
        for (int n = 0; n < 70_000; n++) {
            huge.addLftBlocks(block(n, ok)); // over grpc's 4 MiB: refused before it is read
        }
        c.add(new Case(sw, "WriteTables", huge.build(), Status.Code.RESOURCE_EXHAUSTED, "4194304"));
        c.add(new Case(ca, "WriteTables", write(1, 2).build(), Status.Code.UNIMPLEMENTED, "channel adapter"));
        c.add(new Case(sw, "GetPortCounters", GetPortCountersRequest.newBuilder().setPortNumber(U31).build(), notFound, "2147483648"));
        c.add(new Case(sw, "GetPortCounters", GetPortCountersRequest.getDefaultInstance(), notFound, "port 0"));
        c.add(new Case(sw, "GetFlowCounters", GetFlowCountersRequest.getDefaultInstance(), Status.Code.FAILED_PRECONDITION, "S1"));
        c.add(new Case(sw, "WriteSourceRoutes", WriteSourceRoutesRequest.newBuilder().setMKey(KEY).build(), Status.Code.FAILED_PRECONDITION, "switch"));
        c.add(new Case(ca, "WriteSourceRoutes", routes(U31, new byte[] {0}), invalid, "2147483648"));
        c.add(new Case(ca, "WriteSourceRoutes", routes(0, new byte[] {0}), invalid, "LID 0"));
        c.add(new Case(ca, "WriteSourceRoutes", routes(7, K64), invalid, "routes[0]"));
        c.add(new Case(ca, "WriteSourceRoutes", routes(7, new byte[] {(byte) 200}), invalid, "routes[0]"));
        c.add(new Case(ca, "WriteSourceRoutes", WriteSourceRoutesRequest.newBuilder().setMKey(KEY)
                .addRoutes(SourceRouteEntry.newBuilder().setDlid(7).setDirections(ByteString.copyFrom(new byte[] {1})))
                .addRoutes(SourceRouteEntry.newBuilder().setDlid(7).setDirections(ByteString.copyFrom(new byte[] {2}))).build(), invalid, "twice"));
        c.add(new Case(ca, "WriteSourceRoutes", WriteSourceRoutesRequest.newBuilder().setMKey(WRONG).build(), denied, "M_Key"));
        c.add(new Case(sw, "GetSourceRoutes", GetSourceRoutesRequest.getDefaultInstance(), Status.Code.FAILED_PRECONDITION, "switch"));
        c.add(new Case(sw, "ResetPortCounters", ResetPortCountersRequest.newBuilder().setMKey(KEY).setPortNumber(U31).build(), notFound, "2147483648"));
        c.add(new Case(sw, "ResetPortCounters", ResetPortCountersRequest.newBuilder().setMKey(WRONG).build(), denied, "M_Key"));
        c.add(new Case(sw, "SetSmInfo", SetSmInfoRequest.newBuilder().setMKey(KEY).setSmGuid(0xABC).setPriority(16).build(), invalid, "16"));
        c.add(new Case(sw, "SetSmInfo", SetSmInfoRequest.newBuilder().setMKey(KEY).setSmGuid(0xABC).setPriority(U31).build(), invalid, "2147483648"));
        c.add(new Case(sw, "SetSmInfo", SetSmInfoRequest.newBuilder().setMKey(KEY).setSmGuid(0xABC).setStateValue(99).build(), invalid, "99"));
        c.add(new Case(sw, "SetSmInfo", SetSmInfoRequest.newBuilder().setMKey(WRONG).setSmGuid(0xEE).setPriority(15).setNewMKey(1).build(), denied,
                "M_Key"));
        c.add(new Case(sw, "SetSmInfo", SetSmInfoRequest.newBuilder().setSmGuid(0xEE).setPriority(15).setState(SmState.SM_STATE_MASTER).build(),
                denied, "no M_Key given"));
        c.add(new Case(ca, "GetEmulationStatus", GetEmulationStatusRequest.newBuilder().setWindowMs(U32_MAX).build(), Status.Code.UNIMPLEMENTED, "H1"));
        for (double d : new double[] {Double.NaN, Double.POSITIVE_INFINITY, -1, 0, 1e9}) {
            c.add(new Case(sw, "SetTimeDilation", SetTimeDilationRequest.newBuilder().setMKey(KEY).setDilation(d).build(), invalid, "1..1000"));
        }
        c.add(new Case(sw, "SetTimeDilation", SetTimeDilationRequest.newBuilder().setMKey(WRONG).setDilation(2).build(), denied, "M_Key"));
        return c;
    }

    private static WriteSourceRoutesRequest routes(int dlid, byte[] directions) {
        return WriteSourceRoutesRequest.newBuilder().setMKey(KEY)
                .addRoutes(SourceRouteEntry.newBuilder().setDlid(dlid).setDirections(ByteString.copyFrom(directions))).build();
    }

    @SuppressWarnings("unchecked")
    private static MethodDescriptor<Message, Message> method(String name) {
        return (MethodDescriptor<Message, Message>) ManagementGrpc.getServiceDescriptor().getMethods().stream()
                .filter(m -> m.getBareMethodName().equals(name)).findFirst().orElseThrow(() -> new AssertionError("no method " + name));
    }

    /** What a refused call might have changed: the switch's tables and ports, both nodes' SMInfo, the adapter's routes. */
    private String state() {
        SwitchTables t = sw.tables().current();
        StringBuilder b = new StringBuilder().append(t.version()).append(' ').append(t.lftTop()).append(' ').append(t.arEnabled())
                .append(Arrays.toString(t.directionPorts())).append(Arrays.toString(t.arStaticInputs()));
        for (int n = 0; n < SwitchTables.CAPACITY / SwitchTables.BLOCK; n++) {
            b.append(Arrays.toString(t.block(n))).append(Arrays.toString(t.arBlock(n)));
        }
        for (int g = 1; g <= t.arGroupTop(); g++) {
            b.append(Arrays.toString(t.arPorts(g)));
        }
        for (int in = 0; in <= PORTS; in++) {
            for (int out = 0; out <= PORTS; out++) {
                for (int sl = 0; sl < SwitchTables.SERVICE_LEVELS; sl++) {
                    b.append(t.vl(in, out, sl));
                }
            }
        }
        for (ManagedNode n : List.of(sw, ca)) {
            b.append(n.smInfo());
            for (int p = 1; p <= n.identity().ports(); p++) {
                b.append(n.port(p));
            }
        }
        b.append(Arrays.toString(ca.sourceRouteTable())).append(sw.emulation() == null ? "" : "live");
        return b.toString();
    }

    @Test
    void everyRpcAnswersBadInputWithItsCodeAndAShortReasonAndChangesNothing() throws Exception {
        List<Case> cases = cases();
        Set<String> covered = new TreeSet<>();
        cases.forEach(c -> covered.add(c.method()));
        Set<String> needCases = new TreeSet<>();
        for (MethodDescriptor<?, ?> m : ManagementGrpc.getServiceDescriptor().getMethods()) {
            Message prototype = (Message) ((MethodDescriptor.PrototypeMarshaller<?>) m.getRequestMarshaller()).getMessagePrototype();
            boolean hasFields = !prototype.getDescriptorForType().getFields().isEmpty();
            boolean adapterOnly = m.getBareMethodName().equals("GetSourceRoutes") || m.getBareMethodName().equals("GetFlowCounters");
            if (hasFields || adapterOnly || m.getBareMethodName().equals("GetSwitchInfo")) {
                needCases.add(m.getBareMethodName());
            }
        }
        needCases.removeAll(covered);
        assertTrue(needCases.isEmpty(), "methods with fields but no bad-input case: " + needCases);

        String before = state();
        long violationsBefore = sw.mKeyViolations() + ca.mKeyViolations();
        List<String> wrong = new ArrayList<>();
        int deniedCalls = 0;
        for (Case c : cases) {
            Status s = call(c.node(), c.method(), c.request());
            String d = s.getDescription() == null ? "" : s.getDescription();
            if (s.getCode() != c.expected() || !d.contains(c.mentions()) || d.length() > Excerpt.MESSAGE) {
                wrong.add(c.node().identity().description() + " " + c.method() + " " + shortly(c.request()) + ": expected " + c.expected()
                        + " mentioning '" + c.mentions() + "', got " + s.getCode() + " (" + d.length() + " chars) " + Excerpt.message(d));
            }
            deniedCalls += c.expected() == Status.Code.PERMISSION_DENIED ? 1 : 0;
            assertEquals(before, state(), "state changed by " + c.method() + " " + shortly(c.request()));
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
        assertEquals(violationsBefore + deniedCalls, sw.mKeyViolations() + ca.mKeyViolations(), "every wrong key counted");

        // the window of an emulation status is unsigned: 2^32-1 ms is read as the longest window, not a negative one
        assertEquals(Status.Code.OK, call(sw, "GetEmulationStatus", GetEmulationStatusRequest.newBuilder().setWindowMs(U32_MAX).build()).getCode());
        // and a refused table write left the switch writable by its manager
        assertEquals(2, stub(sw).writeTables(write(1, 2).addLftBlocks(block(1, new byte[64])).build()).getVersion());
    }

    @Test
    void bytesThatAreNoMessageAreRefusedAtEveryMethod() {
        String before = state();
        List<String> wrong = new ArrayList<>();
        Set<Status.Code> seen = new LinkedHashSet<>();
        for (MethodDescriptor<?, ?> m : ManagementGrpc.getServiceDescriptor().getMethods()) {
            // field 1 as length-delimited with a length running past the end; then a varint of 11 bytes
            for (byte[] garbage : List.of(new byte[] {0x0a, (byte) 0xff, 0x01}, new byte[] {0x08, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0x01})) {
                Status s = raw(sw, m, garbage);
                seen.add(s.getCode());
                if (s.getCode() != Status.Code.INVALID_ARGUMENT || s.getDescription() == null || !s.getDescription().contains(m.getBareMethodName())) {
                    wrong.add(m.getBareMethodName() + ": " + s);
                }
            }
        }
        assertTrue(wrong.isEmpty(), String.join("\n", wrong));
        assertEquals(before, state());
        assertFalse(seen.contains(Status.Code.UNKNOWN));
    }

    private Status call(ManagedNode node, String name, Message request) {
        return GrpcCalls.status(channels.get(node), method(name), request);
    }

    private Status raw(ManagedNode node, MethodDescriptor<?, ?> m, byte[] bytes) {
        return GrpcCalls.raw(channels.get(node), m, bytes);
    }

    private static String shortly(Message m) {
        return Excerpt.quote(m.toString().replace('\n', ' '));
    }
}
