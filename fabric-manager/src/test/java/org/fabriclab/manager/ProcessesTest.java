package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.emulator.EmulatedFabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;

/**
 * The multi-process mode: every switch a switch-agent process of its own, data links between them
 * over loopback TCP, management over TCP gRPC; the manager discovers, routes and activates them
 * and every packet of all-to-all traffic arrives in order.
 */
class ProcessesTest {
    @Test
    void switchesAsProcessesOverTcp() throws Exception {
        EmulatedFabric.Options o = EmulatedFabric.Options.DEFAULTS.withManagementPort(-1).withProcesses(true);
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("rlft:leaves=2,spines=1,hosts=2"), o);
             FabricManager manager = new FabricManager(fabric.tcpEndpoint("L0_H0"), "minhop", null, new SimpleMeterRegistry())) {
            assertTrue(fabric.tcpEndpoint("S0").matches("localhost:\\d+"), "a switch process answers on a port of its own");
            FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, s.state(), s.lastError());
            assertEquals(3, s.discovered().fabric().switchCount());
            assertEquals(4, s.discovered().fabric().caCount());
            fabric.startTraffic(Traffic.Pattern.ROUND_ROBIN, 0, 512, 300);
            Waits.until("every packet arrived", () -> fabric.hosts().stream().mapToLong(h -> h.stats().join().received()).sum() == 4 * 300);
            assertTrue(fabric.hosts().stream().allMatch(h -> h.stats().join().outOfOrder() == 0));
        }
    }
}
