package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Message;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.AdminGrpc;
import org.fabriclab.proto.v1.DumpTablesRequest;
import org.fabriclab.proto.v1.GetCountersRequest;
import org.fabriclab.proto.v1.GetQTableRequest;
import org.fabriclab.proto.v1.GetStatusRequest;
import org.fabriclab.proto.v1.ManagerStatus;
import org.fabriclab.proto.v1.QTableRow;
import org.fabriclab.proto.v1.ReseedQTablesRequest;
import org.fabriclab.proto.v1.RestoreQTableSnapshotRequest;
import org.fabriclab.proto.v1.RouteJobRequest;
import org.fabriclab.proto.v1.SaveQTableSnapshotRequest;
import org.fabriclab.proto.v1.SetEngineRequest;
import org.fabriclab.proto.v1.TraceRouteRequest;
import org.fabriclab.routing.text.Excerpt;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.GrpcCalls;
import org.junit.jupiter.api.Test;

/**
 * Issue 18's finding 8, on the manager's side: every RPC of the admin service, served as the
 * daemon serves it ({@link AdminServer} on loopback TCP), given malformed, huge and unknown
 * fields, answers the documented code with a reason of bounded length, never UNKNOWN and never
 * the input echoed whole, and changes nothing: the manager's status (state, tables' version,
 * sweeps, engine chain, job) is the same before and after. Every method is covered, and every
 * method also gets bytes that are no protobuf message.
 */
class AdminInputTest {
    private static final String HUGE = "x".repeat(65_536);

    private record Case(String method, Message request, Status.Code expected, String mentions) {
    }

    private static List<Case> cases() {
        Status.Code invalid = Status.Code.INVALID_ARGUMENT;
        List<Case> c = new ArrayList<>();
        c.add(new Case("TraceRoute", TraceRouteRequest.newBuilder().setSource(HUGE).setDestination("L1_H0").build(), invalid, "(65536 characters)"));
        c.add(new Case("TraceRoute", TraceRouteRequest.newBuilder().setSource("L0_H0").setDestination(HUGE).build(), invalid, "(65536 characters)"));
        c.add(new Case("TraceRoute", TraceRouteRequest.newBuilder().setSource("L0").setDestination("L1_H0").build(), invalid, "\"L0\" is a switch, not a host"));
        c.add(new Case("TraceRoute", TraceRouteRequest.newBuilder().setSource("L0_H0").setDestination("L9_H9").build(), invalid,
                "no host named \"L9_H9\" in the fabric; fabricctl topology lists its nodes"));
        c.add(new Case("TraceRoute", TraceRouteRequest.getDefaultInstance(), invalid, "no host named \"\""));
        c.add(new Case("TraceRoute", TraceRouteRequest.newBuilder().setSource("L0_H0\n\0").setDestination("L1_H0").build(), invalid, "\\u000a"));
        c.add(new Case("DumpTables", DumpTablesRequest.newBuilder().setSwitchName(HUGE).build(), invalid, "(65536 characters)"));
        c.add(new Case("DumpTables", DumpTablesRequest.newBuilder().setSwitchName("L0_H0").build(), invalid, "\"L0_H0\" is a host, not a switch"));
        c.add(new Case("DumpTables", DumpTablesRequest.getDefaultInstance(), invalid, "no switch named"));
        c.add(new Case("GetCounters", GetCountersRequest.newBuilder().setNode(HUGE).build(), invalid, "(65536 characters)"));
        c.add(new Case("SetEngine", SetEngineRequest.newBuilder().setChain(HUGE).build(), invalid, "the chain was left as it was"));
        c.add(new Case("SetEngine", SetEngineRequest.newBuilder().setChain(",".repeat(65_536)).build(), invalid, "empty routing engine chain"));
        c.add(new Case("SetEngine", SetEngineRequest.newBuilder().setChain("minhopp").build(), invalid, "minhopp"));
        c.add(new Case("SetEngine", SetEngineRequest.getDefaultInstance(), invalid, "empty"));
        c.add(new Case("SetEngine", SetEngineRequest.newBuilder().setChain("updn,minhop,updn").build(), invalid,
                "routing engine chain 'updn,minhop,updn' names updn twice; name each engine once"));
        c.add(new Case("RouteJob", RouteJobRequest.newBuilder().setNodes(HUGE).build(), invalid, "nothing was changed"));
        c.add(new Case("RouteJob", RouteJobRequest.newBuilder().setNodes("L0_H[0-").build(), invalid, "nothing was changed"));
        c.add(new Case("RouteJob", RouteJobRequest.newBuilder().setNodes("L0").build(), invalid, "nothing was changed"));
        // Q-tables: this fabric is routed by minhop, and this manager keeps no state directory
        Status.Code precondition = Status.Code.FAILED_PRECONDITION;
        c.add(new Case("GetQTable", GetQTableRequest.newBuilder().setSwitch(HUGE).build(), precondition, "which keeps no Q-tables"));
        c.add(new Case("GetQTable", GetQTableRequest.newBuilder().setSwitch("L0").setRow(QTableRow.newBuilder().setGroup(-1)).build(),
                precondition, "which keeps no Q-tables"));
        c.add(new Case("SaveQTableSnapshot", SaveQTableSnapshotRequest.newBuilder().setName(HUGE).build(), invalid, "(65536 characters)"));
        c.add(new Case("SaveQTableSnapshot", SaveQTableSnapshotRequest.newBuilder().setName("../guid2lid").build(), invalid,
                "no path separators"));
        c.add(new Case("SaveQTableSnapshot", SaveQTableSnapshotRequest.newBuilder().setName("lab").build(), precondition,
                "no state directory"));
        c.add(new Case("RestoreQTableSnapshot", RestoreQTableSnapshotRequest.newBuilder().setName("a\0").build(), invalid, "\\u0000"));
        c.add(new Case("RestoreQTableSnapshot", RestoreQTableSnapshotRequest.getDefaultInstance(), invalid, "snapshot name \"\""));
        c.add(new Case("ReseedQTables", ReseedQTablesRequest.newBuilder().setPolicy(HUGE).build(), invalid, "nothing was changed"));
        c.add(new Case("ReseedQTables", ReseedQTablesRequest.newBuilder().setPolicy("hops").build(), precondition,
                "which keeps no Q-tables"));
        return c;
    }

