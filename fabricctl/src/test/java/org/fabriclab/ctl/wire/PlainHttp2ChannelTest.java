package org.fabriclab.ctl.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.TimeUnit;
import org.fabriclab.proto.v1.AdminGrpc;
import org.fabriclab.proto.v1.DumpTablesRequest;
import org.fabriclab.proto.v1.DumpTablesResponse;
import org.fabriclab.proto.v1.GetStatusRequest;
import org.fabriclab.proto.v1.GetTopologyRequest;
import org.fabriclab.proto.v1.ManagerStatus;
import org.fabriclab.proto.v1.RouteJobRequest;
import org.fabriclab.proto.v1.Topology;
import org.fabriclab.proto.v1.TopologyNode;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The CLI's channel against grpc-java's own Netty server, as the daemon runs it: answers larger
 * than every window and frame, requests larger than the server's first window, errors with
 * percent-encoded messages, deadlines, and a server that is not there.
 */
class PlainHttp2ChannelTest {
    private static final int NODES = 40_000;
    private Server server;
    private AdminGrpc.AdminBlockingStub stub;

    /** A stand-in admin service: a topology of NODES nodes, errors on request, a call that never answers. */
    private static final class Service extends AdminGrpc.AdminImplBase {
        @Override
        public void getTopology(GetTopologyRequest request, StreamObserver<Topology> response) {
            Topology.Builder t = Topology.newBuilder();
            for (int i = 0; i < NODES; i++) {
                t.addNodes(TopologyNode.newBuilder().setName("H" + i).setGuid(i).setPorts(1).setLid(i).setEndpoint("inproc:x/" + i));
            }
            response.onNext(t.build());
            response.onCompleted();
        }

        @Override
        public void routeJob(RouteJobRequest request, StreamObserver<ManagerStatus> response) {
            // echoes the request's size: it crossed the server's flow-control window intact
            response.onNext(ManagerStatus.newBuilder().setJobNodes(request.getNodes().length() + ":" + request.getNodes().hashCode()).build());
            response.onCompleted();
        }

        @Override
        public void getStatus(GetStatusRequest request, StreamObserver<ManagerStatus> response) {
            response.onError(Status.INVALID_ARGUMENT.withDescription("no host named \"Hé\" (100% sure)\nsecond line").asRuntimeException());
        }

        @Override
        public void dumpTables(DumpTablesRequest request, StreamObserver<DumpTablesResponse> response) {
            // never answers: the client's deadline ends the call
        }
    }

    @BeforeEach
    void start() throws Exception {
        server = NettyServerBuilder.forAddress(new InetSocketAddress("localhost", 0)).addService(new Service()).build().start();
        stub = AdminGrpc.newBlockingStub(PlainHttp2Channel.forTarget("localhost:" + server.getPort())).withDeadlineAfter(60, TimeUnit.SECONDS);
    }

    @AfterEach
    void stop() {
        server.shutdownNow();
    }

    @Test
    void readsAnAnswerOfManyFramesAndWindows() {
        Topology t = stub.getTopology(GetTopologyRequest.getDefaultInstance());
        assertTrue(t.getSerializedSize() > 1 << 20, "the answer spans many 16 KiB frames and the 64 KiB default window: " + t.getSerializedSize());
        assertEquals(NODES, t.getNodesCount());
        assertEquals("H39999", t.getNodes(NODES - 1).getName());
        assertEquals("inproc:x/12345", t.getNodes(12_345).getEndpoint());
    }

    @Test
    void sendsARequestLargerThanTheFirstWindow() {
        // 330,000 bytes: past the 64 KiB every HTTP/2 window starts with, the client must read the server's SETTINGS and WINDOW_UPDATEs
        String nodes = "H0_0_[0-3],".repeat(30_000);
        ManagerStatus s = stub.routeJob(RouteJobRequest.newBuilder().setNodes(nodes).build());
        assertEquals(nodes.length() + ":" + nodes.hashCode(), s.getJobNodes());
    }

