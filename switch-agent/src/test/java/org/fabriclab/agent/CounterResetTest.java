package org.fabriclab.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.netty.channel.DefaultEventLoop;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.link.LiveSwitch;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.agent.core.PortCounterArray;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.ResetPortCountersRequest;
import org.fabriclab.proto.v1.ResetPortCountersResponse;
import org.junit.jupiter.api.Test;

/**
 * A counter reset from a gRPC thread runs on the event loop that writes the counters, between two
 * of its tasks: while the loop is in the middle of an update the counters stay as they are and the
 * call waits; then the reset clears them, update included, and the call returns.
 */
class CounterResetTest {
    @Test
    void aResetWaitsForTheEventLoopAndRunsOnIt() throws Exception {
        DefaultEventLoop loop = new DefaultEventLoop();
        ManagedNode node = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, 0x300000L, "S1", 2));
        new LiveSwitch(loop, node, 1, 4, new double[] {0, 1, 1}, "inproc:S1");
        ServedNode served = ServedNode.serve(node);
        CountDownLatch resume = new CountDownLatch(1);
        try {
            PortCounterArray c = node.counters();
            CountDownLatch inUpdate = new CountDownLatch(1);
            loop.execute(() -> {
                c.add(1, PortCounterArray.XMIT_PKTS, 5);
                inUpdate.countDown();
                try {
                    resume.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                c.add(1, PortCounterArray.XMIT_PKTS, 1);
            });
            inUpdate.await();
            CompletableFuture<ResetPortCountersResponse> reply = new CompletableFuture<>();
            served.async().resetPortCounters(ResetPortCountersRequest.newBuilder().setPortNumber(1).build(), ServedNode.reply(reply));
            assertEquals(5, c.get(1, PortCounterArray.XMIT_PKTS), "no reset in the middle of the loop's update");
            assertFalse(reply.isDone(), "the reset waits for the event loop");
            resume.countDown();
            reply.get(30, TimeUnit.SECONDS);
            assertEquals(0, c.get(1, PortCounterArray.XMIT_PKTS), "the reset came after the whole update");
        } finally {
            resume.countDown();
            served.close();
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS).sync();
        }
    }
}
