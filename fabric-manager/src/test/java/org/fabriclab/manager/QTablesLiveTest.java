package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.DragonflyState;
import org.fabriclab.proto.v1.QTableSnapshotInfo;
import org.fabriclab.routing.format.QTableSnapshot;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Q-tables as the manager's state on live agents (issue 17): the routers learn under ADV+1, the
 * manager saves what they learnt, reseeds them to zero, restores the snapshot (every router back
 * to the values saved, its seed now those values), and a restarted manager, even one whose engine
 * would seed by another policy, finds the restored and then the further learnt tables and leaves
 * them as they are: its sweep writes the routing the switches hold, seed and all, which a switch
 * takes as the same routing. Read over the switches' own management endpoints.
 */
class QTablesLiveTest {
    private static final int PACKETS = 300;

    @Test
    void learntTablesAreSavedRestoredAndKeptByARestartedManager(@TempDir Path dir) throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(DragonflyLiveTest.SPEC),
                EmulatedFabric.Options.DEFAULTS.withLanes(5, 8, 0))) {
            String seed = fabric.endpoint(fabric.hosts().get(0).name());
            List<DragonflyState> learnt;
            try (FabricManager manager = new FabricManager(seed, "q-adaptive", dir.resolve("guid2lid"), new SimpleMeterRegistry())) {
                FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
                assertEquals(FabricManager.State.UP, s.state(), s.lastError());
                DragonflyLiveTest.carryAdversarialTraffic(fabric, s, PACKETS);
                learnt = settled(manager, fabric);
                for (DragonflyState st : learnt) {
                    assertNotEquals(st.getQSeedList(), st.getQValuesList(), "learnt");
                }

                QTableSnapshotInfo saved = manager.qtables().save("adv1", false).get(60, TimeUnit.SECONDS);
                assertEquals(20, saved.getSwitches());
                QTableSnapshot file = QTableSnapshot.read(Files.readAllBytes(dir.resolve("qtables/adv1.qts")), "adv1.qts");
                for (int i = 0; i < learnt.size(); i++) {
                    assertEquals(learnt.get(i).getQValuesList(), boxed(file.table(switchIndex(manager, fabric, i)).values()),
                            "the file holds switch " + i + "'s learnt values");
                }

                assertEquals(20, manager.qtables().reseed("zero").get(60, TimeUnit.SECONDS).getSwitches());
                for (DragonflyState st : DragonflyLiveTest.states(manager, fabric)) {
                    st.getQValuesList().forEach(v -> assertEquals(0f, v));
                }
                manager.qtables().restore("adv1").get(60, TimeUnit.SECONDS);
                List<DragonflyState> restored = DragonflyLiveTest.states(manager, fabric);
                for (int i = 0; i < learnt.size(); i++) {
                    assertEquals(learnt.get(i).getQValuesList(), restored.get(i).getQValuesList(), "switch " + i + " restored");
                    assertEquals(learnt.get(i).getQValuesList(), restored.get(i).getQSeedList(), "switch " + i + " learns on from them");
                }
                long version = manager.snapshot().tableVersion();
                FabricManager.Snapshot again = manager.sweep().get(60, TimeUnit.SECONDS);
                assertEquals(version, again.tableVersion(), "a sweep after the restore writes nothing");
                assertSame(restored, DragonflyLiveTest.states(manager, fabric), "after a sweep");
            }

            // a restarted manager whose engine seeds by another policy: it writes the switches' routing back as they hold it
            try (FabricManager restarted = new FabricManager(seed, "q-adaptive", dir.resolve("guid2lid"), new SimpleMeterRegistry())) {
                List<DragonflyState> before = DragonflyLiveTest.states(restarted, fabric);
                restarted.engineParams(Map.of("qtable_seed", "hops"));
                FabricManager.Snapshot s = restarted.sweep().get(60, TimeUnit.SECONDS);
                assertEquals(FabricManager.State.UP, s.state(), s.lastError());
                assertSame(before, DragonflyLiveTest.states(restarted, fabric), "after a restarted manager's sweep");

                // learning goes on from the restored values, and what it learns is kept by the next restart too
                DragonflyLiveTest.carryAdversarialTraffic(fabric, s, PACKETS);
                learnt = settled(restarted, fabric);
                for (int i = 0; i < learnt.size(); i++) {
                    assertNotEquals(before.get(i).getQValuesList(), learnt.get(i).getQValuesList(), "switch " + i + " learnt on");
                    assertEquals(before.get(i).getQSeedList(), learnt.get(i).getQSeedList(), "from the restored seed");
                }
            }
            try (FabricManager third = new FabricManager(seed, "q-adaptive", dir.resolve("guid2lid"), new SimpleMeterRegistry())) {
                FabricManager.Snapshot s = third.sweep().get(60, TimeUnit.SECONDS);
                assertEquals(FabricManager.State.UP, s.state(), s.lastError());
                assertSame(learnt, DragonflyLiveTest.states(third, fabric), "after another restart");
                // and it lists the snapshot as fitting the fabric
                assertTrue(third.qtables().list().getSnapshots(0).getFits());
            }
        }
    }

    /** The switches' states once the feedback still crossing the links has been taken. */
    private static List<DragonflyState> settled(FabricManager manager, EmulatedFabric fabric) {
        Waits.settled("Q-table updates", () -> DragonflyLiveTest.states(manager, fabric).stream().mapToLong(DragonflyState::getQUpdates)
                .sum(), Duration.ofMillis(200));
        return DragonflyLiveTest.states(manager, fabric);
    }

    private static void assertSame(List<DragonflyState> expected, List<DragonflyState> actual, String when) {
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i).getQValuesList(), actual.get(i).getQValuesList(), "switch " + i + "'s Q-values " + when);
            assertEquals(expected.get(i).getQSeedList(), actual.get(i).getQSeedList(), "switch " + i + "'s seed " + when);
        }
    }

    /** The manager's switch number of the emulated fabric's {@code i}-th switch. */
    private static int switchIndex(FabricManager manager, EmulatedFabric fabric, int i) {
        var f = manager.snapshot().outcome().fabric();
        return f.switchIndex(f.nodeByName(fabric.switches().get(i).name()).orElseThrow());
    }

    private static List<Float> boxed(float[] v) {
        Float[] out = new Float[v.length];
        for (int i = 0; i < v.length; i++) {
            out[i] = v[i];
        }
        return List.of(out);
    }
}
