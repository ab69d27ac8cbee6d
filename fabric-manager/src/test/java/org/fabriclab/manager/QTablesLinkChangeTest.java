package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.proto.v1.DragonflyState;
import org.fabriclab.routing.dragonfly.DragonflySwitch;
import org.fabriclab.routing.dragonfly.DragonflyTables;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Q-tables across a change of the fabric, on live agents (issue 17): a global link fails on a
 * dragonfly with two links between every pair of groups, and the sweep that routes around it keeps
 * what every switch learnt except in the rows whose minimal way changed (at the failed link's
 * group, the rows of the group it led to, whose gateway moved), which start again from the new
 * seed; then the link comes back and the same holds the other way. And the engine's {@code
 * qtable_seed=snapshot:NAME}: a whole new emulated fabric, routed by a manager seeding from a
 * snapshot the first one saved, starts learning from its values; a snapshot that is gone leaves
 * the minimal seed, and the fabric is routed all the same.
 */
class QTablesLinkChangeTest {
    private static final String SPEC = "dragonfly:p=1,a=4,h=2,trunk=2,local-latency=2us,global-latency=10us";
    private static final int PACKETS = 200;

    @Test
    void aLinkChangeReseedsOnlyTheRowsWhoseMinimalWayChanged(@TempDir Path dir) throws Exception {
        try (Lab lab = Lab.start(dir, Map.of())) {
            EmulatedFabric fabric = lab.fabric();
            FabricManager manager = lab.manager();
            FabricManager.Snapshot s = lab.swept();
            DragonflyLiveTest.carryAdversarialTraffic(fabric, s, PACKETS);
            List<DragonflyState> learnt = settled(manager, fabric);

            // the link from group 0 to group 1 at group 0's gateway router for group 1
            Fabric f = s.outcome().fabric();
            DragonflyTables before = s.outcome().tables().dragonfly();
            int gatewayIndex = before.of(f.switchIndex(f.nodeByName("G0_S0").orElseThrow())).gateway(1);
            String gatewayName = "G0_S" + gatewayIndex;
            int port = before.of(f.switchIndex(f.nodeByName(gatewayName).orElseThrow())).globalPort(1);
            fabric.linkDown(gatewayName, port);
            FabricManager.Snapshot down = sweptUntilLinks(manager, f.linkCount() - 1);
            assertChangedRowsOnly(manager, fabric, down, learnt, before);

            // and back: the rows that moved move back, from the seed again; the rest keep their values
            List<DragonflyState> held = DragonflyLiveTest.states(manager, fabric);
            fabric.linkUp(gatewayName, port);
            FabricManager.Snapshot up = sweptUntilLinks(manager, f.linkCount());
            assertChangedRowsOnly(manager, fabric, up, held, down.outcome().tables().dragonfly());
        }
    }

    @Test
    void theEngineSeedsFromAStoredSnapshotAndRoutesAllTheSameWithoutIt(@TempDir Path dir) throws Exception {
        List<DragonflyState> learnt;
        try (Lab lab = Lab.start(dir, Map.of())) {
            EmulatedFabric fabric = lab.fabric();
            FabricManager manager = lab.manager();
            FabricManager.Snapshot s = lab.swept();
            DragonflyLiveTest.carryAdversarialTraffic(fabric, s, PACKETS);
            learnt = settled(manager, fabric);
            manager.qtables().save("adv1", false).get(60, TimeUnit.SECONDS);
        }
        // a new fabric (every switch fresh, nothing learnt) and a new manager seeding from the snapshot
        try (Lab lab = Lab.start(dir, Map.of("qtable_seed", "snapshot:adv1"))) {
            EmulatedFabric fabric = lab.fabric();
            FabricManager manager = lab.manager();
            List<DragonflyState> seeded = DragonflyLiveTest.states(manager, fabric);
            for (int i = 0; i < learnt.size(); i++) {
                assertEquals(learnt.get(i).getQValuesList(), seeded.get(i).getQSeedList(), "switch " + i + " seeded by the snapshot");
                assertEquals(learnt.get(i).getQValuesList(), seeded.get(i).getQValuesList(), "switch " + i + " starts from it");
            }
            // a reseed by the engine's own policy is the snapshot's restore
            assertEquals("snapshot:adv1", manager.qtables().reseed("").get(60, TimeUnit.SECONDS).getPolicy());
        }
        // a snapshot that is not there: the minimal seed, and a routed fabric
        try (Lab lab = Lab.start(dir, Map.of("qtable_seed", "snapshot:gone"))) {
            EmulatedFabric fabric = lab.fabric();
            FabricManager.Snapshot s = lab.swept();
            List<DragonflyState> seeded = DragonflyLiveTest.states(lab.manager(), fabric);
            DragonflyTables t = s.outcome().tables().dragonfly();
            for (int i = 0; i < seeded.size(); i++) {
                float[] minimal = t.of(switchIndex(s, fabric, i)).qSeed();
                for (int v = 0; v < minimal.length; v++) {
                    assertEquals(minimal[v], seeded.get(i).getQSeed(v), "switch " + i + "'s minimal seed, value " + v);
                }
            }
        }
    }

