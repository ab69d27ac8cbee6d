package org.fabriclab.routing.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/**
 * A frame's time through the empty fabric, by hand on a Dragonfly with 10 ns host cables, 30 ns
 * local and 300 ns global ones: at 32 Gb/s a 128-byte frame takes 32 ns a link, so two hosts of one
 * router are 2 x 42 ns apart, of one group 84 + 62, and of two groups 84 + 332 plus a local hop at
 * either end where the routers have no global link between them, never through another group.
 */
class NoLoadLatencyTest {
    private static final String SPEC = "dragonfly:p=2,a=4,h=2,local-latency=30ns,global-latency=300ns,host-latency=10ns";

    @Test
    void theQuickestPathThroughTheEmptyFabricByHand() throws Exception {
        Fabric f = Topologies.generate(SPEC);
        NoLoadLatency t = new NoLoadLatency(f, 0, 32, 128);
        long least = Long.MAX_VALUE;
        long most = 0;
        for (int a = 0; a < f.endpointCount(); a++) {
            for (int b = 0; b < f.endpointCount(); b++) {
                if (a == b) {
                    continue;
                }
                long ns = t.ns(a, b);
                assertEquals(ns, t.ns(b, a), a + " and " + b + ": the cables are the same both ways");
                int sa = f.endpointSwitch(a);
                int sb = f.endpointSwitch(b);
                if (sa == sb) {
                    assertEquals(2 * 42, ns, a + " to " + b + ": one router");
                } else if (f.group(sa) == f.group(sb)) {
                    assertEquals(84 + 62, ns, a + " to " + b + ": one group, a local cable");
                } else {
                    assertTrue(ns == 84 + 332 || ns == 84 + 62 + 332 || ns == 84 + 62 + 332 + 62, a + " to " + b + ": " + ns
                            + " ns, not one global cable and up to a local one at each end");
                    least = Math.min(least, ns);
                    most = Math.max(most, ns);
                }
            }
        }
        assertEquals(84 + 332, least, "routers cabled to each other's group");
        assertEquals(84 + 62 + 332 + 62, most, "neither router has the global cable: two local hops, not a second global one");
    }

    @Test
    void aDefaultDelayForCablesTheTopologyLeavesOpenAndTheFrameSize() throws Exception {
        Fabric f = Topologies.generate("fat-tree:k=4,levels=2");
        NoLoadLatency header = new NoLoadLatency(f, 100, 100, 37); // 37 bytes at 100 Gb/s: 2.96, charged 3 ns a link
        int far = -1;
        for (int b = 1; b < f.endpointCount() && far < 0; b++) {
            if (f.endpointSwitch(b) != f.endpointSwitch(0)) {
                far = b;
            }
        }
        assertEquals(4 * 103, header.ns(0, far), "up to a root and down: four links of 3 + 100 ns");
        assertThrows(IllegalArgumentException.class, () -> new NoLoadLatency(f, 0, 0, 37), "no link rate");
    }
}
