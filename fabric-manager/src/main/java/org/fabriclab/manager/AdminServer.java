package org.fabriclab.manager;

import io.grpc.BindableService;
import io.grpc.Server;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptors;
import io.grpc.TlsServerCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.fabriclab.cli.Pem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The daemon's admin gRPC server, safe by default: it listens on loopback unless told otherwise
 * ({@code --admin-address}); with a certificate and key it speaks TLS only ({@code --admin-tls-cert},
 * {@code --admin-tls-key}), and with a client CA it takes only callers whose certificate that CA
 * signed ({@code --admin-tls-client-ca}); with a token file ({@code --admin-token-file}) calls that
 * change the fabric need the token ({@link AdminCalls} has the policy); server reflection only when
 * asked ({@code --admin-reflection}). Every file is read and checked by {@link #check} before
 * anything starts: PEM certificates, a PKCS#8 private key that belongs to the certificate, a token
 * of at least {@value #MIN_TOKEN} printable characters.
 */
public final class AdminServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AdminServer.class);
    /** The shortest admin token accepted: 16 characters (openssl rand -hex 16 makes 32). */
    static final int MIN_TOKEN = 16;

    /**
     * How the admin server listens: {@code address} and {@code port} (0: any free one); TLS when
     * {@code tlsCert} and {@code tlsKey} are given, requiring client certificates signed by
     * {@code tlsClientCa} when that is given; the admin token's file, or null; reflection on or off.
     */
    public record Config(InetAddress address, int port, Path tlsCert, Path tlsKey, Path tlsClientCa, Path tokenFile, boolean reflection) {
        /** Plain text on loopback, no token, no reflection: the defaults. */
        public static Config loopback(int port) {
            return new Config(InetAddress.getLoopbackAddress(), port, null, null, null, null, false);
        }

        public Config withTls(Path cert, Path key, Path clientCa) {
            return new Config(address, port, cert, key, clientCa, tokenFile, reflection);
        }

        public Config withTokenFile(Path file) {
            return new Config(address, port, tlsCert, tlsKey, tlsClientCa, file, reflection);
        }

        public Config withAddress(InetAddress a) {
            return new Config(a, port, tlsCert, tlsKey, tlsClientCa, tokenFile, reflection);
        }

        boolean tls() {
            return tlsCert != null;
        }
    }

    /** What {@link #check} found in a configuration's files: the transport's credentials (null: plain text) and the token. */
    record Security(ServerCredentials credentials, String token) {
    }

    private final Server server;
    private final Config config;

    private AdminServer(Server server, Config config) {
        this.server = server;
        this.config = config;
    }

    /**
     * Starts the server with {@code admin} behind {@link AdminCalls} and the {@code health} service
     * open to any caller (probes).
     *
     * @throws IllegalArgumentException naming the option and file that is wrong
     * @throws IOException              if the address cannot be bound
     */
    public static AdminServer start(Config c, BindableService admin, BindableService health) throws IOException {
        Security s = check(c);
        InetSocketAddress at = new InetSocketAddress(c.address(), c.port());
        NettyServerBuilder b = s.credentials() == null ? NettyServerBuilder.forAddress(at) : NettyServerBuilder.forAddress(at, s.credentials());
        b.addService(ServerInterceptors.intercept(ServerInterceptors.useInputStreamMessages(admin.bindService()), new AdminCalls(s.token())))
                .addService(health);
        if (c.reflection()) {
            b.addService(ProtoReflectionServiceV1.newInstance());
        }
        return new AdminServer(b.build().start(), c);
    }

    /**
     * Reads and checks every file {@code c} names, before anything starts.
     *
     * @throws IllegalArgumentException naming the option, the file and what is wrong
     */
    static Security check(Config c) {
        if ((c.tlsCert() == null) != (c.tlsKey() == null)) {
            throw new IllegalArgumentException("TLS needs both --admin-tls-cert and --admin-tls-key");
        }
        if (c.tlsClientCa() != null && c.tlsCert() == null) {
            throw new IllegalArgumentException("--admin-tls-client-ca asks for client certificates, which need TLS: "
                    + "give --admin-tls-cert and --admin-tls-key too");
        }
        String token = null;
        if (c.tokenFile() != null) {
            token = Pem.secret("--admin-token-file", c.tokenFile(), LOG::warn);
            if (token.length() < MIN_TOKEN || !token.chars().allMatch(ch -> ch > 0x20 && ch < 0x7f)) {
                throw new IllegalArgumentException("--admin-token-file " + c.tokenFile() + ": the token must be at least " + MIN_TOKEN
                        + " printable ASCII characters without spaces (e.g. made by: openssl rand -hex 32)");
            }
        }
        if (!c.tls()) {
            return new Security(null, token);
        }
        Pem.keyStore("--admin-tls-cert", c.tlsCert(), "--admin-tls-key", c.tlsKey()); // the key is the certificate's
        try {
            TlsServerCredentials.Builder b = TlsServerCredentials.newBuilder().keyManager(c.tlsCert().toFile(), c.tlsKey().toFile());
            if (c.tlsClientCa() != null) {
                Pem.certificates("--admin-tls-client-ca", c.tlsClientCa());
                b.trustManager(c.tlsClientCa().toFile()).clientAuth(TlsServerCredentials.ClientAuth.REQUIRE);
            }
            return new Security(b.build(), token);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read the admin TLS files (" + Pem.why(e) + ")");
        }
    }

    public int port() {
        return server.getPort();
    }

    public Config config() {
        return config;
    }

    /** Stops taking calls and waits up to {@code seconds} for those under way. */
    public void shutdown(long seconds) throws InterruptedException {
        server.shutdown().awaitTermination(seconds, TimeUnit.SECONDS);
    }

    @Override
    public void close() {
        server.shutdownNow();
    }
}
