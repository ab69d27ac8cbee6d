package org.fabriclab.manager;

import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Set;
import org.fabriclab.proto.calls.GuardedCall;
import org.fabriclab.routing.text.Excerpt;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may make which admin call, and how every admin call ends. The policy:
 *
 * <ul>
 *   <li>With an admin token ({@code --admin-token-file}): every call that changes the fabric
 *       ({@link #MUTATING}: Sweep, SetEngine, RouteJob; SaveQTableSnapshot, which writes to the state
 *       directory; RestoreQTableSnapshot, ReseedQTables) needs {@code authorization: Bearer TOKEN};
 *       so does any call from a caller not on this machine. Read-only calls from loopback need
 *       none (a local {@code fabricctl status} works without the file). A token that is given and
 *       wrong is refused, whatever the call. Both are UNAUTHENTICATED (gRPC's code for missing or
 *       invalid credentials).</li>
 *   <li>Without a token: calls that change the fabric are taken from loopback callers only
 *       (PERMISSION_DENIED from elsewhere: no credential would help); read-only calls from
 *       wherever the server listens ({@code --admin-address}, loopback by default).</li>
 * </ul>
 *
 * The health service and reflection are not behind this interceptor (probes come from the
 * kubelet, not from loopback). Calls it lets through end as the management service's do
 * ({@link GuardedCall}: descriptions cut to {@link Excerpt#MESSAGE} characters, INVALID_ARGUMENT
 * for bytes that are no request message, INTERNAL for a fault of ours; never UNKNOWN). Tokens are compared in constant time and never logged.
 *
 * <p>Thread-safety: immutable; per-call state lives in the call.
 */
final class AdminCalls implements ServerInterceptor {
    private static final Logger LOG = LoggerFactory.getLogger(AdminCalls.class);
    private static final GuardedCall CALLS = new GuardedCall("admin call", "the manager", Excerpt::message, LOG::error);
    /** The admin calls that change the fabric. */
    static final Set<String> MUTATING = Set.of("Sweep", "SetEngine", "RouteJob", "SaveQTableSnapshot", "RestoreQTableSnapshot",
            "ReseedQTables");
    static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    private static final String BEARER = "Bearer ";

    /** The token's bytes, or null: no token configured. */
    private final byte[] token;

    AdminCalls(String token) {
        this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String method = call.getMethodDescriptor().getBareMethodName();
        SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
        Status refusal = refusal(method, remote, headers.get(AUTHORIZATION));
        if (refusal != null) {
            LOG.warn("admin call {} from {} refused: {}", method, remote, refusal.getDescription());
            call.close(refusal, new Metadata());
            return new ServerCall.Listener<>() { };
        }
        return CALLS.start(call, bounded -> next.startCall(bounded, headers));
    }

    /** Why {@code method} from {@code remote} with {@code authorization} is refused, or null if it may go ahead. */
    Status refusal(String method, SocketAddress remote, String authorization) {
        boolean mutating = MUTATING.contains(method);
        boolean local = isLocal(remote);
        if (token == null) {
            return mutating && !local ? Status.PERMISSION_DENIED.withDescription(method + " changes the fabric, and this manager has no "
                    + "admin token: only callers on its own machine may make it; start the daemon with --admin-token-file FILE "
                    + "and call with fabricctl --token-file FILE") : null;
        }
        if (authorization != null) {
            return valid(authorization) ? null : Status.UNAUTHENTICATED.withDescription("the admin token given with " + method
                    + " is not this manager's (check fabricctl --token-file against the daemon's --admin-token-file)");
        }
        if (mutating || !local) {
            return Status.UNAUTHENTICATED.withDescription(method + (mutating ? " changes the fabric" : " was called from another machine")
                    + " and needs the admin token: call with fabricctl --token-file FILE (the daemon's --admin-token-file)");
        }
        return null;
    }

    private boolean valid(String authorization) {
        if (!authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            return false;
        }
        byte[] given = authorization.substring(BEARER.length()).strip().getBytes(StandardCharsets.UTF_8);
        return MessageDigest.isEqual(given, token);
    }

    /** Loopback, or in-process (a caller in this JVM): on this machine. */
    static boolean isLocal(SocketAddress remote) {
        if (remote instanceof InetSocketAddress inet) {
            return inet.getAddress() != null && inet.getAddress().isLoopbackAddress();
        }
        return remote != null && !(remote instanceof InetSocketAddress) && remote.getClass().getName().startsWith("io.grpc.inprocess.");
    }
}
