package org.fabriclab.manager;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;

/**
 * Caps every status description the admin service sends at {@value #MAX} characters. A description
 * travels as the {@code grpc-message} header, and a client refuses headers over its limit (8 KB in
 * grpc-java, after percent-encoding): a description that repeated a 64 KB request broke the
 * client's connection instead of telling it what was wrong. The messages themselves repeat input
 * bounded ({@code routing.text.Echo}); this is the limit for whatever else grows (a list of failed
 * switches, a chain of reasons).
 */
final class BoundedDescriptions implements ServerInterceptor {
    /** Characters of a description sent whole; longer ones are cut there and say how long they were. */
    static final int MAX = 1024;

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
        if (d == null || d.length() <= MAX) {
            return s;
        }
        return s.withDescription(d.substring(0, MAX - 40) + "... (" + d.length() + " characters, cut)");
    }
}
