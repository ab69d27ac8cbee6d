package org.fabriclab.testkit;

import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;

/**
 * Calls for tests of what a gRPC service answers to bad input: any method by its descriptor,
 * giving the status it ends with (a server stream: its first message or its end), and the same
 * method with raw bytes for a request, which no generated stub can send.
 */
public final class GrpcCalls {
    private static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    private GrpcCalls() {
    }

    /** The status a call of {@code m} with {@code request} on {@code channel} ends with (OK if it returned), within a minute. */
    public static <Q, R> Status status(Channel channel, MethodDescriptor<Q, R> m, Q request) {
        CallOptions options = CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS);
        try {
            if (m.getType() == MethodDescriptor.MethodType.SERVER_STREAMING) {
                ClientCalls.blockingServerStreamingCall(channel, m, options, request).hasNext();
            } else {
                ClientCalls.blockingUnaryCall(channel, m, options, request);
            }
            return Status.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        }
    }

    /** The status of {@code m} called with {@code bytes} as its request, whatever they are. */
    public static Status raw(Channel channel, MethodDescriptor<?, ?> m, byte[] bytes) {
        return status(channel, MethodDescriptor.<byte[], byte[]>newBuilder().setType(m.getType()).setFullMethodName(m.getFullMethodName())
                .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build(), bytes);
    }
}
