package org.fabriclab.ctl;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.fabriclab.cli.Pem;
import org.fabriclab.cli.Ports;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.ctl.wire.PlainHttp2Channel;
import org.fabriclab.proto.v1.AdminGrpc;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The options every daemon verb shares ({@code --server}, {@code --timeout}, and how to pass the
 * daemon's guard: {@code --token-file}, {@code --tls-ca}, {@code --tls-cert}, {@code --tls-key}),
 * and a stub with a deadline on every call. The stub runs on a {@link PlainHttp2Channel}, one
 * HTTP/2 connection per call, not on grpc-netty: a verb makes one or two calls, and Netty's
 * start-up would be most of its time (docs/benchmarks.md). TLS classes load only when TLS is asked for.
 */
final class Daemon {
    @Option(names = "--server", defaultValue = "localhost:50051", paramLabel = "HOST:PORT",
            description = "The fabric manager's admin endpoint. Default: ${DEFAULT-VALUE}")
    String server;

    @Option(names = "--timeout", defaultValue = "30s", paramLabel = "TIME", converter = TimeSpan.BareSeconds.class,
            description = "Deadline of the call (ms, s), above 0. Default: ${DEFAULT-VALUE}")
    TimeSpan timeout;

    @Option(names = "--token-file", paramLabel = "FILE",
            description = "File holding the daemon's admin token (its first line), sent as a bearer token: needed for sweep, "
                    + "engine set, job and qtable snapshot save/restore and reseed when the daemon has one (--admin-token-file), and "
                    + "for any call from another machine")
    Path tokenFile;

    @Option(names = "--tls-ca", paramLabel = "FILE",
            description = "Speak TLS to the daemon, trusting the CA certificates in FILE (PEM); the daemon's certificate must name "
                    + "the --server host")
    Path tlsCa;

    @Option(names = "--tls-cert", paramLabel = "FILE",
            description = "Client certificate (PEM) for a daemon that asks for one (--admin-tls-client-ca); with --tls-key and --tls-ca")
    Path tlsCert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "The client certificate's PKCS#8 private key (PEM, BEGIN PRIVATE KEY)")
    Path tlsKey;

    @Spec(Spec.Target.MIXEE)
    CommandSpec spec;

    /** Runs {@code call} against the daemon; turns "not reachable" into a message that says what to do. */
    <T> T call(Function<AdminGrpc.AdminBlockingStub, T> call) {
        PlainHttp2Channel ch;
        try {
            ch = PlainHttp2Channel.forTarget(server);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--server: " + e.getMessage(), e);
        }
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new IllegalArgumentException("a client certificate needs both --tls-cert and --tls-key");
        }
        if (tlsCert != null && tlsCa == null) {
            throw new IllegalArgumentException("--tls-cert is for TLS: give --tls-ca (the CA that signed the daemon's certificate) too");
        }
        if (tlsCa != null) {
            ch = ch.withTls(tls());
        }
        if (tokenFile != null) {
            ch = ch.withHeader("authorization", "Bearer " + Pem.secret("--token-file", tokenFile,
                    warning -> spec.commandLine().getErr().println(spec.qualifiedName() + ": warning: " + warning)));
        }
        Ports.resolve("--server", ch.host()); // a name that does not resolve is the user's to fix (exit 2), not a daemon that is down
        timeout.positive("--timeout");
        try {
            return call.apply(AdminGrpc.newBlockingStub(ch).withDeadlineAfter(timeout.nanos(), TimeUnit.NANOSECONDS));
        } catch (StatusRuntimeException e) {
            String d = e.getStatus().getDescription();
            if (e.getStatus().getCode() == Status.Code.UNAVAILABLE && d != null && d.startsWith("TLS ")) {
                throw new DaemonUnreachableException(d + "; check --tls-ca (the CA that signed the daemon's certificate, which must "
                        + "name the --server host), and --tls-cert/--tls-key if the daemon asks for a client certificate");
            }
            if (e.getStatus().getCode() == Status.Code.UNAVAILABLE && PlainHttp2Channel.ServerStatus.of(e.getStatus())) {
                // the daemon answered: what it needed behind it (a switch) did not
                throw new DaemonUnreachableException("UNAVAILABLE: " + d);
            }
            if (e.getStatus().getCode() == Status.Code.UNAVAILABLE) {
                throw new DaemonUnreachableException("the fabric manager at " + server + " is not reachable ("
                        + d + "); start it with 'bin/fabric-manager --emulate SPEC' or give --server HOST:PORT"
                        + (tlsCa == null ? " (a daemon serving TLS needs --tls-ca)" : ""));
            }
            if (e.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED && !PlainHttp2Channel.ServerStatus.of(e.getStatus())) {
                // our deadline, not the daemon's answer: a daemon that does not answer in time is exit 3, as one that is down
                throw new DaemonUnreachableException("the fabric manager at " + server + " did not answer within --timeout " + timeout.text()
                        + "; a busy daemon (a heavy sweep of a large fabric) may need a longer --timeout, and a port that takes the "
                        + "connection but never answers is not the daemon's admin port");
            }
            throw new IllegalArgumentException(e.getStatus().getCode() + ": " + d);
        }
    }

    /** TLS trusting {@code --tls-ca}, with {@code --tls-cert}/{@code --tls-key} as the client's certificate if given. */
    private SSLSocketFactory tls() {
        try {
            TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            trust.init(Pem.trustStore("--tls-ca", tlsCa));
            KeyManagerFactory keys = null;
            if (tlsCert != null) {
                keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                keys.init(Pem.keyStore("--tls-cert", tlsCert, "--tls-key", tlsKey), new char[0]);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("--tls-ca " + tlsCa + ": cannot set up TLS (" + e.getMessage() + ")");
        }
    }

    /** The daemon did not answer at all, or answered that what it needed (a switch) did not (exit 3). */
    static final class DaemonUnreachableException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DaemonUnreachableException(String message) {
            super(message);
        }
    }
}
