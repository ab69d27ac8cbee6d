package org.fabriclab.manager.discovery;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.fabriclab.manager.channel.FanOut;
import org.fabriclab.manager.channel.NodeChannels;
import org.junit.jupiter.api.Test;

/**
 * A seed that is not a node's management endpoint ({@code fabric-manager --connect} given a
 * manager's admin port or a metrics port, the likely slips) is named as what it is, with the
 * endpoint to give instead; only a port where nothing answers says "does not answer".
 */
class SeedFailureTest {
    private static String refusal(String seed) throws Exception {
        ExecutorService io = Executors.newFixedThreadPool(2);
        try (NodeChannels channels = new NodeChannels()) {
            Discovery d = new Discovery(new FanOut(channels, io, 2));
            return assertThrows(DiscoveryException.class, () -> d.discover(seed)).getMessage();
        } finally {
            io.shutdownNow();
        }
    }

    private static void mentions(String message, String... parts) {
        for (String p : parts) {
            assertTrue(message.contains(p), p + " in " + message);
        }
    }

    @Test
    void aGrpcServerWithoutTheManagementServiceIsNamedAsSuch() throws Exception {
        Server admin = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(new HealthStatusManager().getHealthService()).build().start();
        try {
            mentions(refusal("127.0.0.1:" + admin.getPort()), "the seed 127.0.0.1:" + admin.getPort()
                    + " is a gRPC server but not a node's management endpoint (UNIMPLEMENTED", "a fabric manager's admin port?",
                    "the endpoint 'emulator up' prints (HOST:PORT/GUID)");
        } finally {
            admin.shutdownNow();
        }
    }

    @Test
    void anHttp1ServerIsNamedAsNoGrpcServer() throws Exception {
        HttpServer http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        http.createContext("/", x -> {
            x.sendResponseHeaders(404, -1);
            x.close();
        });
        http.start();
        try {
            int port = http.getAddress().getPort();
            mentions(refusal("127.0.0.1:" + port), "the seed 127.0.0.1:" + port + " does not speak HTTP/2, so it is no gRPC server",
                    "a metrics or web port?");
        } finally {
            http.stop(0);
        }
    }

    @Test
    void aPortWhereNothingListensDoesNotAnswer() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        mentions(refusal("127.0.0.1:" + port), "the seed 127.0.0.1:" + port + " does not answer: UNAVAILABLE",
                "check that the fabric is running and the address is right");
    }
}
