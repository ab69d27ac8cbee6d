package org.fabriclab.routing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.fabriclab.routing.engine.ArTables;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.SwitchGraph;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.RoutingEngines;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/** The Adaptive Routing Manager's group modes: LAG groups parallel links, TREE groups every least-hop port. */
class ArEnginesTest {
    private static ForwardingTables route(String engine, Fabric f) throws RoutingException {
        return RoutingEngines.create(engine).route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS));
    }

    @Test
    void treeGroupsAreTheLeastHopPortsAndHoldTheStaticPort() throws Exception {
        Fabric f = Topologies.generate("fat-tree:k=4,levels=3");
        ForwardingTables t = route("ar-tree", f);
        ArTables ar = t.ar();
        SwitchGraph g = new SwitchGraph(f);
        int[] dist = new int[g.switchCount()];
        int[] queue = new int[g.switchCount()];
        int grouped = 0;
        for (int e = 0; e < f.endpointCount(); e++) {
            int lid = t.lids().endpointLid(e);
            int d = f.switchIndex(f.endpointSwitch(e));
            g.bfs(d, dist, queue);
            for (int s = 0; s < g.switchCount(); s++) {
                int group = ar.group(s, lid);
                int expected = 0;
                for (int i = g.offset(s); i < g.offset(s + 1); i++) {
                    expected += s != d && dist[g.neighbour(i)] == dist[s] - 1 ? 1 : 0;
                }
                if (expected < 2) {
                    assertEquals(0, group, "no choice, no group at switch " + s + " for LID " + lid);
                    continue;
                }
                grouped++;
                int[] ports = ar.ports(s, group);
                assertEquals(expected, ports.length);
                int staticPort = t.port(s, lid);
                assertTrue(Arrays.stream(ports).anyMatch(p -> p == staticPort), "the static port is in the group");
            }
        }
        assertTrue(grouped > 0);
        // a leaf of the 4-ary 3-tree reaches a host in another pod over all four up ports
        assertEquals(4, ar.ports(f.switchIndex(f.endpointSwitch(0)), ar.group(f.switchIndex(f.endpointSwitch(0)),
                t.lids().endpointLid(f.endpointCount() - 1))).length);
    }

    @Test
    void treeGroupsRefuseAFabricThatIsNoTree() {
        RoutingException e = assertThrows(RoutingException.class, () -> route("ar-tree", Topologies.generate("torus:4x4,hosts=1")));
        assertTrue(e.getMessage().contains("fat tree or quasi fat tree"), e.getMessage());
    }

    @Test
    void lagGroupsAreParallelLinks() throws Exception {
        Fabric f = Topologies.generate("rlft:leaves=2,spines=1,hosts=2,parallel=2");
        ForwardingTables t = route("ar-lag", f);
        ArTables ar = t.ar();
        int leaf = f.switchIndex(f.endpointSwitch(0));
        int remote = t.lids().endpointLid(f.endpointCount() - 1);
        int group = ar.group(leaf, remote);
        assertTrue(group > 0, "the leaf reaches the spine over two parallel links");
        int[] ports = ar.ports(leaf, group);
        assertEquals(2, ports.length);
        int staticPort = t.port(leaf, remote);
        assertTrue(Arrays.stream(ports).anyMatch(p -> p == staticPort));
        // a host on the same leaf: its port is not aggregated
        assertEquals(0, ar.group(leaf, t.lids().endpointLid(1)));
        // minhop's LFT, unchanged
        ForwardingTables minhop = route("minhop", f);
        for (int s = 0; s < f.switchCount(); s++) {
            assertArrayEquals(minhop.table(s), t.table(s));
        }
    }

    /**
     * DFP's groups on a Dragonfly+ (one global link per pair of groups): a leaf reaches another
     * leaf of its group through every spine, a remote group minimally only through the spine that
     * has the global link to it; every group port lies on a minimal path or is a detour one hop
     * longer, and the groups are proven deadlock-free.
     */
    @Test
    void dragonflyPlusGroupsAreTheMinimalPorts() throws Exception {
        Fabric f = Topologies.generate("dragonfly-plus:p=2,leaves=2,spines=2,h=2,g=3");
        ForwardingTables t = route("ar-dfp", f);
        ArTables ar = t.ar();
        SwitchGraph g = new SwitchGraph(f);
        int[] dist = new int[g.switchCount()];
        int[] queue = new int[g.switchCount()];
        int leafGroups = 0;
        for (int e = 0; e < f.endpointCount(); e++) {
            int lid = t.lids().endpointLid(e);
            g.bfs(f.switchIndex(f.endpointSwitch(e)), dist, queue);
            for (int s = 0; s < g.switchCount(); s++) {
                int group = ar.group(s, lid);
                if (group == 0) {
                    continue;
                }
                int[] detours = ar.detours(s, group);
                for (int port : ar.ports(s, group)) {
                    int next = f.peerNode(f.globalPort(f.switchNode(s), port));
                    if (Arrays.binarySearch(detours, port) >= 0) {
                        assertEquals(dist[s], dist[f.switchIndex(next)], "a detour is one hop longer");
                    } else {
                        assertEquals(dist[s] - 1, dist[f.switchIndex(next)], "every other group port is on a minimal path");
                    }
                }
                leafGroups += f.name(f.switchNode(s)).contains("_L") ? 1 : 0;
            }
        }
        assertTrue(leafGroups > 0, "leaves spread over the spines");
        int leaf = f.switchIndex(f.nodeByName("G0_L0").orElseThrow());
        int sameGroup = t.lids().endpointLid(f.endpointOfPort(f.globalPort(f.nodeByName("G0_L1_H0").orElseThrow(), 1)));
        assertEquals(2, ar.ports(leaf, ar.group(leaf, sameGroup)).length, "G0_L1 is reached through both spines of G0");
        int remote = t.lids().endpointLid(f.endpointCount() - 1); // a host of group 2
        assertEquals(0, ar.group(leaf, remote), "one spine of G0 has the global link to G2: no choice");
        // the largest group count the generator makes (every spine's global ports used): still proven
        assertTrue(route("ar-dfp", Topologies.generate("dragonfly-plus:p=2,leaves=4,spines=4,h=2")).ar().groupCount(0) > 0);
    }

    @Test
    void dragonflyPlusGroupsRefuseAFabricWhereTheyCouldDeadlock() {
        RoutingException e = assertThrows(RoutingException.class, () -> route("ar-dfp", Topologies.generate("torus:4x4,hosts=1")));
        assertTrue(e.getMessage().contains("could deadlock") && e.getMessage().contains("->"), e.getMessage());
    }

    @Test
    void theEnginesTablesAreConsistentAndABrokenGroupIsNamed() throws Exception {
        for (String spec : new String[] {"fat-tree:k=4,levels=3", "rlft:leaves=2,spines=1,hosts=2,parallel=2", "dragonfly-plus:p=2,leaves=2,spines=2,h=2"}) {
            Fabric f = Topologies.generate(spec);
            for (String engine : new String[] {"ar-lag", "ar-tree", "ar-dfp"}) {
                ForwardingTables t;
                try {
                    t = route(engine, f);
                } catch (RoutingException e) {
                    continue; // ar-tree refuses a Dragonfly+
                }
                assertTrue(ArTables.problems(t, 5).isEmpty(), engine + " on " + spec + ": " + ArTables.problems(t, 5));
            }
        }
        // a group that leaves out the static port: named
        Fabric f = Topologies.generate("rlft:leaves=2,spines=1,hosts=2,parallel=2");
        ForwardingTables t = route("ar-lag", f);
        int leaf = f.switchIndex(f.endpointSwitch(0));
        int remote = t.lids().endpointLid(f.endpointCount() - 1);
        int staticPort = t.port(leaf, remote);
        ArTables.Builder b = ArTables.builder(f.switchCount(), t.size());
        int other = Arrays.stream(t.ar().ports(leaf, t.ar().group(leaf, remote))).filter(p -> p != staticPort).findFirst().orElseThrow();
        b.set(leaf, remote, b.group(leaf, new int[] {other}));
        List<String> problems = ArTables.problems(t.withAr(b.build(), "broken"), 5);
        assertEquals(1, problems.size(), problems.toString());
        assertTrue(problems.get(0).contains("static port " + staticPort + " outside its AR group"), problems.get(0));
    }
}
