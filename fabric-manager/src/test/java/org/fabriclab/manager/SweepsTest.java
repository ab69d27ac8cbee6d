package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.link.LiveNode;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;

/** Light sweeps see what traps did not say; a flood of traps is folded into few heavy sweeps. */
class SweepsTest {
    @Test
    void aLightSweepChangesNothingOnAQuietFabricAndFindsWhatChanged() throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("rlft:leaves=2,spines=2,hosts=1"), EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = new FabricManager(fabric.endpoint("L0_H0"), "minhop", null, new SimpleMeterRegistry())) {
            assertEquals(FabricManager.State.UP, manager.sweep().get(60, TimeUnit.SECONDS).state());
            long sweeps = manager.snapshot().heavySweeps();
            assertFalse(manager.lightSweep(), "nothing changed");
            assertEquals(sweeps, manager.snapshot().heavySweeps());
            // a link goes down behind the manager's back: its traps are suppressed by closing the
            // manager's trap streams first (a manager that missed the traps)
            manager.channels().close();
            fabric.linkDown("L1", 3);
            Waits.until("L1's port 3 down", () -> fabric.node("L1").management().port(3).state() == PortState.PORT_STATE_DOWN);
            assertTrue(manager.lightSweep(), "the light sweep saw the link gone");
            // two host links and four leaf-spine links, less the one taken down
            assertEquals(5, manager.snapshot().discovered().fabric().linkCount());
        }
    }

    @Test
    void aTrapFloodIsFoldedIntoFewHeavySweeps() throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate("rlft:leaves=2,spines=2,hosts=1"), EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = new FabricManager(fabric.endpoint("L0_H0"), "minhop", null, new SimpleMeterRegistry())) {
            assertEquals(FabricManager.State.UP, manager.sweep().get(60, TimeUnit.SECONDS).state());
            LiveNode l0 = fabric.node("L0");
            for (int i = 0; i < 10; i++) {
                fabric.linkDown("L0", 3);
                Waits.until("L0's port 3 down", () -> l0.management().port(3).state() == PortState.PORT_STATE_DOWN);
                fabric.linkUp("L0", 3);
                Waits.until("L0's port 3 up again", () -> l0.management().port(3).state() != PortState.PORT_STATE_DOWN);
            }
            // 10 flaps, 2 ends, 2 traps each: 40 traps
            Waits.until("40 traps received", () -> manager.snapshot().traps() >= 40);
            Waits.until("a second heavy sweep", () -> manager.snapshot().heavySweeps() >= 2);
            // let the sweeps the flood scheduled run out: the count settles
            Waits.settled("heavy sweeps", () -> manager.snapshot().heavySweeps(), Duration.ofMillis(3 * FabricManager.TRAP_DELAY_MS));
            assertEquals(FabricManager.State.UP, manager.snapshot().state());
            assertEquals(6, manager.snapshot().discovered().fabric().linkCount());
            long heavy = manager.snapshot().heavySweeps() - 1;
            assertTrue(heavy >= 1 && heavy < 20, heavy + " heavy sweeps for " + manager.snapshot().traps() + " traps");
        }
    }
}
