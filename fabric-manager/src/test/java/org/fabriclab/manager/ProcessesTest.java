package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.agent.link.Traffic;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.routing.fabric.Fabric;
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
        try (EmulatedFabric fabric = start(Topologies.generate("rlft:leaves=2,spines=1,hosts=2"), o);
             FabricManager manager = new FabricManager(fabric.tcpEndpoint("L0_H0"), "minhop", null, new SimpleMeterRegistry())) {
            assertTrue(fabric.tcpEndpoint("S0").matches("localhost:\\d+"), "a switch process answers on a port of its own");
            FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, s.state(), s.lastError());
            assertEquals(3, s.discovered().fabric().switchCount());
            assertEquals(4, s.discovered().fabric().caCount());
            fabric.startTraffic(TrafficPattern.ALL_TO_ALL, 0, 512, 300);
            Waits.until("every packet arrived", () -> fabric.hosts().stream().mapToLong(h -> h.stats().join().received()).sum() == 4 * 300);
            assertTrue(fabric.hosts().stream().allMatch(h -> h.stats().join().outOfOrder() == 0));
        }
    }

    /**
     * A switch process killed (as a crash) and started again with the same command line is cabled
     * again by the peers that dialled it (the spine S0 is dialled by both leaves; the leaf L1 by its
     * hosts), and the manager's next sweep routes through it: nothing else is restarted, and
     * all-to-all traffic then arrives whole.
     */
    @Test
    void aKilledAndRestartedSwitchIsCabledAndRoutedAgain() throws Exception {
        EmulatedFabric.Options o = EmulatedFabric.Options.DEFAULTS.withManagementPort(-1).withProcesses(true);
        try (EmulatedFabric fabric = start(Topologies.generate("rlft:leaves=2,spines=1,hosts=2"), o);
             FabricManager manager = new FabricManager(fabric.tcpEndpoint("L0_H0"), "minhop", null, new SimpleMeterRegistry())) {
            assertEquals(FabricManager.State.UP, manager.sweep().get(60, TimeUnit.SECONDS).state());
            manager.startPeriodicSweeps(1);
            java.util.Map<String, Long> before = fabric.switchProcesses();
            for (String sw : new String[] {"S0", "L1"}) {
                long pid = fabric.switchProcesses().get(sw);
                fabric.killSwitch(sw);
                Waits.until("a sweep without " + sw, () -> manager.snapshot().state() == FabricManager.State.UP
                        && manager.snapshot().discovered().fabric().nodeByName(sw).isEmpty());
                fabric.startSwitch(sw);
                assertTrue(fabric.switchProcesses().get(sw) != pid, "a new process");
                Waits.until("a sweep routing through " + sw + " again, every link back", () -> manager.snapshot().state() == FabricManager.State.UP
                        && manager.snapshot().discovered().fabric().switchCount() == 3 && manager.snapshot().discovered().fabric().linkCount() == 6
                        && manager.snapshot().outcome().fabric().nodeByName(sw).isPresent());
            }
            assertEquals(before.get("L0"), fabric.switchProcesses().get("L0"), "the other switch was not restarted");
            fabric.startTraffic(TrafficPattern.ALL_TO_ALL, 0, 512, 300);
            Waits.until("every packet arrived through the restarted switches",
                    () -> fabric.hosts().stream().mapToLong(h -> h.stats().join().received()).sum() == 4 * 300);
        }
    }

    /**
     * The fabric, started again once if a switch process could not bind the port it was given:
     * EmulatedFabric picks each process's ports free, closes them and passes the numbers on, so
     * another process on the machine (a parallel build's tests) may take one first; the switch then
     * fails with "Address already in use" and the start times out. A race in the emulator, not
     * what this test is about; until each process binds its own port, a second start with new
     * ports keeps it from failing the build.
     */
    private static EmulatedFabric start(Fabric f, EmulatedFabric.Options o) throws IOException, InterruptedException {
        try {
            return EmulatedFabric.start(f, o);
        } catch (IOException e) {
            String message = String.valueOf(e.getMessage());
            int see = message.lastIndexOf("; see ");
            Path log = see < 0 ? null : Path.of(message.substring(see + "; see ".length()));
            if (log == null || !Files.exists(log) || !Files.readString(log).contains("Address already in use")) {
                throw e;
            }
            return EmulatedFabric.start(f, o);
        }
    }
}
