package org.fabriclab.agent.mgmt;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import java.net.SocketAddress;
import org.fabriclab.proto.calls.GuardedCall;
import org.fabriclab.routing.text.Excerpt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every management call goes through before and after {@link ManagementService}: the caller's
 * address and the method's name, for M_Key violation reports ({@link #peer()}, {@link #method()});
 * and how every call ends ({@link GuardedCall}: descriptions cut to {@link Excerpt#MESSAGE}
 * characters, INVALID_ARGUMENT for bytes that are no request message, INTERNAL for a fault of
 * ours, logged; never UNKNOWN).
 *
 * <p>Thread-safety: stateless; each call's values live in its gRPC {@link Context}.
 */
final class ManagementCalls implements ServerInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(ManagementCalls.class);
    private static final Context.Key<String> PEER = Context.key("fabriclab.peer");
    private static final Context.Key<String> METHOD = Context.key("fabriclab.method");
    private static final GuardedCall CALLS = new GuardedCall("management call", "the node", Excerpt::message, LOG::error);

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
        return CALLS.start(call, bounded -> Contexts.interceptCall(context, bounded, headers, next));
    }
}
