package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.HostRoutes;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;

/**
 * The daemon running Angara's routing on a live emulated torus: with {@code torus-sssp} the
 * switches get their direction ports and every host its source routes, traffic arrives whole and
 * in order; switching the engine to minhop clears both again.
 */
class TorusEndToEndTest {
    @Test
    void theDaemonPushesSourceRoutesAndWithdrawsThem() throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("torus:3x3"), EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = new FabricManager(fabric.endpoint("H0_0_0"), "torus-sssp", null, new SimpleMeterRegistry())) {
            FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, s.state(), s.lastError());
            assertEquals("torus-sssp", s.outcome().tables().engine());
            var sw = fabric.node("T1_1").management().tables().current();
            assertTrue(sw.sourceRouting(), "direction ports pushed");
            assertEquals(1, sw.directionPort(0), "+X is port 1 on a generated torus");
            LiveHost h = (LiveHost) fabric.node("H0_0_0");
            assertEquals(8, Arrays.stream(h.management().sourceRouteTable()).filter(r -> r != 0).count(),
                    "a route to the host of each of the 8 other switches");
            // the simulator installs exactly the table the daemon wrote into each adapter
            var tables = s.outcome().tables();
            long[][] simulated = HostRoutes.sourceRouteTables(tables);
            for (LiveHost x : fabric.hosts()) {
                long[] written = x.management().sourceRouteTable();
                long[] expected = simulated[tables.lids().endpointOfLid(x.management().port(1).lid())];
                for (int lid = 0; lid < Math.max(written.length, expected.length); lid++) {
                    assertEquals(lid < expected.length ? expected[lid] : 0, lid < written.length ? written[lid] : 0,
                            x.name() + "'s route to LID " + lid);
                }
            }
            fabric.startTraffic(TrafficPattern.ALL_TO_ALL, 0, 256, 100, tables);
            Waits.until("every packet arrived", () -> fabric.hosts().stream().mapToLong(x -> x.stats().join().received()).sum() == 900);
            assertTrue(fabric.hosts().stream().allMatch(x -> x.stats().join().outOfOrder() == 0));

            // a job on three hosts, as ANSU routes before a job: routes among the job's switches only
            s = manager.routeJob("H0_0_0,H1_1_0,H2_2_0").get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, s.state(), s.lastError());
            assertEquals("H0_0_0,H1_1_0,H2_2_0", s.outcome().jobNodes());
            assertEquals(2, Arrays.stream(h.management().sourceRouteTable()).filter(r -> r != 0).count(),
                    "routes to the job's two other switches");
            org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> manager.routeJob("H0_0_0,H9_9_0"));

            s = manager.setEngine("minhop").get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, s.state(), s.lastError());
            assertTrue(!fabric.node("T1_1").management().tables().current().sourceRouting(), "direction ports withdrawn");
            assertEquals(0, Arrays.stream(h.management().sourceRouteTable()).filter(r -> r != 0).count(), "routes withdrawn");
        }
    }

    @Test
    void aSwitchCutOffIsAFailedNodeTheRoutesGoAround() throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("torus:4x3"), EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = new FabricManager(fabric.endpoint("H0_0_0"), "torus-sssp", null, new SimpleMeterRegistry())) {
            assertEquals(FabricManager.State.UP, manager.sweep().get(60, TimeUnit.SECONDS).state());
            for (int port = 1; port <= 4; port++) {
                fabric.linkDown("T1_1", port); // T1_1 and its host drop out of the fabric
            }
            Waits.until("the manager routed around the failed switch (up, 11 switches, tables version 2)", () -> manager.snapshot().state() == FabricManager.State.UP
                    && manager.snapshot().discovered().fabric().switchCount() == 11 && manager.snapshot().tableVersion() >= 2);
            FabricManager.Snapshot s = manager.snapshot();
            assertEquals("torus-sssp", s.outcome().tables().engine(), "routed as a torus with a failed node, not refused");
            assertEquals(0, s.outcome().report().unreachablePairs());
            LiveHost h = (LiveHost) fabric.node("H0_1_0");
            assertEquals(10, Arrays.stream(h.management().sourceRouteTable()).filter(r -> r != 0).count(),
                    "a route to the host of each of the 10 other switches left");
        }
    }
}