    @Test
    void reportsTheServersStatusAndItsMessage() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> stub.getStatus(GetStatusRequest.getDefaultInstance()));
        assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
        assertEquals("no host named \"Hé\" (100% sure)\nsecond line", e.getStatus().getDescription());
        assertTrue(PlainHttp2Channel.ServerStatus.of(e.getStatus()), "the server's own status, marked as such");
    }

    @Test
    void endsACallAtItsDeadline() {
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> stub.withDeadlineAfter(200, TimeUnit.MILLISECONDS).dumpTables(DumpTablesRequest.getDefaultInstance()));
        assertEquals(Status.Code.DEADLINE_EXCEEDED, e.getStatus().getCode(), e.getStatus().toString());
    }

    @Test
    void aServersCancelAfterTheDeadlineIsTheDeadlines() {
        // the server's own deadline for the call cancels it; read after ours passed (this thread woke
        // late under load) it is DEADLINE_EXCEEDED, before it a cancel, other codes as they were
        assertEquals(Status.Code.DEADLINE_EXCEEDED, UnaryExchange.resetStatus(0x8, true).getCode());
        assertEquals(Status.Code.CANCELLED, UnaryExchange.resetStatus(0x8, false).getCode());
        assertEquals(Status.Code.UNAVAILABLE, UnaryExchange.resetStatus(0x7, true).getCode());
        assertEquals(Status.Code.INTERNAL, UnaryExchange.resetStatus(0x2, true).getCode());
    }

    @Test
    void aServerThatIsNotThereIsUnavailable() {
        int port = server.getPort();
        server.shutdownNow();
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> AdminGrpc.newBlockingStub(PlainHttp2Channel.forTarget("localhost:" + port))
                .withDeadlineAfter(60, TimeUnit.SECONDS).getStatus(GetStatusRequest.getDefaultInstance()));
        assertEquals(Status.Code.UNAVAILABLE, e.getStatus().getCode(), e.getStatus().toString());
        assertFalse(PlainHttp2Channel.ServerStatus.of(e.getStatus()), "no server answered: not the server's status");
    }

    @Test
    void aMalformedAnswerIsInternal() throws Exception {
        try (ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread peer = new Thread(() -> {
                try (Socket s = fake.accept()) {
                    // RST_STREAM on stream 1 with 2 of its 4 payload bytes
                    s.getOutputStream().write(new byte[] {0, 0, 2, 3, 0, 0, 0, 0, 1, 0, 0});
                    s.getInputStream().transferTo(OutputStream.nullOutputStream()); // until the client closes
                } catch (IOException e) {
                    // the client is gone: nothing left to do
                }
            }, "fake-http2-server");
            peer.start();
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> AdminGrpc.newBlockingStub(
                    PlainHttp2Channel.forTarget("127.0.0.1:" + fake.getLocalPort())).withDeadlineAfter(60, TimeUnit.SECONDS)
                    .getStatus(GetStatusRequest.getDefaultInstance()));
            assertEquals(Status.Code.INTERNAL, e.getStatus().getCode(), e.getStatus().toString());
            assertTrue(e.getStatus().getDescription().startsWith("a malformed answer from the server"), e.getStatus().toString());
            peer.join();
        }
    }

    @Test
    void refusesATargetWithoutAPort() {
        assertEquals("[::1]:50051", PlainHttp2Channel.forTarget("[::1]:50051").authority());
        assertEquals("localhost:50051", PlainHttp2Channel.forTarget("dns:///localhost:50051").authority());
        assertThrows(IllegalArgumentException.class, () -> PlainHttp2Channel.forTarget("localhost"));
        assertThrows(IllegalArgumentException.class, () -> PlainHttp2Channel.forTarget("localhost:http"));
        assertThrows(IllegalArgumentException.class, () -> PlainHttp2Channel.forTarget("localhost:70000"));
    }
}
