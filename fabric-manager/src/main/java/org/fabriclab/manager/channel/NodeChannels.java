package org.fabriclab.manager.channel;

import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.fabriclab.proto.v1.ManagementGrpc;

/**
 * gRPC channels to nodes' management endpoints, kept for reuse. An endpoint is {@code HOST:PORT}
 * (an agent process), {@code HOST:PORT/GUID} (one of many nodes behind one server, chosen by the
 * call's authority), {@code inproc:NAME} or {@code inproc:SERVER/GUID} (the same, in this JVM).
 * The endpoints behind one server share its channel. Thread-safe.
 */
public final class NodeChannels implements AutoCloseable {
    /** Deadline of every management call. */
    public static final long DEADLINE_MS = 5_000;
    private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();

    private final Map<String, io.grpc.Channel> routed = new ConcurrentHashMap<>();

    private ManagedChannel channel(String target) {
        return channels.computeIfAbsent(target, e -> e.startsWith("inproc:")
                ? InProcessChannelBuilder.forName(e).build()
                : NettyChannelBuilder.forTarget(e).usePlaintext().build());
    }

    /** The channel for an endpoint: a {@code /GUID} suffix sends the calls with that authority over the server's connection. */
    public io.grpc.Channel forEndpoint(String endpoint) {
        int slash = endpoint.indexOf('/');
        if (slash < 0) {
            return channel(endpoint);
        }
        return routed.computeIfAbsent(endpoint, e -> {
            String authority = e.substring(slash + 1);
            return io.grpc.ClientInterceptors.intercept(channel(e.substring(0, slash)), new io.grpc.ClientInterceptor() {
                @Override
                public <Q, R> io.grpc.ClientCall<Q, R> interceptCall(io.grpc.MethodDescriptor<Q, R> method, io.grpc.CallOptions options,
                                                                     io.grpc.Channel next) {
                    return next.newCall(method, options.withAuthority(authority));
                }
            });
        });
    }

    /** A blocking stub with the standard deadline. */
    public ManagementGrpc.ManagementBlockingStub blocking(String endpoint) {
        return ManagementGrpc.newBlockingStub(forEndpoint(endpoint)).withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS);
    }

    public ManagementGrpc.ManagementStub async(String endpoint) {
        return ManagementGrpc.newStub(forEndpoint(endpoint));
    }

    @Override
    public void close() {
        channels.values().forEach(ManagedChannel::shutdownNow);
        channels.clear();
        routed.clear();
    }
}
