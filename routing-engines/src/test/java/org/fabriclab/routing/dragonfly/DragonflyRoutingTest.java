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
        "dragonfly:p=1,a=3,h=1,g=3", "dragonfly:p=1,a=4,h=2,trunk=2",
        // several links from one router to one group: every router two to each other group; router 0 of each group all four
        "dragonfly:p=1,a=4,h=4,g=3,trunk=8", "dragonfly:p=1,a=4,h=4,g=3,trunk=2"
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
            provenWithinBound(route(spec, a), a, spec);
        }
    }

    @ParameterizedTest
    @EnumSource(DragonflyAlgorithm.class)
    void parallelLocalLinksAreProvenToo(DragonflyAlgorithm a) throws Exception {
        Fabric f = parallelLocalLinks();
        ForwardingTables t = route(f, a, Map.of());
        DragonflyPaths.Proof p = provenWithinBound(t, a, "doubled local cables");
        // MIN: every pair of routers of a group has two links, so a path from another group has up to two choices more
        DragonflyFabric df = t.dragonfly().dragonfly();
        assertTrue(p.paths() > (long) f.switchCount() * df.groups() * df.routers(), a + ": " + p.paths());
    }

    /** The proof's checks on {@code t}; MIN follows one path per pair of routers where no router has parallel links. */
    private static DragonflyPaths.Proof provenWithinBound(ForwardingTables t, DragonflyAlgorithm a, String what) {
        DragonflyPaths.Proof p = DragonflyPaths.prove(t.dragonfly());
        assertEquals(0, p.violations(), what + " " + a + ": " + p.examples());
        assertTrue(p.deadlockFree(), what + " " + a + ": cycle " + p.cycle());
        assertTrue(p.maxHops() <= a.maxHops(), what + " " + a + ": " + p.maxHops());
        DragonflyFabric df = t.dragonfly().dragonfly();
        long pairs = (long) df.fabric().switchCount() * df.groups() * df.routers();
        boolean parallel = false;
        for (int s = 0; s < df.fabric().switchCount(); s++) {
            DragonflySwitch r = t.dragonfly().of(s);
            for (int port = 1; port <= r.ports(); port++) {
                parallel |= r.parallels(port) > 1;
            }
        }
        assertTrue(a == DragonflyAlgorithm.MIN && !parallel ? p.paths() == pairs : p.paths() >= pairs, what + " " + a + ": " + p.paths());
        // the minimal LFTs deliver every pair, and the analysis reports the proof's figures
        RouteReport r = RouteAnalyzer.analyze(t);
        assertEquals(0, r.unreachablePairs(), what + " " + a);
        assertTrue(r.deadlockFree(), what + " " + a);
        assertEquals(a.vcs(), r.virtualLanes());
        assertEquals(p.maxHops(), r.maxHops());
        assertNotNull(r.dragonfly());
        return p;
    }

    /**
     * A dragonfly of 4 groups of 3 routers (one host, one global link each) whose every two routers
     * of a group are cabled twice, as a topology file with parallel cables has them.
     */
    static Fabric parallelLocalLinks() {
        Fabric plain = Topologies.generate("dragonfly:p=1,a=3,h=1,g=4");
        FabricBuilder b = new FabricBuilder("doubled locals");
        int[] node = new int[plain.nodeCount()];
        for (int n = 0; n < plain.nodeCount(); n++) {
            node[n] = plain.isSwitch(n) ? b.addSwitch(plain.name(n), plain.portCount(n) + 2) : b.addCa(plain.name(n), 1);
            b.group(node[n], plain.group(n));
        }
        for (int n = 0; n < plain.nodeCount(); n++) {
            for (int p = 1; p <= plain.portCount(n); p++) {
                int g = plain.globalPort(n, p);
                int peer = plain.peerNode(g);
                if (peer != Fabric.NONE && (n < peer || n == peer && p < plain.peerPort(g))) {
                    b.link(node[n], p, node[peer], plain.peerPort(g));
                    if (plain.isSwitch(peer) && plain.group(peer) == plain.group(n)) {
                        // the second cable: on the two ports past the generator's, local port k's twin is k + ports
                        b.link(node[n], plain.portCount(n) + p, node[peer], plain.portCount(peer) + plain.peerPort(g));
                    }
                }
            }
        }
        return b.build();
    }

    @Test
    void aRouterKnowsItsParallelLinksAndItsGroupTakesThemAsGatewaysByLink() throws Exception {
        // trunk=3 with g=3, h=4: group 0's links to group 1 are its channels 0, 2, 4: two on router 0, one on router 1
        ForwardingTables t = route("dragonfly:p=1,a=4,h=4,g=3,trunk=3", DragonflyAlgorithm.MIN);
        DragonflyFabric df = t.dragonfly().dragonfly();
        DragonflySwitch r0 = t.dragonfly().of(df.router(0, 0));
        int first = r0.globalPort(1);
        assertEquals(2, r0.parallels(first));
        assertEquals(first, r0.parallel(first, 0));
        int second = r0.parallel(first, 1);
        assertTrue(second > first && r0.kind(second) == DragonflySwitch.GLOBAL && r0.peer(second) == 1);
        assertTrue(r0.sameWay(first, second));
        assertEquals(1, r0.parallels(r0.localPort(1)));
        // routers 2 and 3 hold no link to group 1: they take the three links in turn, so both go by router 0's two
        assertEquals(0, t.dragonfly().of(df.router(0, 2)).gateway(1));
        assertEquals(0, t.dragonfly().of(df.router(0, 3)).gateway(1));
        // the minimal LFT of router 0 spreads the group's LIDs over both links
        java.util.Set<Integer> ports = new java.util.HashSet<>();
        for (int i = 0; i < df.routers(); i++) {
            ports.add(t.port(df.router(0, 0), t.lids().switchLid(df.router(1, i))));
        }
        assertEquals(java.util.Set.of(first, second), ports);
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
