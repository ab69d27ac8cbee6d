package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.core.SwitchTables;
import org.fabriclab.agent.core.TableBatch;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.emulator.live.EmulatedFabric;
import org.fabriclab.manager.channel.NodeChannels;
import org.fabriclab.proto.v1.GetSwitchInfoRequest;
import org.fabriclab.proto.v1.LftBlock;
import org.fabriclab.proto.v1.ManagementGrpc;
import org.fabriclab.proto.v1.SetSmInfoRequest;
import org.fabriclab.proto.v1.SmState;
import org.fabriclab.proto.v1.WriteTablesRequest;
import org.fabriclab.routing.topology.Topologies;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;

/**
 * Issue 18's finding 2, end to end: a stranger writes a switch's tables over the management
 * contract, and the manager's light sweeps, every second here, see the table version it did not
 * write and take the switch back whole. Without an M_Key the stranger's blackhole is repaired at
 * the next light sweep; a write that parks the switch at the version ceiling is repaired from a
 * fresh base; with the M_Key the stranger's write is refused, counted and trapped, and a write that
 * bypasses the key (straight into the node's tables, as a compromised node would) is repaired all
 * the same. Each waits for the named condition that the manager's table is back.
 */
class SelfHealingTest {
    private static final String SPEC = "rlft:leaves=2,spines=2,hosts=2";

    private static byte[] block(ManagedNode n) {
        return n.tables().current().block(0);
    }

    private static WriteTablesRequest blackhole(long key, long from, long to) {
        byte[] none = new byte[64];
        Arrays.fill(none, (byte) SwitchTables.NO_ROUTE);
        return WriteTablesRequest.newBuilder().setMKey(key).setFromVersion(from).setToVersion(to)
                .addLftBlocks(LftBlock.newBuilder().setBlock(0).setPorts(ByteString.copyFrom(none))).build();
    }

    private static FabricManager manager(EmulatedFabric fabric, long key, SimpleMeterRegistry registry) throws Exception {
        FabricManager m = new FabricManager(fabric.endpoint("L0_H0"), "minhop", null, registry, new Mastership.Config(0xA, 0, key));
        assertEquals(FabricManager.State.UP, m.sweep().get(60, TimeUnit.SECONDS).state());
        return m;
    }

    @Test
    void aStrangersBlackholeIsRepairedAtTheNextLightSweep() throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = manager(fabric, 0, new SimpleMeterRegistry());
             NodeChannels stranger = new NodeChannels()) {
            ManagedNode l0 = fabric.node("L0").management();
            byte[] managers = block(l0);
            long version = l0.tables().current().version();
            ManagementGrpc.ManagementBlockingStub s = stranger.blocking(fabric.endpoint("L0"));
            s.writeTables(blackhole(0, version, version + 1));
            assertFalse(Arrays.equals(managers, block(l0)), "the stranger's write went in: no M_Key guards this fabric");
            long sweeps = manager.snapshot().heavySweeps();

            manager.startPeriodicSweeps(1);
            // the block is rewritten during the heavy sweep and the sweep is counted when it ends: wait for both
            Waits.until("L0's LFT block 0 is the manager's again and the heavy sweep that wrote it has ended",
                    () -> Arrays.equals(managers, block(l0)) && manager.snapshot().heavySweeps() > sweeps);
            assertEquals(version + 2, l0.tables().current().version(), "the whole tables rewritten, on top of the stranger's version");
        }
    }

    @Test
    void aSwitchParkedAtTheVersionCeilingIsRewrittenFromAFreshBase() throws Exception {
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = manager(fabric, 0, new SimpleMeterRegistry());
             NodeChannels stranger = new NodeChannels()) {
            ManagedNode l1 = fabric.node("L1").management();
            byte[] managers = block(l1);
            ManagementGrpc.ManagementBlockingStub s = stranger.blocking(fabric.endpoint("L1"));
            long version = s.getSwitchInfo(GetSwitchInfoRequest.getDefaultInstance()).getTableVersion();
            StatusRuntimeException over = assertThrows(StatusRuntimeException.class, () -> s.writeTables(blackhole(0, version, Long.MAX_VALUE)));
            assertEquals(Status.Code.OUT_OF_RANGE, over.getStatus().getCode(), "2^63-1 is above the ceiling");
            s.writeTables(blackhole(0, version, SwitchTables.MAX_VERSION));
            assertEquals(SwitchTables.MAX_VERSION, l1.tables().current().version());

            manager.startPeriodicSweeps(1);
            Waits.until("L1's LFT block 0 is the manager's again", () -> Arrays.equals(managers, block(l1)));
            assertEquals(1, l1.tables().current().version(), "from the ceiling to a fresh base");
            // and the manager writes it on as before: a change of engine moves the switch from 1 to 2
            assertEquals(FabricManager.State.UP, manager.setEngine("updn").get(60, TimeUnit.SECONDS).state());
            assertTrue(l1.tables().current().version() <= 2, "version " + l1.tables().current().version());
        }
    }

    @Test
    void withTheMKeyAStrangerIsRefusedCountedAndABypassRepaired() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        long key = 0x5eed_f00d_cafeL;
        try (EmulatedFabric fabric = EmulatedFabric.start(Topologies.generate(SPEC), EmulatedFabric.Options.DEFAULTS);
             FabricManager manager = manager(fabric, key, registry);
             NodeChannels stranger = new NodeChannels()) {
            ManagedNode l0 = fabric.node("L0").management();
            byte[] managers = block(l0);
            long version = l0.tables().current().version();
            ManagementGrpc.ManagementBlockingStub s = stranger.blocking(fabric.endpoint("L0"));
            for (WriteTablesRequest w : new WriteTablesRequest[] {blackhole(0, version, version + 1), blackhole(0x1234, version, version + 1)}) {
                assertEquals(Status.Code.PERMISSION_DENIED, assertThrows(StatusRuntimeException.class, () -> s.writeTables(w)).getStatus().getCode());
            }
            // an impostor's claim on SMInfo is refused too: the key guards SMInfo as it guards tables
            assertEquals(Status.Code.PERMISSION_DENIED, assertThrows(StatusRuntimeException.class, () -> s.setSmInfo(SetSmInfoRequest.newBuilder()
                    .setSmGuid(0xBAD).setPriority(15).setState(SmState.SM_STATE_MASTER).setNewMKey(0xBAD).build())).getStatus().getCode());
            assertArrayEquals(managers, block(l0));
            assertEquals(0xA, l0.smInfo().smGuid());
            Waits.until("the manager counted L0's three M_Key violations from its traps", () -> {
                Counter c = registry.find("fabric.m_key.violations").tag("node", "L0").counter();
                return c != null && c.count() == 3;
            });

            byte[] none = new byte[64];
            Arrays.fill(none, (byte) SwitchTables.NO_ROUTE);
            l0.tables().apply(TableBatch.builder(version, version + 7).block(0, none).build()); // past the key, as a compromised node would
            manager.startPeriodicSweeps(1);
            Waits.until("L0's LFT block 0 is the manager's again", () -> Arrays.equals(managers, block(l0)));
        }
    }
}
