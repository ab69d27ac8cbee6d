package org.fabriclab.manager;

import io.grpc.ManagedChannel;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.fabriclab.proto.v1.ManagementGrpc;

/**
 * gRPC channels to nodes' management endpoints, one per endpoint, kept for reuse. An endpoint is
 * {@code inproc:NAME} (a node emulated in this JVM) or {@code HOST:PORT}. Thread-safe.
 */
public final class NodeChannels implements AutoCloseable {
    /** Deadline of every management call. */
    public static final long DEADLINE_MS = 5_000;
    private final Map<String, ManagedChannel> channels = new ConcurrentHashMap<>();

    public ManagedChannel channel(String endpoint) {
        return channels.computeIfAbsent(endpoint, e -> e.startsWith("inproc:")
                ? InProcessChannelBuilder.forName(e).build()
                : NettyChannelBuilder.forTarget(e).usePlaintext().build());
    }

    /** A blocking stub with the standard deadline. */
    public ManagementGrpc.ManagementBlockingStub blocking(String endpoint) {
        return ManagementGrpc.newBlockingStub(channel(endpoint)).withDeadlineAfter(DEADLINE_MS, TimeUnit.MILLISECONDS);
    }

    public ManagementGrpc.ManagementStub async(String endpoint) {
        return ManagementGrpc.newStub(channel(endpoint));
    }

    @Override
    public void close() {
        channels.values().forEach(ManagedChannel::shutdownNow);
        channels.clear();
    }
}