    /** What a refused call might have changed. */
    private static String state(AdminGrpc.AdminBlockingStub admin) {
        ManagerStatus s = admin.getStatus(GetStatusRequest.getDefaultInstance());
        return s.getState() + " v" + s.getTableVersion() + " sweeps " + s.getHeavySweeps() + " engine " + s.getEngine() + " job '"
                + s.getJobNodes() + "' chain " + admin.getEngine(org.fabriclab.proto.v1.GetEngineRequest.getDefaultInstance()).getChain();
    }

    @Test
    void everyAdminRpcAnswersBadInputWithItsCodeAndAShortReasonAndChangesNothing() throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("rlft:leaves=2,spines=1,hosts=1"), EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = new FabricManager(fabric.endpoint("L0_H0"), "minhop", null, new SimpleMeterRegistry());
             PerfManager perf = new PerfManager(manager, new SimpleMeterRegistry(), 1000);
             AdminServer server = AdminServer.start(AdminServer.Config.loopback(0), new AdminService(manager, perf), new HealthStatusManager().getHealthService())) {
            assertEquals(FabricManager.State.UP, manager.sweep().get(60, TimeUnit.SECONDS).state());
            ManagedChannel ch = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
            try {
                AdminGrpc.AdminBlockingStub admin = AdminGrpc.newBlockingStub(ch).withDeadlineAfter(60, TimeUnit.SECONDS);
                List<Case> cases = cases();
                Set<String> uncovered = new TreeSet<>();
                for (MethodDescriptor<?, ?> m : AdminGrpc.getServiceDescriptor().getMethods()) {
                    Message prototype = (Message) ((MethodDescriptor.PrototypeMarshaller<?>) m.getRequestMarshaller()).getMessagePrototype();
                    if (!prototype.getDescriptorForType().getFields().isEmpty()
                            && cases.stream().noneMatch(c -> c.method().equals(m.getBareMethodName()))) {
                        uncovered.add(m.getBareMethodName());
                    }
                }
                assertTrue(uncovered.isEmpty(), "admin methods with fields but no bad-input case: " + uncovered);

                String before = state(admin);
                List<String> wrong = new ArrayList<>();
                for (Case c : cases) {
                    Status s = GrpcCalls.status(ch, method(c.method()), c.request());
                    String d = s.getDescription() == null ? "" : s.getDescription();
                    if (s.getCode() != c.expected() || !d.contains(c.mentions()) || d.length() > Excerpt.MESSAGE) {
                        wrong.add(c.method() + ": expected " + c.expected() + " mentioning '" + c.mentions() + "', got " + s.getCode() + " ("
                                + d.length() + " chars) " + Excerpt.message(d));
                    }
                    assertEquals(before, state(admin), "changed by " + c.method());
                }
                for (MethodDescriptor<?, ?> m : AdminGrpc.getServiceDescriptor().getMethods()) {
                    Status s = GrpcCalls.raw(ch, m, new byte[] {0x0a, (byte) 0xff, 0x01});
                    if (s.getCode() != Status.Code.INVALID_ARGUMENT || !s.getDescription().contains(m.getBareMethodName())) {
                        wrong.add(m.getBareMethodName() + " given garbage: " + s);
                    }
                    assertEquals(before, state(admin), "changed by garbage at " + m.getBareMethodName());
                }
                assertTrue(wrong.isEmpty(), String.join("\n", wrong));

                // an empty entry is passed over as OpenSM's list reader does, and the chain is kept without it
                admin.setEngine(SetEngineRequest.newBuilder().setChain("updn,, minhop,").build());
                assertEquals("updn,minhop", admin.getEngine(org.fabriclab.proto.v1.GetEngineRequest.getDefaultInstance()).getChain());
            } finally {
                ch.shutdownNow();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static MethodDescriptor<Message, Message> method(String name) {
        return (MethodDescriptor<Message, Message>) AdminGrpc.getServiceDescriptor().getMethods().stream()
                .filter(m -> m.getBareMethodName().equals(name)).findFirst().orElseThrow();
    }
}
