package org.fabriclab.ctl.wire;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLSocketFactory;
import org.fabriclab.routing.text.Excerpt;

/**
 * A gRPC {@link Channel} for a command that makes a call or two and exits: each unary call opens an
 * HTTP/2 connection to {@code HOST:PORT} on a plain socket, in plain text or wrapped in TLS
 * ({@link #withTls}), makes the call ({@link UnaryExchange}) and closes it. Generated blocking
 * stubs work on it unchanged: the call runs when the stub half-closes it, and its result reaches
 * the stub's listener through the call's executor. No threads, no event loop, nothing to shut
 * down. Headers every call carries (a bearer token) are given once ({@link #withHeader}).
 */
public final class PlainHttp2Channel extends Channel {
    private final InetSocketAddress address;
    private final String authority;
    private final SSLSocketFactory tls;
    private final List<String[]> headers;

    private PlainHttp2Channel(InetSocketAddress address, String authority, SSLSocketFactory tls, List<String[]> headers) {
        this.address = address;
        this.authority = authority;
        this.tls = tls;
        this.headers = List.copyOf(headers);
    }

    /**
     * A channel to {@code target}, {@code HOST:PORT} ({@code [V6ADDR]:PORT} for IPv6; a
     * {@code dns:///} prefix is accepted, as grpc's target syntax allows). The name is resolved on each call.
     *
     * @throws IllegalArgumentException if the target has no port, or one outside 1..65535
     */
    public static PlainHttp2Channel forTarget(String target) {
        String authority = target.startsWith("dns:///") ? target.substring("dns:///".length()) : target;
        int colon = authority.lastIndexOf(':');
        String digits = colon > 0 ? authority.substring(colon + 1) : "";
        if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("'" + Excerpt.bare(target) + "' is not HOST:PORT");
        }
        // at most 6 digits parsed (000080 is port 80), so a long number is refused as a port, not a parser's exception
        int port = digits.length() > 6 ? -1 : Integer.parseInt(digits);
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("'" + Excerpt.bare(target) + "': port " + Excerpt.bare(digits) + " is not a port; give one of "
                    + "1..65535 (the daemon's --admin-port, 50051 by default)");
        }
        String host = authority.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new PlainHttp2Channel(InetSocketAddress.createUnresolved(host, port), authority, null, List.of());
    }

    /** The same channel over TLS made by {@code factory} (its trust and key material), ALPN h2, the host name checked. */
    public PlainHttp2Channel withTls(SSLSocketFactory factory) {
        return new PlainHttp2Channel(address, authority, factory, headers);
    }

    /** The same channel, every call also carrying {@code name: value} (sent never indexed by HPACK). */
    public PlainHttp2Channel withHeader(String name, String value) {
        List<String[]> more = new ArrayList<>(headers);
        more.add(new String[] {name, value});
        return new PlainHttp2Channel(address, authority, tls, more);
    }

    @Override
    public String authority() {
        return authority;
    }

    /** The host the target names (brackets of an IPv6 literal removed), not yet resolved. */
    public String host() {
        return address.getHostString();
    }

    @Override
    public <Q, R> ClientCall<Q, R> newCall(MethodDescriptor<Q, R> method, CallOptions options) {
        if (method.getType() != MethodDescriptor.MethodType.UNARY) {
            throw new UnsupportedOperationException(method.getFullMethodName() + " is " + method.getType() + "; this channel makes unary calls only");
        }
        return new UnaryCall<>(method, options);
    }

    /** One unary call: collects the request, runs the exchange on half-close. */
    private final class UnaryCall<Q, R> extends ClientCall<Q, R> {
        private final MethodDescriptor<Q, R> method;
        private final CallOptions options;
        private Listener<R> listener;
        private Q request;

        UnaryCall(MethodDescriptor<Q, R> method, CallOptions options) {
            this.method = method;
            this.options = options;
        }

        @Override
        public void start(Listener<R> responseListener, Metadata headers) {
            listener = responseListener;
        }

        @Override
        public void request(int numMessages) {
            // the response is delivered whole on half-close
        }

        @Override
        public void cancel(String message, Throwable cause) {
            // nothing runs in the background: the exchange is over before the stub can cancel
        }

        @Override
        public void sendMessage(Q message) {
            if (request != null) {
                throw new IllegalStateException(method.getFullMethodName() + " is unary: one request message");
            }
            request = message;
        }

        @Override
        public void halfClose() {
            Deadline deadline = options.getDeadline();
            long timeout = deadline == null ? 0 : Math.max(1, deadline.timeRemaining(TimeUnit.NANOSECONDS));
            UnaryExchange.Result r = UnaryExchange.call(resolved(), authority, "/" + method.getFullMethodName(), bytes(request), timeout,
                    tls, headers);
            Status status = r.status();
            R response = null;
            if (status.isOk() && r.message() != null) {
                try {
                    response = method.parseResponse(new ByteArrayInputStream(r.message()));
                } catch (RuntimeException e) {
                    status = Status.INTERNAL.withDescription("cannot parse the response of " + method.getFullMethodName() + ": " + e.getMessage()).withCause(e);
                }
            }
            Executor executor = options.getExecutor() == null ? Runnable::run : options.getExecutor();
            R message = response;
            Status end = status;
            executor.execute(() -> {
                listener.onHeaders(new Metadata());
                if (message != null) {
                    listener.onMessage(message);
                }
                listener.onClose(end, new Metadata());
            });
        }

        private byte[] bytes(Q message) {
            try (InputStream s = method.streamRequest(message)) {
                return s.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot serialise the request of " + method.getFullMethodName(), e);
            }
        }
    }

    /** Resolved at each call, as a channel resolves its target (the unresolved address only names it). */
    private InetSocketAddress resolved() {
        return new InetSocketAddress(address.getHostString(), address.getPort());
    }

    /**
     * The cause of a status the server itself ended the call with (its grpc-status trailer), as
     * against one this client made up for a call that never got an answer: a daemon that answers
     * UNAVAILABLE is reachable and says something behind it is not.
     */
    public static final class ServerStatus extends Exception {
        private static final long serialVersionUID = 1L;
        static final ServerStatus INSTANCE = new ServerStatus();

        private ServerStatus() {
            super("the server's own grpc-status", null, false, false);
        }

        /** Whether {@code status} is one the server ended its call with. */
        public static boolean of(Status status) {
            return status.getCause() instanceof ServerStatus;
        }
    }
}
