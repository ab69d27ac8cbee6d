package org.fabriclab.agent.link;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.DefaultEventLoop;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.ServedNode;
import org.fabriclab.agent.core.TableInstall;
import org.fabriclab.agent.mgmt.DragonflyWire;
import org.fabriclab.agent.mgmt.ManagedNode;
import org.fabriclab.proto.v1.DragonflyState;
import org.fabriclab.proto.v1.GetDragonflyRoutingRequest;
import org.fabriclab.proto.v1.NodeType;
import org.fabriclab.proto.v1.WriteTablesRequest;
import org.fabriclab.routing.dragonfly.DragonflyAlgorithm;
import org.fabriclab.routing.dragonfly.DragonflySwitch;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.SwitchInstall;
import org.fabriclab.routing.engine.dragonfly.DragonflyEngine;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.lid.LidAssignment;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code GetDragonflyRouting} on a live switch reads the Q-table where it is learnt, on the
 * switch's event loop, together with the routing it belongs to: a read that comes right after a
 * write of a new routing, before the loop has taken the new routing up, shows the new routing's
 * seed, never what was learnt under the old one. (It read the table from the gRPC thread, so such
 * a read gave the old routing's learnt values as the new routing's.) A write that says
 * {@code restart_learning} starts the Q-table again from the seed whatever it carries.
 */
class QTableReadTest {
    private final DefaultEventLoop loop = new DefaultEventLoop();

