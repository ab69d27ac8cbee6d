package org.fabriclab.routing.dragonfly;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.fabriclab.routing.analysis.RouteAnalyzer;
import org.fabriclab.routing.analysis.RouteReport;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.dragonfly.DragonflyEngine;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricBuilder;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Dragonfly engines and the proof of their rules: every algorithm reaches every router within
 * its hop bound and is deadlock-free on its VCs on dragonflies of several shapes and both global
 * arrangements; the proof finds the cycle of minimal routing on one VC; the Q-table seed is the
 * paper's; a fabric that is no Dragonfly is refused with the reason.
 */
class DragonflyRoutingTest {
    private static final String[] SHAPES = {
        "dragonfly:p=2,a=4,h=2", "dragonfly:p=1,a=2,h=1", "dragonfly:p=2,a=3,h=2,g=5", "dragonfly:p=2,a=4,h=2,arrangement=relative",
        "dragonfly:p=1,a=3,h=1,g=3", "dragonfly:p=1,a=4,h=2,trunk=2"
    };

    static ForwardingTables route(String spec, DragonflyAlgorithm a) throws RoutingException {
        return route(Topologies.generate(spec), a, Map.of());
    }

    static ForwardingTables route(Fabric f, DragonflyAlgorithm a, Map<String, String> params) throws RoutingException {
        return new DragonflyEngine(a).route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS.withParams(params)));
    }

    @ParameterizedTest
    @EnumSource(DragonflyAlgorithm.class)
    void everyAlgorithmReachesEveryRouterWithinItsBoundAndIsDeadlockFree(DragonflyAlgorithm a) throws Exception {
        for (String spec : SHAPES) {
            ForwardingTables t = route(spec, a);
            DragonflyPaths.Proof p = DragonflyPaths.prove(t.dragonfly());
            assertEquals(0, p.violations(), spec + " " + a + ": " + p.examples());
            assertTrue(p.deadlockFree(), spec + " " + a + ": cycle " + p.cycle());
            assertTrue(p.maxHops() <= a.maxHops(), spec + " " + a + ": " + p.maxHops());
            DragonflyFabric df = t.dragonfly().dragonfly();
            // one path per pair of routers for MIN, more where the algorithm has choices
            long pairs = (long) df.fabric().switchCount() * df.groups() * df.routers();
            assertTrue(a == DragonflyAlgorithm.MIN ? p.paths() == pairs : p.paths() >= pairs, spec + " " + a + ": " + p.paths());
            // the minimal LFTs deliver every pair, and the analysis reports the proof's figures
            RouteReport r = RouteAnalyzer.analyze(t);
            assertEquals(0, r.unreachablePairs(), spec + " " + a);
            assertTrue(r.deadlockFree(), spec + " " + a);
            assertEquals(a.vcs(), r.virtualLanes());
            assertEquals(p.maxHops(), r.maxHops());
            assertNotNull(r.dragonfly());
        }
    }

    @ParameterizedTest
    @EnumSource(DragonflyAlgorithm.class)
    void onALargeEnoughDragonflyTheLongestPathIsTheAlgorithmsBound(DragonflyAlgorithm a) throws Exception {
        DragonflyPaths.Proof p = DragonflyPaths.prove(route("dragonfly:p=2,a=4,h=2", a).dragonfly());
        assertEquals(a.maxHops(), p.maxHops(), a.key());
    }

    @Test
    void minimalRoutingOnOneVirtualChannelDeadlocksAndTheProofShowsTheCycle() throws Exception {
        ForwardingTables t = route("dragonfly:p=2,a=4,h=2", DragonflyAlgorithm.MIN);
        DragonflyPaths.Proof p = DragonflyPaths.prove(t.dragonfly(), (alg, r, s, d, hops, st) -> 0);
        assertFalse(p.deadlockFree());
        assertTrue(p.cycle().size() >= 3, p.cycle().toString());
        // and VALn with VALg's three VCs (no VC for the local hop to the intermediate router) deadlocks too
        ForwardingTables v = route("dragonfly:p=2,a=4,h=2", DragonflyAlgorithm.VALN);
        DragonflyPaths.Proof q = DragonflyPaths.prove(v.dragonfly(), (alg, r, s, d, hops, st) -> {
            int vc = DragonflyRules.vc(alg, r, s, d, hops, st);
            return vc >= 2 ? vc - 1 : 0;
        });
        assertFalse(q.deadlockFree(), "VALn on three VCs");
    }

    @Test
    void theQTableSeedIsTheNoCongestionTimeToTheDestinationGroup() throws Exception {
        Fabric f = Topologies.generate("paper:qadaptive-1056");
        ForwardingTables t = route(f, DragonflyAlgorithm.Q_ADAPTIVE, Map.of());
        DragonflySwitch r = t.dragonfly().of(0);
        assertEquals(33 * 4, r.rows());
        assertEquals(7 + 4, r.columns());
        // 128-byte packets at 4 GB/s take 32 ns on the wire; local links 30 ns, global 300 ns
        double global = 32 + 300;
        double local = 32 + 30;
        float[] q = r.qSeed();
        for (int group = 1; group < 33; group++) {
            for (int c = 0; c < r.columns(); c++) {
                int p = r.portOfColumn(c);
                boolean direct = r.kind(p) == DragonflySwitch.GLOBAL && r.peer(p) == group;
                assertEquals(direct ? global : global + local, q[r.row(group, 3) * r.columns() + c], 1e-3, "group " + group + " col " + c);
            }
        }
    }

    @Test
    void theAbsoluteArrangementIsSstAndBookSims() throws Exception {
        // global port j of router i in group G reaches group t = i*h + j if t < G, else t + 1
        Fabric f = Topologies.generate("paper:qadaptive-1056");
        DragonflyFabric df = DragonflyFabric.of(f);
        for (int s = 0; s < f.switchCount(); s++) {
            int node = f.switchNode(s);
            for (int j = 0; j < 4; j++) {
                int port = 8 + j; // ports 1..7 local, 8..11 global
                int peer = f.switchIndex(f.peerNode(f.globalPort(node, port)));
                int n = df.index(s) * 4 + j;
                assertEquals(n < df.group(s) ? n : n + 1, df.group(peer), f.name(node) + " port " + port);
            }
        }
        assertEquals(30, f.linkDelayNs(f.globalPort(f.switchNode(0), 1)));
        assertEquals(300, f.linkDelayNs(f.globalPort(f.switchNode(0), 8)));
        assertEquals(10, f.linkDelayNs(f.globalPort(f.switchNode(0), 12)));
    }

    @Test
    void theRelativeArrangementReachesGroupOwnPlusChannelPlusOne() {
        Fabric f = Topologies.generate("dragonfly:p=1,a=4,h=2,arrangement=relative");
        DragonflyFabric df = DragonflyFabric.of(f);
        for (int s = 0; s < f.switchCount(); s++) {
            int node = f.switchNode(s);
            for (int j = 0; j < 2; j++) {
                int peer = f.switchIndex(f.peerNode(f.globalPort(node, 4 + j)));
                assertEquals((df.group(s) + df.index(s) * 2 + j + 1) % 9, df.group(peer));
            }
        }
        assertThrows(IllegalArgumentException.class, () -> Topologies.generate("dragonfly:p=1,a=4,h=2,g=5,arrangement=relative"));
        assertThrows(IllegalArgumentException.class, () -> Topologies.generate("dragonfly:p=1,a=4,h=2,arrangement=circulant"));
    }

    @Test
    void groupsAreFoundFromNamesOrCablingWhenTheFabricDoesNotSay() {
        Fabric generated = Topologies.generate("dragonfly:p=1,a=3,h=1,g=4");
        FabricBuilder b = FabricBuilder.copyOf(generated);
        for (int n = 0; n < generated.nodeCount(); n++) {
            b.group(n, Fabric.NONE);
        }
        Fabric named = b.build();
        DragonflyFabric byName = DragonflyFabric.of(named);
        DragonflyFabric byGenerator = DragonflyFabric.of(generated);
        for (int s = 0; s < generated.switchCount(); s++) {
            assertEquals(byGenerator.group(s), byName.group(s));
        }
    }

    @Test
    void aFabricThatIsNoDragonflyIsRefusedWithTheReason() {
        RoutingException e = assertThrows(RoutingException.class, () -> route("fat-tree:k=4,levels=2", DragonflyAlgorithm.MIN));
        assertTrue(e.getMessage().contains("not a dragonfly"), e.getMessage());
        RoutingException bad = assertThrows(RoutingException.class,
                () -> route(Topologies.generate("dragonfly:p=1,a=2,h=1"), DragonflyAlgorithm.Q_ADAPTIVE, Map.of("alpha", "2")));
        assertTrue(bad.getMessage().contains("alpha=2.0 is outside 0..1"), bad.getMessage());
    }

    @Test
    void theSameSeedGivesTheSameTables() throws Exception {
        ForwardingTables a = route("dragonfly:p=2,a=4,h=2", DragonflyAlgorithm.Q_ADAPTIVE);
        ForwardingTables b = route("dragonfly:p=2,a=4,h=2", DragonflyAlgorithm.Q_ADAPTIVE);
        assertTrue(a.sameEntries(b));
        for (int s = 0; s < a.fabric().switchCount(); s++) {
            assertEquals(a.dragonfly().of(s), b.dragonfly().of(s));
        }
    }
}
