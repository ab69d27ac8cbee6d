package org.fabriclab.routing.analysis;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.RoutingEngines;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The analysis shared among workers gives exactly the report of one, whoever runs the workers. */
class RouteAnalyzerTest {
    /** Executors that run nothing: the caller must run every share itself, and still finish. */
    private static final Executor DROPS_TASKS = task -> {
    };
    private static final Executor REJECTS_TASKS = task -> {
        throw new RejectedExecutionException("shut down");
    };

    @ParameterizedTest
    @ValueSource(strings = {"fat-tree:k=4,levels=3", "torus:4x4,hosts=2", "dragonfly:p=2,a=4,h=2"})
    void workersAgreeWithOneThread(String topology) throws Exception {
        Fabric intact = Topologies.generate(topology);
        // tables routed on the intact fabric, judged on one with a link cut: unroutable pairs and examples too
        ForwardingTables routed = RoutingEngines.create("minhop")
                .route(new RoutingRequest(intact, LidAssigner.assign(intact), RoutingOptions.DEFAULTS));
        ForwardingTables[] cases = {routed, onFabric(routed, intact.withoutLinks(new int[] {firstInterSwitchPort(intact)}))};
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (ForwardingTables t : cases) {
                RouteReport one = RouteAnalyzer.analyzeOn(t, Optional.empty(), Runnable::run, 1);
                for (int workers = 2; workers <= 3; workers++) {
                    sameReport(one, RouteAnalyzer.analyzeOn(t, Optional.empty(), pool, workers), topology + " on " + workers + " workers");
                }
                sameReport(one, RouteAnalyzer.analyzeOn(t, Optional.empty(), DROPS_TASKS, 3), topology + ", tasks dropped");
                sameReport(one, RouteAnalyzer.analyzeOn(t, Optional.empty(), REJECTS_TASKS, 3), topology + ", tasks rejected");
            }
        } finally {
            pool.shutdownNow();
        }
        assertTrue(RouteAnalyzer.analyze(cases[1]).unreachablePairs() > 0, "the cut link leaves pairs unroutable");
    }

    private static void sameReport(RouteReport one, RouteReport many, String where) {
        assertEquals(one.pairs(), many.pairs(), where);
        assertEquals(one.unreachablePairs(), many.unreachablePairs(), where);
        assertEquals(one.unreachableReasons(), many.unreachableReasons(), where);
        assertEquals(one.unreachableExamples(), many.unreachableExamples(), where);
        assertEquals(one.nonMinimalPairs(), many.nonMinimalPairs(), where);
        assertEquals(one.edgeForwardingIndex(), many.edgeForwardingIndex(), where);
        assertEquals(one.minChannelLoad(), many.minChannelLoad(), where);
        assertEquals(one.sigma4(), many.sigma4(), where);
        assertEquals(one.meanHops(), many.meanHops(), where);
        assertArrayEquals(one.hopHistogram(), many.hopHistogram(), where);
        assertEquals(one.deadlockFree(), many.deadlockFree(), where);
        assertEquals(one.cdgCycle(), many.cdgCycle(), where);
    }

    private static int firstInterSwitchPort(Fabric f) {
        for (int g = 0; g < f.globalPortCount(); g++) {
            int peer = f.peerNode(g);
            if (f.isSwitch(f.nodeOfGlobalPort(g)) && peer != Fabric.NONE && f.isSwitch(peer)) {
                return g;
            }
        }
        throw new IllegalStateException("no inter-switch link");
    }

    /** The same entries, on another fabric with the same nodes. */
    private static ForwardingTables onFabric(ForwardingTables t, Fabric f) {
        ForwardingTables.Builder b = ForwardingTables.builder(f, t.lids());
        for (int s = 0; s < f.switchCount(); s++) {
            for (int lid = 0; lid < t.size(); lid++) {
                b.set(s, lid, t.port(s, lid));
            }
        }
        return b.build(t.engine());
    }
}
