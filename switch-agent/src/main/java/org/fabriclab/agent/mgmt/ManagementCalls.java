package org.fabriclab.agent.mgmt;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.net.SocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import org.fabriclab.routing.text.Excerpt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every management call goes through before and after {@link ManagementService}: the caller's
 * address and the method's name, for M_Key violation reports ({@link #peer()}, {@link #method()});
 * status descriptions cut to {@link Excerpt#MESSAGE} characters (a description echoing a huge
 * input would be a trailer the caller's HTTP/2 stack refuses, losing it the answer); and never
 * UNKNOWN: bytes that are not the method's request message answer INVALID_ARGUMENT, a handler
 * that throws (a fault of ours) INTERNAL naming the method, and is logged. grpc parses a request
 * before any interceptor sees it and answers a parse failure UNKNOWN, so the service is served
 * on raw messages ({@link io.grpc.ServerInterceptors#useInputStreamMessages}) and parsed behind
 * this interceptor, where the failure can be named.
 *
 * <p>Thread-safety: stateless; each call's values live in its gRPC {@link Context}.
 */
final class ManagementCalls implements ServerInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(ManagementCalls.class);
    private static final Context.Key<String> PEER = Context.key("fabriclab.peer");
    private static final Context.Key<String> METHOD = Context.key("fabriclab.method");

    /** Where the current call came from ("127.0.0.1:53712", an in-process name), or "unknown". */
    static String peer() {
        String p = PEER.get();
        return p == null ? "unknown" : p;
    }

    /** The current call's method ("SetSmInfo"), or "unknown". */
    static String method() {
        String m = METHOD.get();
        return m == null ? "unknown" : m;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        String method = call.getMethodDescriptor().getBareMethodName();
        Context context = Context.current().withValues(PEER, remote == null ? "unknown" : remote.toString(), METHOD, method);
        AtomicBoolean closed = new AtomicBoolean();
        ServerCall<Q, R> bounded = new SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                closed.set(true);
                super.close(status.withDescription(Excerpt.message(status.getDescription())), trailers);
            }
        };
        ServerCall.Listener<Q> listener = Contexts.interceptCall(context, bounded, headers, next);
        return new SimpleForwardingServerCallListener<>(listener) {
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
                        LOG.error("management call {} failed inside the node after it was answered", method, e);
                    } else if (e.getCause() instanceof InvalidProtocolBufferException bad) {
                        bounded.close(Status.INVALID_ARGUMENT.withDescription(method + ": the request is not a "
                                + call.getMethodDescriptor().getServiceName() + "." + method + " request message (" + bad.getMessage()
                                + "); nothing was changed"), new Metadata());
                    } else {
                        LOG.error("management call {} failed inside the node", method, e);
                        bounded.close(Status.INTERNAL.withDescription(method + " failed inside the node: " + e), new Metadata());
                    }
                }
            }
        };
    }
}
