package org.fabriclab.agent.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.ThreadMXBean;
import java.lang.management.ManagementFactory;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.PortState;
import org.junit.jupiter.api.Test;

/**
 * A live host reads its port through a cache: it follows every change of state and LID, and a
 * read between changes takes neither the node's lock nor a {@link ManagedNode.Port} record (the
 * host used to call {@code ManagedNode.port(1)} on every event: a lock and an allocation each).
 */
class PortCacheTest {
    @Test
    void followsTheManagersChangesAndAllocatesNothingBetweenThem() {
        ManagedNode node = new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_CA, 0x10L, "H1", 1));
        PortCache cache = new PortCache(node, 1);
        assertEquals(0, cache.activeLid(), "DOWN");
        node.linkUp(1, 100, 0x20L, 3, "local:S1");
        node.setPort(1, 7, PortState.PORT_STATE_ARMED);
        assertEquals(0, cache.activeLid(), "ARMED: not yet");
        node.setPort(1, 0, PortState.PORT_STATE_ACTIVE);
        assertEquals(7, cache.activeLid(), "ACTIVE with LID 7");
        node.setPort(1, 9, PortState.PORT_STATE_UNSPECIFIED);
        assertEquals(9, cache.activeLid(), "a new LID");

        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        int reads = 100_000;
        long sum = 0;
        long before = mx.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < reads; i++) {
            sum += cache.activeLid();
        }
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertEquals(9L * reads, sum);
        assertTrue(allocated < reads, allocated + " bytes allocated by " + reads + " reads (a Port record each would be over "
                + 32L * reads + ")");

        node.linkDown(1);
        assertEquals(0, cache.activeLid(), "the link went down");
    }
}
