package org.fabriclab.emulator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/**
 * A switch run as a process of its own ({@code --processes}) is the switch the fabric would run in
 * its own JVM: its command line carries the fabric's output buffer and the topology's cable delays
 * of each of its ports (a Dragonfly's 2-us local and 10-us global cables here), which the switch
 * agent applies to its links (SwitchAgentMainTest holds the options' refusals). Read from each
 * switch process's own command line.
 */
class SwitchProcessOptionsTest {
    @Test
    void switchProcessesGetTheOutputBufferAndTheTopologysCableDelays() throws Exception {
        Fabric topology = Topologies.generate("dragonfly:p=1,a=2,h=1,local-latency=2us,global-latency=10us");
        EmulatedFabric.Options o = EmulatedFabric.Options.DEFAULTS.withLanes(2, 8, 4).withManagementPort(-1).withProcesses(true);
        try (EmulatedFabric f = EmulatedFabric.start(topology, o)) {
            Map<String, Long> pids = f.switchProcesses();
            assertEquals(topology.switchCount(), pids.size());
            for (Map.Entry<String, Long> e : pids.entrySet()) {
                String cmd = ProcessCleanupTest.commandLine(ProcessHandle.of(e.getValue()).orElseThrow()).replace('\0', ' ');
                assertTrue(cmd.contains(" --output-buffer 4 "), e.getKey() + ": " + cmd);
                // dragonfly:p=1,a=2,h=1: port 1 local, port 2 global, port 3 the host (no delay given: --link-latency's)
                assertTrue(cmd.contains(" --port-latency 1=2000ns ") && cmd.contains(" --port-latency 2=10000ns ")
                        && !cmd.contains(" --port-latency 3="), e.getKey() + ": " + cmd);
            }
        }
    }
}
