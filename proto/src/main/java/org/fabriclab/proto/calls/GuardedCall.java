package org.fabriclab.proto.calls;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * How every call of our gRPC services ends, the one rule the management service (switch agent)
 * and the admin service (manager) share: status descriptions cut by a bound (a description echoing
 * a huge input would be a trailer the caller's HTTP/2 stack refuses, losing it the answer); and
 * never UNKNOWN: bytes that are not the method's request message answer INVALID_ARGUMENT, a
 * handler that throws (a fault of ours) INTERNAL naming the method, and is reported. grpc parses a
 * request before any interceptor sees it and answers a parse failure UNKNOWN, so a service using
 * this is served on raw messages ({@link io.grpc.ServerInterceptors#useInputStreamMessages}) and
 * parses behind it, where the failure can be named.
 *
 * <p>The caller's interceptor does the rest (who may call, per-call context) and hands the call
 * over with {@link #start}.
 *
 * <p>Thread-safety: immutable; each call's state lives in the listener {@link #start} returns.
 */
public final class GuardedCall {
    /** Where a fault of ours is reported (the caller's log). */
    public interface Faults {
        void fault(String message, RuntimeException e);
    }

    private final String kind;
    private final String where;
    private final UnaryOperator<String> bound;
    private final Faults faults;

    /**
     * @param kind what a call is called in messages ("management call", "admin call")
     * @param where what serves it, as in "failed inside the node" ("the node", "the manager")
     * @param bound cuts a status description to what may be sent
     */
    public GuardedCall(String kind, String where, UnaryOperator<String> bound, Faults faults) {
        this.kind = kind;
        this.where = where;
        this.bound = bound;
        this.faults = faults;
    }

    /**
     * Starts {@code call} through {@code start} (the rest of the interceptor chain, given the
     * bounded call) and returns its listener, guarded.
     */
    public <Q, R> ServerCall.Listener<Q> start(ServerCall<Q, R> call, Function<ServerCall<Q, R>, ServerCall.Listener<Q>> start) {
        String method = call.getMethodDescriptor().getBareMethodName();
        AtomicBoolean closed = new AtomicBoolean();
        ServerCall<Q, R> bounded = new SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                closed.set(true);
                super.close(status.withDescription(bound.apply(status.getDescription())), trailers);
            }
        };
        return new SimpleForwardingServerCallListener<>(start.apply(bounded)) {
            @Override
            public void onMessage(Q message) {
                if (!closed.get()) {
                    guard(() -> super.onMessage(message));
                }
            }

            @Override
            public void onHalfClose() {
                if (!closed.get()) { // refused already (a request that did not parse): nothing more to answer
                    guard(super::onHalfClose);
                }
            }

            private void guard(Runnable r) {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    if (closed.get()) {
                        faults.fault(kind + " " + method + " failed inside " + where + " after it was answered", e);
                    } else if (e.getCause() instanceof InvalidProtocolBufferException bad) {
                        bounded.close(Status.INVALID_ARGUMENT.withDescription(method + ": the request is not a "
                                + call.getMethodDescriptor().getServiceName() + "." + method + " request message (" + bad.getMessage()
                                + "); nothing was changed"), new Metadata());
                    } else {
                        faults.fault(kind + " " + method + " failed inside " + where, e);
                        bounded.close(Status.INTERNAL.withDescription(method + " failed inside " + where + ": " + e), new Metadata());
                    }
                }
            }
        };
    }
}
