package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.grpc.ChannelCredentials;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.AdminGrpc;
import org.fabriclab.proto.v1.GetStatusRequest;
import org.fabriclab.proto.v1.SweepRequest;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Addresses;
import org.fabriclab.testkit.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin server as the daemon starts it ({@link AdminServer}), over real sockets: loopback by
 * default; TLS with certificates the test makes (a plain client, a client that does not trust the
 * CA, and one without the asked-for client certificate are turned away); the admin token's policy
 * (calls that change the fabric need it, reads from loopback do not, any call from another
 * machine does, a wrong token never passes; without a token, changes only from loopback);
 * reflection only when asked; health open to probes; every bad file refused before anything
 * starts with one line naming it.
 */
class AdminSecurityTest {
    private static final String TOKEN = "0123456789abcdef0123456789abcdef";
    @TempDir
    static Path dir;
    private static TestCertificates.Pems pems;
    private static EmulatedFabric fabric;
    private static FabricManager manager;

    @BeforeAll
    static void start() throws Exception {
        pems = TestCertificates.make(dir);
        fabric = EmulatedFabric.start(Topologies.generate("rlft:leaves=2,spines=1,hosts=1"), EmulatedFabric.Options.DEFAULTS);
        manager = new FabricManager(fabric.endpoint("L0_H0"), "minhop", null, new SimpleMeterRegistry());
        assertEquals(FabricManager.State.UP, manager.sweep().get(60, TimeUnit.SECONDS).state());
    }

    @AfterAll
    static void stop() {
        manager.close();
        fabric.close();
    }

    private static AdminServer serve(AdminServer.Config c) throws Exception {
        return AdminServer.start(c, new AdminService(manager), new HealthStatusManager().getHealthService());
    }

    private static Path token(String text) throws Exception {
        Path f = Files.createTempFile(dir, "token", "");
        Files.writeString(f, text + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return f;
    }

    private static ManagedChannel channel(String host, int port, ChannelCredentials credentials) {
        return NettyChannelBuilder.forTarget(host + ":" + port, credentials).build();
    }

    private static AdminGrpc.AdminBlockingStub admin(ManagedChannel ch, String token) {
        AdminGrpc.AdminBlockingStub stub = AdminGrpc.newBlockingStub(ch).withDeadlineAfter(60, TimeUnit.SECONDS);
        if (token == null) {
            return stub;
        }
        Metadata m = new Metadata();
        m.put(AdminCalls.AUTHORIZATION, "Bearer " + token);
        return stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(m));
    }

    /** The status code of {@code call}, OK if it returned. */
    private static Status.Code code(Runnable call) {
        try {
            call.run();
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        }
    }

