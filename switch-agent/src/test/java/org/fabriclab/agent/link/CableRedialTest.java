package org.fabriclab.agent.link;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import org.fabriclab.agent.core.CreditBlocks;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.proto.v1.NodeType;
import org.junit.jupiter.api.Test;

/**
 * A cable whose peer refuses it at the hello (the two ends count a buffer slot in other blocks)
 * waits longer between attempts as one that cannot connect does, rather than dialling again at the
 * first wait for ever: over TCP on loopback, {@link DataLinks#cable}'s failed attempts add up.
 */
class CableRedialTest {
    private static LiveSwitch node(DataLinks links, String name, long guid, int frameBytes) {
        LiveSwitch s = new LiveSwitch(links.loop(0), new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, guid, name, 2)),
                1, 2, 0, CreditBlocks.of(frameBytes, FrameSizes.DATA_HEADER), new double[] {0, 100, 100}, name);
        s.modelClock(new ModelClock(System::nanoTime, 1));
        return s;
    }

    @Test
    void aCableRefusedAtItsHelloCountsItsAttemptsAsFailed() throws Exception {
        try (DataLinks links = DataLinks.tcp(1)) {
            LiveSwitch dialler = node(links, "S1", 0x700001L, FrameSizes.MAX_FRAME); // 65 blocks a slot
            LiveSwitch listener = node(links, "S2", 0x700002L, FrameSizes.LIVE_FRAME); // 33
            SocketAddress at = links.listen(listener, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            DataLinks.Cable cable = links.cable(dialler, 1, at, 1);
            // each attempt connects and is refused at the hello; before, every connection reset the count to 0
            // (and the wait to 50 ms), so it never passed 1. The waits 50, 100, 200 ms reach 3 within a second or so.
            long giveUp = System.nanoTime() + 30_000_000_000L;
            while (cable.failures() < 3 && System.nanoTime() < giveUp) {
                Thread.sleep(20);
            }
            assertTrue(cable.failures() >= 3, "failed attempts counted: " + cable.failures());
            cable.cut();
        }
    }
}
