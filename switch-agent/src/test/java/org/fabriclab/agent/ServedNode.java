package org.fabriclab.agent;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.agent.mgmt.ManagementService;
import org.fabriclab.proto.v1.ManagementGrpc;

/**
 * A node's management service on an in-process gRPC server with a channel to it, as the
 * service's tests call it: blocking stubs with a deadline, and asynchronous calls whose answer a
 * test awaits ({@link #reply}) while it holds the node's event loop.
 */
public record ServedNode(Server server, ManagedChannel channel) implements AutoCloseable {
    public static ServedNode serve(ManagedNode node) throws IOException {
        String name = InProcessServerBuilder.generateName();
        Server server = InProcessServerBuilder.forName(name).directExecutor().addService(new ManagementService(node)).build().start();
        return new ServedNode(server, InProcessChannelBuilder.forName(name).directExecutor().build());
    }

    /** A blocking stub with a deadline of 10 s. */
    public ManagementGrpc.ManagementBlockingStub blocking() {
        return ManagementGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    /** An asynchronous stub with a deadline of 30 s, for calls answered by {@link #reply}. */
    public ManagementGrpc.ManagementStub async() {
        return ManagementGrpc.newStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    /** An observer of a unary call that completes {@code f} with its answer or its error. */
    public static <T> StreamObserver<T> reply(CompletableFuture<T> f) {
        return new StreamObserver<>() {
            @Override
            public void onNext(T value) {
                f.complete(value);
            }

            @Override
            public void onError(Throwable t) {
                f.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
            }
        };
    }

    @Override
    public void close() {
        channel.shutdownNow();
        server.shutdownNow();
    }
}
