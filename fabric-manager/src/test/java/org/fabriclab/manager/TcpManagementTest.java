package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;

/**
 * The manager over real TCP sockets: the emulated nodes' management endpoints are served by one
 * gRPC server that routes by authority ({@code localhost:PORT/GUID}), as {@code bin/emulator up}
 * serves them to a manager in another process.
 */
class TcpManagementTest {
    @Test
    void managesAFabricOverTcpEndpoints() throws Exception {
        EmulatedFabric.Options o = EmulatedFabric.Options.DEFAULTS.withManagementPort(-1);
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("torus:3x3"), o);
             FabricManager manager = new FabricManager(fabric.tcpEndpoint("H2_2_0"), "updn", null, new SimpleMeterRegistry())) {
            assertTrue(fabric.tcpEndpoint("H2_2_0").matches("localhost:\\d+/[0-9a-f]+"), fabric.tcpEndpoint("H2_2_0"));
            FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, s.state(), s.lastError());
            assertEquals(9, s.discovered().fabric().switchCount());
            assertTrue(s.discovered().nodes().stream().allMatch(n -> n.endpoint().startsWith("localhost:")));
            fabric.startTraffic(TrafficPattern.ALL_TO_ALL, 0, 256, 100);
            Waits.until("every packet arrived", () -> fabric.hosts().stream().mapToLong(h -> h.stats().join().received()).sum() == 900);
        }
    }
}
