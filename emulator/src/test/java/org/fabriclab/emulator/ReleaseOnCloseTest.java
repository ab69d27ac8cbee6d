package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;

/**
 * A host whose link went down keeps its queued packets (they go when the link comes back); when
 * the fabric closes, their frames (Netty buffers) are released, not left to the garbage collector
 * (Netty's leak detector caught one in a fault test).
 */
class ReleaseOnCloseTest {
    @Test
    void closingReleasesTheFramesANodeStillHolds() throws Exception {
        Fabric f = Topologies.generate("torus:3");
        List<ByteBuf> held;
        EmulatedFabric fabric = EmulatedFabric.start(f, EmulatedFabric.Options.DEFAULTS.withLinkGbps(1));
        try {
            LiveHost h = fabric.hosts().get(0);
            h.management().setPort(1, 1, PortState.PORT_STATE_ARMED);
            h.management().setPort(1, 0, PortState.PORT_STATE_ACTIVE);
            h.start(new Traffic(new int[] {2}, TrafficPattern.ALL_TO_ALL, 0, 256, 0, 1)); // as fast as credits allow: its queue fills
            Waits.until("frames queued at the host", () -> !frames(h).isEmpty());
            h.disconnect(1); // what is queued now stays queued
            held = Waits.await("the host holds queued frames with its link down").until(() -> frames(h), frames -> !frames.isEmpty());
        } finally {
            fabric.close();
        }
        assertTrue(!held.isEmpty(), "the host queued packets while its link was down");
        for (ByteBuf b : held) {
            assertEquals(0, b.refCnt(), "a frame still held when the fabric closed was released");
        }
    }

    /** The frames the host's packet pool holds now, read on its event loop. */
    private static List<ByteBuf> frames(LiveHost h) {
        CompletableFuture<List<ByteBuf>> frames = new CompletableFuture<>();
        h.execute(() -> {
            List<ByteBuf> out = new ArrayList<>();
            for (Object p : h.pool().payload) {
                if (p instanceof ByteBuf b) {
                    out.add(b);
                }
            }
            frames.complete(out);
        });
        return frames.join();
    }
}
