package org.fabriclab.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.agent.mgmt.ManagementService;
import org.fabriclab.proto.v1.Event;
import org.fabriclab.proto.v1.GetNodeCountersRequest;
import org.fabriclab.proto.v1.GetSmInfoRequest;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.SetSmInfoRequest;
import org.fabriclab.proto.v1.SmState;
import org.fabriclab.proto.v1.SubscribeEventsRequest;
import org.fabriclab.proto.v1.WriteTablesRequest;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A wrong or missing M_Key is counted per node (SMInfo and the node's counters), reported by IBA
 * trap 256 through the trap stream with the method and the caller but never the key, and rate
 * limited: past {@value ManagedNode#M_KEY_TRAPS_PER_SECOND} a second the node refuses unread and
 * folds the violations into its next trap, while the right key keeps working. The node's clock is
 * the test's, so the seconds are exact.
 */
class MKeyViolationTest {
    private static final long KEY = 0x1234_5678_9abcL;
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private ManagedNode node;
    private Server server;
    private ManagedChannel channel;
    private ManagementGrpc.ManagementBlockingStub stub;
    private final LinkedBlockingQueue<Event> traps = new LinkedBlockingQueue<>();
    private Context.CancellableContext subscription;

    @BeforeEach
    void start() throws Exception {
        node = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, 0x200000L, "S1", 4));
        node.wallClock(now::get);
        String name = InProcessServerBuilder.generateName();
        server = InProcessServerBuilder.forName(name).directExecutor().addService(ManagementService.definition(node)).build().start();
        channel = InProcessChannelBuilder.forName(name).directExecutor().build();
        stub = ManagementGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
        stub.setSmInfo(SetSmInfoRequest.newBuilder().setSmGuid(0xA).setState(SmState.SM_STATE_MASTER).setNewMKey(KEY).build());
        subscription = Context.current().withCancellation();
        subscription.run(() -> ManagementGrpc.newStub(channel).subscribeEvents(SubscribeEventsRequest.getDefaultInstance(),
                new StreamObserver<>() {
                    @Override
                    public void onNext(Event e) {
                        traps.add(e);
                    }

                    @Override
                    public void onError(Throwable t) {
                    }

                    @Override
                    public void onCompleted() {
                    }
                }));
        Waits.until("the trap subscription is attached", () -> node.subscriberCount() == 1);
    }

    @AfterEach
    void stop() throws Exception {
        subscription.cancel(null);
        channel.shutdownNow();
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }

    /**
     * A wrong key tried, long enough that no port number, GUID or time in a trap could contain it by
     * chance (0x777 once matched an ephemeral port's digits).
     */
    private static final long TRIED = 0x5EC2E7FEEDFACEL;

    private Status.Code claim(long key) {
        try {
            stub.setSmInfo(SetSmInfoRequest.newBuilder().setMKey(key).setSmGuid(0xBAD).setPriority(15).setState(SmState.SM_STATE_MASTER)
                    .setNewMKey(0xBAD).build());
            return Status.Code.OK;
        } catch (StatusRuntimeException e) {
            return e.getStatus().getCode();
        }
    }

    @Test
    void violationsAreCountedTrappedAndRateLimitedWhileTheRightKeyStillWorks() throws Exception {
        for (int i = 0; i < 25; i++) {
            assertEquals(Status.Code.PERMISSION_DENIED, claim(i % 2 == 0 ? 0 : TRIED));
        }
        assertEquals(ManagedNode.M_KEY_TRAPS_PER_SECOND, traps.size(), "one trap each for the first 10, none for the 15 past the rate");
        Event first = traps.poll();
        assertEquals(256, first.getTrapNumber());
        assertEquals(0x200000L, first.getNodeGuid());
        assertEquals("SetSmInfo", first.getMKeyViolation().getMethod());
        assertNotEquals("unknown", first.getMKeyViolation().getPeer(), "the caller's address, as the transport saw it");
        assertEquals(1, first.getMKeyViolation().getCoalesced());
        assertFalse(first.toString().contains(Long.toHexString(TRIED)) || first.toString().contains(Long.toString(TRIED)),
                "the key tried is never reported: " + first);

        // the right key is not rate limited: the manager keeps its node through a flood
        assertEquals(7, stub.writeTables(WriteTablesRequest.newBuilder().setMKey(KEY).setFromVersion(0).setToVersion(7).build()).getVersion());
        assertEquals(25, stub.getSmInfo(GetSmInfoRequest.getDefaultInstance()).getMKeyViolations());
        assertEquals(25, stub.getNodeCounters(GetNodeCountersRequest.getDefaultInstance()).getMKeyViolations());
        assertEquals(0xA, node.smInfo().smGuid(), "no violation changed SMInfo");

        StatusRuntimeException limited = assertThrows(StatusRuntimeException.class, () -> stub.setSmInfo(
                SetSmInfoRequest.newBuilder().setMKey(1).build()));
        assertTrue(limited.getStatus().getDescription().contains("too many M_Key violations"), limited.getStatus().getDescription());

        traps.clear();
        now.addAndGet(1_000_000_000L); // a second later: the bucket has refilled
        assertEquals(Status.Code.PERMISSION_DENIED, claim(3));
        Event folded = traps.poll(10, TimeUnit.SECONDS);
        assertEquals(256, folded.getTrapNumber());
        assertEquals(17, folded.getMKeyViolation().getCoalesced(), "this one and the 16 refused unread since the last trap");
        assertEquals(27, folded.getMKeyViolation().getTotal());
        assertNull(traps.poll(), "one trap for all of them");
    }

    @Test
    void portStateTrapsSayTheirNumber() throws Exception {
        node.linkUp(2, 100, 0x100000L, 1, "H1");
        Event e = traps.poll(10, TimeUnit.SECONDS);
        assertEquals(128, e.getTrapNumber());
        assertEquals(2, e.getPortStateChange().getPortNumber());
    }
}