    /**
     * After a sweep that followed a link change, every switch holds, in each row of another
     * group, the values {@code held} had there (by port) if its minimal way to the group is the
     * same under {@code now}'s routing as under {@code before}, else the new routing's seed; and only
     * rows between the failed link's two groups were reseeded.
     */
    private static void assertChangedRowsOnly(FabricManager manager, EmulatedFabric fabric, FabricManager.Snapshot now,
                                              List<DragonflyState> held, DragonflyTables before) {
        DragonflyTables after = now.outcome().tables().dragonfly();
        List<DragonflyState> states = DragonflyLiveTest.states(manager, fabric);
        int reseeded = 0;
        int kept = 0;
        for (int i = 0; i < states.size(); i++) {
            int s = switchIndex(now, fabric, i);
            DragonflySwitch b = before.of(s);
            DragonflySwitch a = after.of(s);
            DragonflyState st = states.get(i);
            assertEquals(a.rows() * a.columns(), st.getQValuesCount(), "switch " + i + "'s table has the new routing's shape");
            for (int t = 0; t < a.groups(); t++) {
                if (t == a.group()) {
                    continue;
                }
                // the same way: a global link of its own to the group before and after, or none and the same gateway router
                boolean same = (b.globalPort(t) != 0) == (a.globalPort(t) != 0) && (b.globalPort(t) != 0 || b.gateway(t) == a.gateway(t));
                reseeded += same ? 0 : 1;
                kept += same ? 1 : 0;
                for (int c = 0; c < a.columns(); c++) {
                    int p = a.portOfColumn(c);
                    int old = b.column(p);
                    float expected = !same || old < 0 || b.kind(p) != a.kind(p) || b.peer(p) != a.peer(p)
                            ? a.qSeed()[a.row(t, 0) * a.columns() + c]
                            : held.get(i).getQValues(b.row(t, 0) * b.columns() + old);
                    assertEquals(expected, st.getQValues(a.row(t, 0) * a.columns() + c), fabric.switches().get(i).name() + ", row of group " + t
                            + ", port " + p + (same ? " (kept)" : " (reseeded)"));
                }
            }
        }
        // the failed link's router and the one whose gateway it was, at group 0 and at group 1 if its gateway moved too; no other row
        assertTrue(reseeded >= 4 && reseeded <= 8, "rows reseeded: " + reseeded + " (" + kept + " kept)");
    }

    /** Sweeps until the manager's fabric has {@code links} links and it is up. */
    private static FabricManager.Snapshot sweptUntilLinks(FabricManager manager, int links) {
        FabricManager.Snapshot[] last = new FabricManager.Snapshot[1];
        Waits.until("a sweep that finds " + links + " links", () -> {
            try {
                last[0] = manager.sweep().get(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            return last[0].state() == FabricManager.State.UP && last[0].outcome().fabric().linkCount() == links;
        });
        return last[0];
    }

    private static List<DragonflyState> settled(FabricManager manager, EmulatedFabric fabric) {
        Waits.settled("Q-table updates", () -> DragonflyLiveTest.states(manager, fabric).stream().mapToLong(DragonflyState::getQUpdates)
                .sum(), Duration.ofMillis(200));
        List<DragonflyState> out = DragonflyLiveTest.states(manager, fabric);
        assertNotEquals(out.get(0).getQSeedList(), out.get(0).getQValuesList(), "learnt");
        return out;
    }

    /**
     * An emulated {@link #SPEC} and a q-adaptive manager of it with engine parameters {@code
     * params}, swept once, state in {@code dir}; closed in that order's reverse.
     */
    private record Lab(EmulatedFabric fabric, FabricManager manager, FabricManager.Snapshot swept) implements AutoCloseable {
        static Lab start(Path dir, Map<String, String> params) throws Exception {
            EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS.withLanes(5, 8, 0));
            FabricManager manager = new FabricManager(fabric.endpoint(fabric.hosts().get(0).name()), "q-adaptive", dir.resolve("guid2lid"),
                    new SimpleMeterRegistry());
            manager.engineParams(params);
            FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
            assertEquals(FabricManager.State.UP, s.state(), s.lastError());
            return new Lab(fabric, manager, s);
        }

        @Override
        public void close() {
            manager.close();
            fabric.close();
        }
    }

    /** The manager's switch number of the emulated fabric's {@code i}-th switch. */
    private static int switchIndex(FabricManager.Snapshot s, EmulatedFabric fabric, int i) {
        Fabric f = s.outcome().fabric();
        return f.switchIndex(f.nodeByName(fabric.switches().get(i).name()).orElseThrow());
    }
}
