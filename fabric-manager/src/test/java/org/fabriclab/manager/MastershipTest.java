package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.link.LiveNode;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.channel.NodeChannels;
import org.fabriclab.proto.v1.SetSmInfoRequest;
import org.fabriclab.proto.v1.SmState;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/**
 * The election of the master manager through the nodes' SMInfo: the higher priority configures
 * the fabric, the other stands by without writing and takes over when the master stops; a
 * stronger newcomer takes over at once; an M_Key keeps out a manager without it.
 */
class MastershipTest {
    private static final String SPEC = "rlft:leaves=2,spines=2,hosts=1";

    private static FabricManager manager(EmulatedFabric fabric, long guid, int priority, long mKey) {
        return new FabricManager(fabric.endpoint("L0_H0"), "minhop", null, new SimpleMeterRegistry(),
                new Mastership.Config(guid, priority, mKey));
    }

    private static FabricManager.State sweep(FabricManager m) throws Exception {
        return m.sweep().get(60, TimeUnit.SECONDS).state();
    }

    private static boolean allClaimedBy(EmulatedFabric fabric, long guid) {
        for (LiveNode n : fabric.switches()) {
            if (n.management().smInfo().smGuid() != guid || n.management().smInfo().state() != SmState.SM_STATE_MASTER) {
                return false;
            }
        }
        return fabric.hosts().stream().allMatch(h -> h.management().smInfo().smGuid() == guid);
    }

    private static long tableVersion(EmulatedFabric fabric) {
        return fabric.node("L0").management().tables().current().version();
    }

    @Test
    void theStandbyWritesNothingWhileTheMasterLivesAndTakesOverWhenItStops() throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
             FabricManager b = manager(fabric, 0xB, 1, 0)) {
            FabricManager a = manager(fabric, 0xA, 5, 0);
            assertEquals(FabricManager.State.UP, sweep(a));
            assertTrue(allClaimedBy(fabric, 0xA));
            long version = tableVersion(fabric);

            assertEquals(FabricManager.State.STANDBY, sweep(b));
            assertTrue(b.snapshot().lastError().contains("manager a (priority 5) is master"), b.snapshot().lastError());
            for (int i = 0; i < 2 * Mastership.MISSED_POLLS; i++) {
                a.lightSweep(); // the master's heartbeat raises its activity count
                assertFalse(b.lightSweep(), "the master is alive");
                assertEquals(FabricManager.State.STANDBY, b.snapshot().state());
            }
            assertEquals(version, tableVersion(fabric), "the standby wrote no table");
            assertTrue(allClaimedBy(fabric, 0xA));

            a.close();
            int polls = 0;
            while (b.snapshot().state() == FabricManager.State.STANDBY && polls <= Mastership.MISSED_POLLS + 1) {
                b.lightSweep();
                polls++;
            }
            assertEquals(FabricManager.State.UP, b.snapshot().state(), "took over after " + polls + " polls");
            assertTrue(allClaimedBy(fabric, 0xB));
        }
    }

    @Test
    void aStrongerManagerTakesOverAtOnceAndTheOldMasterStandsBy() throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
             FabricManager weak = manager(fabric, 0xA, 1, 0);
             FabricManager strong = manager(fabric, 0xB, 9, 0)) {
            assertEquals(FabricManager.State.UP, sweep(weak));
            assertEquals(FabricManager.State.UP, sweep(strong));
            assertTrue(allClaimedBy(fabric, 0xB));
            assertFalse(weak.lightSweep());
            assertEquals(FabricManager.State.STANDBY, weak.snapshot().state());
            assertTrue(weak.snapshot().lastError().contains("manager b (priority 9)"), weak.snapshot().lastError());
        }
    }

    @Test
    void anMKeyKeepsOutAManagerWithoutIt() throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
             FabricManager keyed = manager(fabric, 0xA, 1, 0x5eed);
             FabricManager keyless = manager(fabric, 0xB, 9, 0)) {
            assertEquals(FabricManager.State.UP, sweep(keyed));
            assertTrue(fabric.node("L0").management().smInfo().mKeySet());
            long version = tableVersion(fabric);
            assertEquals(FabricManager.State.FAILED, sweep(keyless));
            String error = keyless.snapshot().lastError();
            assertTrue(error.contains("PERMISSION_DENIED") && error.contains("--m-key"), error);
            assertEquals(version, tableVersion(fabric));
            assertTrue(allClaimedBy(fabric, 0xA));
            // the keyed manager still runs the fabric
            assertEquals(FabricManager.State.UP, sweep(keyed));
        }
    }

    /**
     * Without an M_Key (--m-key none) a stranger can write the anchor's SMInfo: priority 15, raising
     * its activity count as a live master would. The master stands by, then sees that the claimed
     * master never claims the other nodes (it does not sweep) and takes mastership back within
     * MISSED_POLLS light sweeps.
     */
    @Test
    void aStandbyTakesMastershipBackFromAClaimThatDoesNotSweep() throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
             FabricManager a = manager(fabric, 0xA, 1, 0);
             NodeChannels stranger = new NodeChannels()) {
            assertEquals(FabricManager.State.UP, sweep(a));
            String anchor = Mastership.anchor(a.snapshot().discovered()).endpoint();
            int[] count = {100};
            Runnable claim = () -> stranger.blocking(anchor).setSmInfo(SetSmInfoRequest.newBuilder().setSmGuid(0x1).setPriority(15)
                    .setState(SmState.SM_STATE_MASTER).setActCount(count[0]++).build());
            claim.run();
            assertFalse(a.lightSweep());
            assertEquals(FabricManager.State.STANDBY, a.snapshot().state(), "the claim on the anchor outranks the manager");
            int polls = 0;
            while (a.snapshot().state() == FabricManager.State.STANDBY && polls <= Mastership.MISSED_POLLS) {
                claim.run(); // the impostor looks alive: its count moves
                a.lightSweep();
                polls++;
            }
            assertEquals(FabricManager.State.UP, a.snapshot().state(), "took mastership back after " + polls + " light sweeps");
            assertEquals(Mastership.MISSED_POLLS, polls);
            assertTrue(allClaimedBy(fabric, 0xA));
        }
    }

    @Test
    void precedenceIsPriorityThenTheLowerGuid() {
        Mastership m = new Mastership(new Mastership.Config(0x10, 3, 0), new NodeChannels());
        assertTrue(m.outranksUs(new Mastership.Claim(0x5, 3)));
        assertFalse(m.outranksUs(new Mastership.Claim(0x20, 3)));
        assertTrue(m.outranksUs(new Mastership.Claim(0x20, 4)));
        assertFalse(m.outranksUs(new Mastership.Claim(0x5, 2)));
        assertFalse(m.outranksUs(new Mastership.Claim(0x10, 15)), "never itself");
    }
}
