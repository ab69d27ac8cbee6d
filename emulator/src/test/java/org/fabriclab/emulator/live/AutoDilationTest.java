package org.fabriclab.emulator.live;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.fabriclab.agent.link.ModelClock;
import org.fabriclab.proto.v1.EmulationStatus;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.proto.v1.SetTimeDilationRequest;
import org.junit.jupiter.api.Test;

/**
 * {@code --time-dilation auto} with switch processes that a manager's M_Key guards (emulator up
 * --processes under fabric-manager --connect, the README's cross-process run): the fabric stays on
 * one D instead of the hosts' clock moving alone while every switch refuses.
 */
class AutoDilationTest {
    @Test
    void aSwitchProcessGuardedByAnMKeyKeepsTheFabricOnOneDilationAndAutoStops() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        Server guarded = NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
                .addService(new ManagementGrpc.ManagementImplBase() {
                    @Override
                    public void setTimeDilation(SetTimeDilationRequest request, StreamObserver<EmulationStatus> out) {
                        asked.incrementAndGet();
                        out.onError(Status.PERMISSION_DENIED.withDescription("no M_Key given, and an M_Key guards node S1").asRuntimeException());
                    }
                }).build().start();
        ModelClock clock = new ModelClock();
        try (AutoDilation auto = new AutoDilation(clock, List.of())) {
            auto.addProcess("S1", "127.0.0.1", guarded.getPort());
            auto.follow(53); // traffic starts, after the manager has keyed the switch
            assertEquals(1.0, clock.dilation(), "the hosts' clock back at the D the switch kept");
            assertEquals(2, asked.get(), "the change, then the way back (for processes that took the change)");
            auto.follow(80);
            assertEquals(1.0, clock.dilation());
            assertEquals(2, asked.get(), "auto has stopped: no further change is tried, so no further M_Key violation");
        } finally {
            guarded.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
        }
    }
}
