package org.fabriclab.ctl;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.fabriclab.cli.Ports;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.ctl.wire.PlainHttp2Channel;
import org.fabriclab.proto.v1.AdminGrpc;
import picocli.CommandLine.Option;

/**
 * The options every daemon verb shares ({@code --server}, {@code --timeout}), and a stub with a
 * deadline on every call. The stub runs on a {@link PlainHttp2Channel}, one plain HTTP/2 connection
 * per call, not on grpc-netty: a verb makes one or two calls, and Netty's start-up would be most
 * of its time (docs/benchmarks.md).
 */
final class Daemon {
    @Option(names = "--server", defaultValue = "localhost:50051", paramLabel = "HOST:PORT",
            description = "The fabric manager's admin endpoint. Default: ${DEFAULT-VALUE}")
    String server;

    @Option(names = "--timeout", defaultValue = "30s", paramLabel = "TIME", converter = TimeSpan.BareSeconds.class,
            description = "Deadline of the call (ms, s), above 0. Default: ${DEFAULT-VALUE}")
    TimeSpan timeout;

    /** Runs {@code call} against the daemon; turns "not reachable" into a message that says what to do. */
    <T> T call(Function<AdminGrpc.AdminBlockingStub, T> call) {
        PlainHttp2Channel ch;
        try {
            ch = PlainHttp2Channel.forTarget(server);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--server: " + e.getMessage(), e);
        }
        Ports.resolve("--server", ch.host()); // a name that does not resolve is the user's to fix (exit 2), not a daemon that is down
        timeout.positive("--timeout");
        try {
            return call.apply(AdminGrpc.newBlockingStub(ch).withDeadlineAfter(timeout.nanos(), TimeUnit.NANOSECONDS));
        } catch (StatusRuntimeException e) {
            if (e.getStatus().getCode() == Status.Code.UNAVAILABLE) {
                throw new DaemonUnreachableException("the fabric manager at " + server + " is not reachable ("
                        + e.getStatus().getDescription() + "); start it with 'bin/fabric-manager --emulate SPEC' or give --server HOST:PORT");
            }
            throw new IllegalArgumentException(e.getStatus().getCode() + ": " + e.getStatus().getDescription());
        }
    }

    /** The daemon did not answer at all. */
    static final class DaemonUnreachableException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        DaemonUnreachableException(String message) {
            super(message);
        }
    }
}
