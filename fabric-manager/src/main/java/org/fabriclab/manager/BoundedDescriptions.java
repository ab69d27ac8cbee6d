package org.fabriclab.manager;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import org.fabriclab.routing.text.Excerpt;

/**
 * Caps every status description the admin service sends at {@link Excerpt#MESSAGE} characters, as {@link AdminCalls} does for the daemon's server. A description
 * travels as the {@code grpc-message} header, and a client refuses headers over its limit (8 KB in
 * grpc-java, after percent-encoding): a description that repeated a 64 KB request broke the
 * client's connection instead of telling it what was wrong. The messages themselves repeat input
 * bounded ({@code routing.format.Excerpt#quote}); this is the limit for whatever else grows (a list of failed
 * switches, a chain of reasons).
 */
final class BoundedDescriptions implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        return next.startCall(new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                super.close(bounded(status), trailers);
            }
        }, headers);
    }

    static Status bounded(Status s) {
        String d = s.getDescription();
        return d == null || d.length() <= Excerpt.MESSAGE ? s : s.withDescription(Excerpt.message(d));
    }
}