    @Test
    void theAdminServerListensOnLoopbackByDefaultAndWithoutReflection() throws Exception {
        try (AdminServer s = serve(AdminServer.Config.loopback(0))) {
            InetAddress other = Addresses.outside().orElse(null);
            if (other != null) {
                assertFalse(Addresses.accepts(other, s.port()), "not on " + other);
            }
            ManagedChannel ch = channel("127.0.0.1", s.port(), InsecureChannelCredentials.create());
            try {
                assertEquals("UP", admin(ch, null).getStatus(GetStatusRequest.getDefaultInstance()).getState());
                assertEquals(Status.Code.UNIMPLEMENTED, reflection(ch), "no reflection unless asked for");
                assertEquals(Status.Code.OK, code(() -> HealthGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS)
                        .check(HealthCheckRequest.getDefaultInstance())));
            } finally {
                ch.shutdownNow();
            }
        }
        AdminServer.Config withReflection = new AdminServer.Config(InetAddress.getLoopbackAddress(), 0, null, null, null, null, true);
        try (AdminServer s = serve(withReflection)) {
            ManagedChannel ch = channel("127.0.0.1", s.port(), InsecureChannelCredentials.create());
            try {
                assertEquals(Status.Code.OK, reflection(ch));
            } finally {
                ch.shutdownNow();
            }
        }
    }

    /**
     * Asks server reflection for the file that defines {@code fabric.v1.Admin}: OK if it answers
     * with it (the admin service keeps its schema behind AdminCalls), or the code it fails with.
     */
    private static Status.Code reflection(ManagedChannel ch) throws Exception {
        CompletableFuture<Status.Code> done = new CompletableFuture<>();
        StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS)
                .serverReflectionInfo(new StreamObserver<>() {
                    @Override
                    public void onNext(ServerReflectionResponse r) {
                        done.complete(r.hasFileDescriptorResponse() ? Status.Code.OK : Status.Code.INTERNAL);
                    }

                    @Override
                    public void onError(Throwable t) {
                        done.complete(Status.fromThrowable(t).getCode());
                    }

                    @Override
                    public void onCompleted() {
                        done.complete(Status.Code.OK);
                    }
                });
        requests.onNext(ServerReflectionRequest.newBuilder().setFileContainingSymbol("fabric.v1.Admin").build());
        requests.onCompleted();
        return done.get(60, TimeUnit.SECONDS);
    }

    @Test
    void tlsTakesOnlyClientsThatTrustItAndShowTheAskedForCertificate() throws Exception {
        AdminServer.Config tls = AdminServer.Config.loopback(0).withTls(pems.serverCert(), pems.serverKey(), null);
        try (AdminServer s = serve(tls)) {
            assertEquals(Status.Code.OK, status("localhost", s.port(), TlsChannelCredentials.newBuilder().trustManager(pems.ca().toFile()).build()));
            assertEquals(Status.Code.UNAVAILABLE, status("localhost", s.port(), InsecureChannelCredentials.create()), "plain text to a TLS port");
            assertEquals(Status.Code.UNAVAILABLE, status("localhost", s.port(),
                    TlsChannelCredentials.newBuilder().trustManager(pems.otherCa().toFile()).build()), "a CA that did not sign the server's");
        }
        AdminServer.Config mutual = AdminServer.Config.loopback(0).withTls(pems.serverCert(), pems.serverKey(), pems.ca());
        try (AdminServer s = serve(mutual)) {
            assertEquals(Status.Code.UNAVAILABLE, status("localhost", s.port(),
                    TlsChannelCredentials.newBuilder().trustManager(pems.ca().toFile()).build()), "no client certificate");
            assertEquals(Status.Code.OK, status("localhost", s.port(), TlsChannelCredentials.newBuilder().trustManager(pems.ca().toFile())
                    .keyManager(pems.clientCert().toFile(), pems.clientKey().toFile()).build()));
        }
    }

    private static Status.Code status(String host, int port, ChannelCredentials c) {
        ManagedChannel ch = channel(host, port, c);
        try {
            return code(() -> admin(ch, null).withDeadlineAfter(30, TimeUnit.SECONDS).getStatus(GetStatusRequest.getDefaultInstance()));
        } finally {
            ch.shutdownNow();
        }
    }

    @Test
    void theTokenGuardsChangesAndCallsFromElsewhere() throws Exception {
        try (AdminServer s = serve(AdminServer.Config.loopback(0).withTokenFile(token(TOKEN)))) {
            ManagedChannel ch = channel("127.0.0.1", s.port(), InsecureChannelCredentials.create());
            try {
                assertEquals(Status.Code.OK, code(() -> admin(ch, null).getStatus(GetStatusRequest.getDefaultInstance())), "a local read");
                StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> admin(ch, null).sweep(SweepRequest.getDefaultInstance()));
                assertEquals(Status.Code.UNAUTHENTICATED, e.getStatus().getCode());
                assertTrue(e.getStatus().getDescription().contains("--token-file"), e.getStatus().getDescription());
                long sweeps = manager.snapshot().heavySweeps();
                assertEquals(Status.Code.UNAUTHENTICATED, code(() -> admin(ch, "wrong-token-of-some-length").sweep(SweepRequest.getDefaultInstance())));
                assertEquals(Status.Code.UNAUTHENTICATED, code(() -> admin(ch, "wrong-token-of-some-length").getStatus(GetStatusRequest.getDefaultInstance())),
                        "a wrong token never passes");
                assertEquals(sweeps, manager.snapshot().heavySweeps(), "a refused sweep did not run");
                assertEquals("UP", admin(ch, TOKEN).sweep(SweepRequest.getDefaultInstance()).getState());
                assertEquals(sweeps + 1, manager.snapshot().heavySweeps());
            } finally {
                ch.shutdownNow();
            }
        }
    }

    @Test
    void fromAnotherMachineReadsNeedTheTokenAndChangesNeedOne() throws Exception {
        InetAddress other = Addresses.outside().orElse(null);
        assumeTrue(other != null, "this machine has no address but loopback");
        AdminServer.Config everywhere = AdminServer.Config.loopback(0).withAddress(InetAddress.getByName("0.0.0.0"));
        try (AdminServer s = serve(everywhere.withTokenFile(token(TOKEN)))) {
            ManagedChannel ch = channel(other.getHostAddress(), s.port(), InsecureChannelCredentials.create());
            try {
                StatusRuntimeException read = assertThrows(StatusRuntimeException.class, () -> admin(ch, null).getStatus(GetStatusRequest.getDefaultInstance()));
                assertEquals(Status.Code.UNAUTHENTICATED, read.getStatus().getCode());
                assertEquals("GetStatus was called from another machine and needs the admin token: call with fabricctl --token-file FILE "
                        + "(the daemon's --admin-token-file)", read.getStatus().getDescription());
                assertEquals(Status.Code.OK, code(() -> admin(ch, TOKEN).getStatus(GetStatusRequest.getDefaultInstance())));
                assertEquals(Status.Code.OK, code(() -> HealthGrpc.newBlockingStub(ch).withDeadlineAfter(30, TimeUnit.SECONDS)
                        .check(HealthCheckRequest.getDefaultInstance())), "probes need no token");
            } finally {
                ch.shutdownNow();
            }
        }
        try (AdminServer s = serve(everywhere)) {
            ManagedChannel remote = channel(other.getHostAddress(), s.port(), InsecureChannelCredentials.create());
            ManagedChannel local = channel("127.0.0.1", s.port(), InsecureChannelCredentials.create());
            try {
                assertEquals(Status.Code.OK, code(() -> admin(remote, null).getStatus(GetStatusRequest.getDefaultInstance())));
                StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> admin(remote, null).sweep(SweepRequest.getDefaultInstance()));
                assertEquals(Status.Code.PERMISSION_DENIED, e.getStatus().getCode());
                assertTrue(e.getStatus().getDescription().contains("--admin-token-file"), e.getStatus().getDescription());
                assertEquals(Status.Code.OK, code(() -> admin(local, null).sweep(SweepRequest.getDefaultInstance())), "changes from this machine");
            } finally {
                remote.shutdownNow();
                local.shutdownNow();
            }
        }
    }

    @Test
    void badFilesAreRefusedBeforeAnythingStarts() throws Exception {
        AdminServer.Config c = AdminServer.Config.loopback(0);
        Path pkcs1 = dir.resolve("pkcs1.pem");
        Files.writeString(pkcs1, "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----\n");
        refused(c.withTls(pems.serverCert(), pkcs1, null), "PKCS#1", "openssl pkcs8 -topk8");
        refused(c.withTls(pems.serverCert(), pems.clientKey(), null), "is not the key of the certificate");
        refused(c.withTls(pems.serverKey(), pems.serverKey(), null), "--admin-tls-cert", "holds no");
        refused(c.withTls(pems.serverCert(), null, null), "both --admin-tls-cert and --admin-tls-key");
        refused(c.withTls(null, null, pems.ca()), "--admin-tls-client-ca", "need TLS");
        refused(c.withTls(pems.serverCert(), pems.serverKey(), pems.serverKey()), "--admin-tls-client-ca");
        refused(c.withTls(pems.serverCert(), dir.resolve("missing.pem"), null), "--admin-tls-key", "cannot read");
        refused(c.withTokenFile(token("short")), "at least 16");
        refused(c.withTokenFile(token("")), "is empty");
    }

    private static void refused(AdminServer.Config c, String... mentions) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AdminServer.check(c));
        for (String m : mentions) {
            assertTrue(e.getMessage().contains(m), m + " in " + e.getMessage());
        }
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    }
}
