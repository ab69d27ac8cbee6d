package org.fabriclab.ctl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.protobuf.services.HealthStatusManager;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.AdminServer;
import org.fabriclab.manager.AdminService;
import org.fabriclab.manager.FabricManager;
import org.fabriclab.manager.PerfManager;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.TestCertificates;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * fabricctl against a daemon that guards its admin API as {@code fabric-manager} does with TLS,
 * client certificates and a token ({@link AdminServer}): its own HTTP/2 transport speaks TLS on
 * the JDK's {@code SSLSocket} (ALPN h2, the host name checked), shows a client certificate, and
 * sends the token; each thing missing or wrong is refused with a line that says what to give.
 */
class SecureDaemonTest {
    private static final String TOKEN = "5ecret-token-0123456789abcdef";
    @TempDir
    static Path dir;
    private static TestCertificates.Pems pems;
    private static Path token;
    private static EmulatedFabric fabric;
    private static FabricManager manager;
    private static PerfManager perf;

    @BeforeAll
    static void start() throws Exception {
        pems = TestCertificates.make(dir);
        token = dir.resolve("token");
        Files.writeString(token, TOKEN + "\n");
        Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
        fabric = EmulatedFabric.start(Topologies.generate("paper:ib-ar-c1"), EmulatedFabric.Options.DEFAULTS);
        manager = new FabricManager(fabric.endpoint("A"), "minhop", null, new SimpleMeterRegistry());
        perf = new PerfManager(manager, new SimpleMeterRegistry(), 1000);
        assertEquals("UP", manager.sweep().get(60, TimeUnit.SECONDS).state().name());
    }

    @AfterAll
    static void stop() {
        perf.close();
        manager.close();
        fabric.close();
    }

    private static AdminServer serve(Path clientCa) throws Exception {
        return AdminServer.start(AdminServer.Config.loopback(0).withTls(pems.serverCert(), pems.serverKey(), clientCa).withTokenFile(token),
                new AdminService(manager, perf), new HealthStatusManager().getHealthService());
    }

    private static FabricCtlTest.Run run(AdminServer s, String... args) {
        String[] all = new String[args.length + 2];
        System.arraycopy(args, 0, all, 0, args.length);
        all[args.length] = "--server";
        all[args.length + 1] = "localhost:" + s.port();
        return FabricCtlTest.run(all);
    }

    private static void failed(FabricCtlTest.Run r, int code, String... mentions) {
        assertEquals(code, r.code(), r.out() + r.err());
        assertEquals(1, r.err().strip().lines().count(), "one line: " + r.err());
        for (String m : mentions) {
            assertTrue(r.err().contains(m), m + " in " + r.err());
        }
    }

    @Test
    void verbsSpeakTlsAndCarryTheToken() throws Exception {
        try (AdminServer s = serve(null)) {
            FabricCtlTest.Run status = run(s, "status", "--json", "--tls-ca", pems.ca().toString());
            assertEquals(0, status.code(), status.err());
            assertEquals("UP", status.json().path("state").asText());

            failed(run(s, "status"), 3, "not reachable", "--tls-ca");
            failed(run(s, "status", "--tls-ca", pems.otherCa().toString()), 3, "TLS with localhost:" + s.port() + " failed", "check --tls-ca");

            long sweeps = manager.snapshot().heavySweeps();
            failed(run(s, "sweep", "--tls-ca", pems.ca().toString()), 2, "UNAUTHENTICATED", "--token-file");
            assertEquals(sweeps, manager.snapshot().heavySweeps(), "no sweep without the token");
            FabricCtlTest.Run sweep = run(s, "sweep", "--json", "--tls-ca", pems.ca().toString(), "--token-file", token.toString());
            assertEquals(0, sweep.code(), sweep.err());
            assertEquals(sweeps + 1, manager.snapshot().heavySweeps());
            assertEquals("", sweep.err(), "a token file only its owner reads: no warning");

            Path wrong = dir.resolve("wrong-token");
            Files.writeString(wrong, "not-the-token-0123456789\n");
            FabricCtlTest.Run refused = run(s, "status", "--tls-ca", pems.ca().toString(), "--token-file", wrong.toString());
            assertEquals(2, refused.code(), refused.err());
            assertTrue(refused.err().contains("UNAUTHENTICATED") && refused.err().contains("is not this manager's"), refused.err());
            assertTrue(refused.err().contains("readable by others"), "a token file others may read is warned about: " + refused.err());
        }
    }

    @Test
    void aDaemonThatAsksForAClientCertificateGetsOne() throws Exception {
        try (AdminServer s = serve(pems.ca())) {
            failed(run(s, "status", "--tls-ca", pems.ca().toString()), 3, "TLS with localhost:" + s.port() + " failed", "--tls-cert");
            FabricCtlTest.Run ok = run(s, "status", "--tls-ca", pems.ca().toString(), "--tls-cert", pems.clientCert().toString(),
                    "--tls-key", pems.clientKey().toString());
            assertEquals(0, ok.code(), ok.err());
            assertTrue(ok.out().lines().anyMatch(l -> l.matches("state +UP")), ok.out());
        }
    }

    @Test
    void badTlsOptionsAreRefusedWithTheFix() throws Exception {
        try (AdminServer s = serve(null)) {
            failed(run(s, "status", "--tls-cert", pems.clientCert().toString(), "--tls-key", pems.clientKey().toString()), 2, "give --tls-ca");
            failed(run(s, "status", "--tls-ca", pems.ca().toString(), "--tls-cert", pems.clientCert().toString()), 2,
                    "both --tls-cert and --tls-key");
            failed(run(s, "status", "--tls-ca", pems.ca().toString(), "--tls-cert", pems.clientCert().toString(), "--tls-key",
                    pems.serverKey().toString()), 2, "is not the key of the certificate");
            failed(run(s, "status", "--tls-ca", pems.clientKey().toString()), 2, "--tls-ca", "holds no");
            failed(run(s, "status", "--tls-ca", pems.ca().toString(), "--token-file", dir.resolve("missing").toString()), 2,
                    "--token-file", "no such file");
        }
    }
}