    @AfterEach
    void stop() throws Exception {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).await();
    }

    @Test
    void aReadAfterANewRoutingShowsItsSeedNotWhatTheOldOneLearnt() throws Exception {
        Fabric f = Topologies.generate("dragonfly:p=1,a=4,h=1");
        LidAssignment lids = LidAssigner.assign(f);
        int s = 0;
        ManagedNode node = node(f, s);
        LiveSwitch sw = live(node);
        ForwardingTables first = route(f, lids, Map.of());
        node.tables().apply(TableInstall.batch(first, s, 5, false));
        DragonflySwitch r = first.dragonfly().of(s);
        learn(sw, r);
        try (ServedNode served = ServedNode.serve(node)) {
            DragonflyState before = read(served).get(30, TimeUnit.SECONDS);
            assertNotEquals(before.getQSeedList(), before.getQValuesList(), "learnt");

            // hold the loop, write a new routing (alpha 0.3: the same shape, a new seed taken up on the loop), read
            CountDownLatch release = new CountDownLatch(1);
            sw.execute(() -> {
                try {
                    release.await(30, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            ForwardingTables second = route(f, lids, Map.of("alpha", "0.3"));
            node.tables().apply(TableInstall.batch(SwitchInstall.of(second, s, 5, false), 1, 2));
            CompletableFuture<DragonflyState> read = read(served);
            release.countDown();
            DragonflyState after = read.get(30, TimeUnit.SECONDS);
            assertEquals(0.3, after.getRouting().getAlpha(), 1e-9);
            assertEquals(after.getQSeedList(), after.getQValuesList(), "a new routing's Q-table is its seed");
            assertNotEquals(before.getQValuesList(), after.getQValuesList(), "not the old routing's learnt values");
        }
    }

    /**
     * {@code restart_learning}: a write of the routing in force keeps what the switch learnt unless
     * it says so; then the Q-table starts again from the seed of the routing in force after the
     * write, whether the write carries the same routing, the same with another seed (how a manager
     * restores a snapshot), or no routing at all.
     */
    @Test
    void aWriteThatRestartsLearningPutsTheSeedBackEvenForTheSameRouting() throws Exception {
        Fabric f = Topologies.generate("dragonfly:p=1,a=4,h=1");
        LidAssignment lids = LidAssigner.assign(f);
        int s = 3;
        ManagedNode node = node(f, s);
        LiveSwitch sw = live(node);
        ForwardingTables routed = route(f, lids, Map.of());
        node.tables().apply(TableInstall.batch(routed, s, 5, false));
        DragonflySwitch r = routed.dragonfly().of(s);
        try (ServedNode served = ServedNode.serve(node)) {
            learn(sw, r);
            DragonflyState learnt = read(served).get(30, TimeUnit.SECONDS);
            assertNotEquals(learnt.getQSeedList(), learnt.getQValuesList(), "learnt");

            served.blocking().writeTables(write(1, 2).setDragonfly(DragonflyWire.encode(r, false)).build());
            assertEquals(learnt.getQValuesList(), read(served).get(30, TimeUnit.SECONDS).getQValuesList(), "the same routing keeps them");

            served.blocking().writeTables(write(2, 3).setDragonfly(DragonflyWire.encode(r, false)).setRestartLearning(true).build());
            DragonflyState restarted = read(served).get(30, TimeUnit.SECONDS);
            assertEquals(restarted.getQSeedList(), restarted.getQValuesList(), "restarted from the seed");

            float[] values = r.qSeed().clone();
            for (int i = 0; i < values.length; i++) {
                values[i] += 7 * i;
            }
            learn(sw, r);
            served.blocking().writeTables(write(3, 4).setDragonfly(DragonflyWire.encode(r.withQSeed(values), false))
                    .setRestartLearning(true).build());
            DragonflyState restored = read(served).get(30, TimeUnit.SECONDS);
            for (int i = 0; i < values.length; i++) {
                assertEquals(values[i], restored.getQValues(i), "value " + i + " is the new seed's");
            }

            learn(sw, r);
            served.blocking().writeTables(write(4, 5).setRestartLearning(true).build());
            DragonflyState again = read(served).get(30, TimeUnit.SECONDS);
            assertEquals(restored.getQSeedList(), again.getQValuesList(), "a write without a routing restarts the one in force");
        }
    }

    /** Switch {@code s} of {@code f} as a managed node. */
    private static ManagedNode node(Fabric f, int s) {
        int n = f.switchNode(s);
        return new ManagedNode(new ManagedNode.Identity(NodeType.NODE_TYPE_SWITCH, f.nodeGuid(n), f.name(n), f.portCount(n)));
    }

    /** The node's live switch on this test's loop (five lanes of 8 packets, no links). */
    private LiveSwitch live(ManagedNode node) {
        int ports = node.identity().ports();
        return new LiveSwitch(loop, node, 5, 8, new double[ports + 1], "inproc:" + node.identity().description());
    }

    /** The router learns: the route to group 2 through its first port got slower. */
    private static void learn(LiveSwitch sw, DragonflySwitch r) throws InterruptedException {
        CountDownLatch learnt = new CountDownLatch(1);
        sw.execute(() -> {
            for (int i = 0; i < 50; i++) {
                sw.qFeedbackCore(r.portOfColumn(0), r.row(2, 0), 1e5f, 0);
            }
            learnt.countDown();
        });
        assertTrue(learnt.await(30, TimeUnit.SECONDS), "the loop took the feedback");
    }

    private static WriteTablesRequest.Builder write(long from, long to) {
        return WriteTablesRequest.newBuilder().setFromVersion(from).setToVersion(to);
    }

    /** {@code GetDragonflyRouting}, every row, asked now and answered whenever the switch answers. */
    private static CompletableFuture<DragonflyState> read(ServedNode served) {
        CompletableFuture<DragonflyState> f = new CompletableFuture<>();
        served.async().getDragonflyRouting(GetDragonflyRoutingRequest.getDefaultInstance(), ServedNode.reply(f));
        return f;
    }

    private static ForwardingTables route(Fabric f, LidAssignment lids, Map<String, String> params) throws Exception {
        return new DragonflyEngine(DragonflyAlgorithm.Q_ADAPTIVE).route(new RoutingRequest(f, lids, RoutingOptions.DEFAULTS.withParams(params)));
    }
}
