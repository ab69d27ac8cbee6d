package org.fabriclab.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.netty.channel.DefaultEventLoop;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.link.ModelClock;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.proto.v1.EmulationStatus;
import org.fabriclab.proto.v1.GetEmulationStatusRequest;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.SetSmInfoRequest;
import org.fabriclab.proto.v1.SetTimeDilationRequest;
import org.fabriclab.proto.v1.SmState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The emulation RPCs over a real in-process channel: a live node says its dilation and lags and
 * takes a new D only with the M_Key and only in range; a node without a live plane says it has none.
 */
class EmulationStatusTest {
    private final DefaultEventLoop loop = new DefaultEventLoop();
    private ServedNode served;

    private ManagementGrpc.ManagementBlockingStub serve(ManagedNode node) throws Exception {
        served = ServedNode.serve(node);
        return served.blocking();
    }

    @AfterEach
    void stop() throws Exception {
        served.close();
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await();
    }

    @Test
    void aLiveNodeSaysItsDilationAndTakesANewOneWithTheMKeyInRange() throws Exception {
        ManagedNode node = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, 0x300000L, "S1", 2));
        ModelClock clock = new ModelClock(System::nanoTime, 4);
        new LiveSwitch(loop, node, 1, 4, new double[] {0, 100, 100}, "inproc:S1").modelClock(clock);
        ManagementGrpc.ManagementBlockingStub stub = serve(node);

        EmulationStatus s = stub.getEmulationStatus(GetEmulationStatusRequest.newBuilder().setWindowMs(2000).build());
        assertEquals(4, s.getDilation());
        assertEquals(0, s.getLinkLagNs(), "no link has come up");
        assertTrue(s.getLagBoundNs() > 0);

        StatusRuntimeException bad = assertThrows(StatusRuntimeException.class,
                () -> stub.setTimeDilation(SetTimeDilationRequest.newBuilder().setDilation(0.5).build()));
        assertEquals(Status.Code.INVALID_ARGUMENT, bad.getStatus().getCode());
        assertTrue(bad.getStatus().getDescription().contains("1..1000"), bad.getStatus().getDescription());
        assertEquals(4, clock.dilation(), "a refused value changes nothing");

        stub.setSmInfo(SetSmInfoRequest.newBuilder().setSmGuid(0x100000L).setState(SmState.SM_STATE_MASTER).setNewMKey(42).build());
        StatusRuntimeException denied = assertThrows(StatusRuntimeException.class,
                () -> stub.setTimeDilation(SetTimeDilationRequest.newBuilder().setMKey(7).setDilation(8).build()));
        assertEquals(Status.Code.PERMISSION_DENIED, denied.getStatus().getCode());
        assertEquals(4, clock.dilation());

        assertEquals(8, stub.setTimeDilation(SetTimeDilationRequest.newBuilder().setMKey(42).setDilation(8).build()).getDilation());
        assertEquals(8, clock.dilation(), "the node's clock, shared by its fabric, runs at the new D");
    }

    @Test
    void aNodeWithoutALivePlaneHasNoEmulationStatus() throws Exception {
        ManagedNode node = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_CA, 0x10L, "H1", 1));
        StatusRuntimeException e = assertThrows(StatusRuntimeException.class,
                () -> serve(node).getEmulationStatus(GetEmulationStatusRequest.getDefaultInstance()));
        assertEquals(Status.Code.UNIMPLEMENTED, e.getStatus().getCode());
        assertTrue(e.getStatus().getDescription().contains("H1"), e.getStatus().getDescription());
    }
}
