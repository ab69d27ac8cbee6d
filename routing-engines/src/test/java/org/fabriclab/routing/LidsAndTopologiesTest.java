package org.fabriclab.routing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.StringReader;
import java.io.StringWriter;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.NodeSet;
import org.fabriclab.routing.fabric.NodeSetAccess;
import org.fabriclab.routing.format.Guid2LidFile;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.lid.LidAssignment;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** LID assignment, the generators' shapes, topology spec errors, and node sets. */
class LidsAndTopologiesTest {
    @Test
    void lidsAreDeterministicUniqueAndSurviveARestartThroughGuid2Lid() throws Exception {
        Fabric f = Topologies.generate("fat-tree:k=4,levels=2");
        LidAssignment a = LidAssigner.assign(f);
        assertEquals(f.switchCount() + f.endpointCount(), a.maxLid());
        for (int lid = 1; lid <= a.maxLid(); lid++) {
            assertTrue(a.inUse(lid));
        }
        StringWriter w = new StringWriter();
        Guid2LidFile.write(a.byPortGuid(f), w);
        Map<Long, Integer> saved = Guid2LidFile.read(new StringReader(w.toString()), "guid2lid").lids();
        // the same fabric with a link cut keeps every LID it had
        Fabric cut = f.withoutLinks(f.globalPort(f.switchNode(0), 5));
        LidAssignment b = LidAssigner.assign(cut, saved);
        for (int s = 0; s < f.switchCount(); s++) {
            assertEquals(a.switchLid(s), b.switchLid(s));
        }
        assertEquals(a.byPortGuid(f), b.byPortGuid(cut));
    }

    @Test
    void paperC2HasThePapersLids() {
        Fabric f = Topologies.generate("paper:ib-ar-c2");
        LidAssignment lids = LidAssigner.assign(f);
        for (String host : new String[] {"1", "4", "5", "28", "31", "37", "39"}) {
            int node = f.nodeByName(host).orElseThrow();
            assertEquals(Integer.parseInt(host), lids.lidOf(f, node, 1), host);
        }
        assertEquals(7, lids.lidOf(f, f.nodeByName("SW7").orElseThrow(), 0));
        int four = f.nodeByName("4").orElseThrow();
        assertEquals("SW7", f.name(f.peerNode(f.globalPort(four, 1))));
        assertEquals(6, f.switchCount());
        assertEquals(12, f.caCount());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "fat-tree:k=18,levels=3|972|5832|17496",
        "rlft:leaves=36,spines=18,hosts=18|54|648|1296",
        "paper:ib-ar-c1|2|6|8",
        "torus:10x10x10,hosts=2|1000|2000|5000",
        "torus:4x2x2x2|32|32|112",
        "mesh:4x4|16|16|40",
        "paper:qadaptive-1056|264|1056|2508",
        "paper:qadaptive-2550|510|2550|6120",
        "dragonfly-plus:p=2,leaves=2,spines=2,h=2,g=5|20|20|50",
        "xgft:m=2x3,w=1x2|5|6|12"})
    void generatorsBuildTheExpectedShape(String spec, int switches, int hosts, int links) {
        Fabric f = Topologies.generate(spec);
        assertEquals(switches, f.switchCount(), "switches");
        assertEquals(hosts, f.caCount(), "hosts");
        assertEquals(links, f.linkCount(), "links");
    }

    @Test
    void dragonflyHasOneGlobalLinkBetweenEveryPairOfGroups() {
        assertLinksBetweenGroups(Topologies.generate("dragonfly:p=1,a=4,h=2"), 9, 1);
    }

    @Test
    void aTrunkedDragonflyHasItsLinksBetweenEveryPairOfGroupsOnDifferentRouters() {
        Fabric f = Topologies.generate("dragonfly:p=1,a=4,h=2,trunk=2");
        assertLinksBetweenGroups(f, 5, 2);
        for (int n = 0; n < f.nodeCount(); n++) {
            if (!f.isSwitch(n)) {
                continue;
            }
            Set<Integer> reached = new HashSet<>();
            for (int p = 1; p <= f.portCount(n); p++) {
                int peer = f.peerNode(f.globalPort(n, p));
                if (peer != Fabric.NONE && f.isSwitch(peer) && f.group(peer) != f.group(n)) {
                    assertTrue(reached.add(f.group(peer)), f.name(n) + " has two links to group " + f.group(peer));
                }
            }
            assertEquals(2, reached.size(), f.name(n) + "'s global ports all used");
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Topologies.generate("dragonfly:p=1,a=4,h=2,trunk=2,g=6"));
        assertTrue(e.getMessage().contains("(g-1)*trunk <= a*h = 8"), e.getMessage());
    }

    /** Every pair of the {@code g} groups of {@code f} joined by {@code links} global links, each way. */
    private static void assertLinksBetweenGroups(Fabric f, int g, int links) {
        int[][] between = new int[g][g];
        for (int gp = 0; gp < f.globalPortCount(); gp++) {
            if (f.isInterSwitch(gp)) {
                int a = f.group(f.nodeOfGlobalPort(gp));
                int b = f.group(f.peerNode(gp));
                if (a != b) {
                    between[a][b]++;
                }
            }
        }
        for (int a = 0; a < g; a++) {
            for (int b = 0; b < g; b++) {
                assertEquals(a == b ? 0 : links, between[a][b], a + "->" + b);
            }
        }
    }

    @Test
    void torusDimensionOfTwoIsOneLink() {
        Fabric f = Topologies.generate("torus:2x3,hosts=0");
        // dimension 0 (size 2): 3 single links; dimension 1 (ring of 3): 2 x 3 links
        assertEquals(3 + 6, f.linkCount());
        assertEquals(2, f.coordinates(f.nodeByName("T1_2").orElseThrow()).orElseThrow().length);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '~', value = {
        "fat-tree:k=4,levls=3|unknown parameter 'levls'",
        "fat-tree:levels=3|parameter 'k' is required",
        "torus:4xq|not a list of whole numbers",
        "dragonfly:p=2,a=4,h=2,g=99|need 2 <= g <= a*h+1 = 9",
        "hypercube:n=4|unknown topology kind 'hypercube'",
        "nocolon|expected KIND:PARAMS",
        "paper:nope|unknown test bed 'nope'",
        // sizes whose product wraps a long (4^99, 65536^4 = 2^64) were 0-switch fabrics, routed with exit 0
        "fat-tree:k=4,levels=99|fat tree with 99 levels: at most 16 are built",
        "fat-tree:k=4,levels=2000000000|at most 16 are built",
        "fat-tree:k=4,levels=16|fat tree with 4294967296 hosts is larger than the 40,000",
        "xgft:m=254x254x254x254x254x254x254x254x254x254x254x254x254x254x254x254,w=1x1x1x1x1x1x1x1x1x1x1x1x1x1x1x1|fat tree with more than 2^63 hosts",
        "xgft:m=1x1x1x1x1x1,w=1x100x100x100x100x100|fat tree level 4 would have 1000000 switches, more than the 50,000",
        "torus:65536x65536x65536x65536|a torus of more than 2^63 switches is larger than the 50,000",
        "mesh:1000x1000|a torus of 1000000 switches is larger",
        "dragonfly:p=1,a=100000,h=100000|dragonfly switches would need 200000 ports, more than 254",
        "dragonfly:p=1,a=0,h=2|need p >= 0, a >= 1, h >= 1",
        "rlft:leaves=2000000000|rlft: a spine would need 2000000000 ports (leaves x parallel), more than 254",
        "rlft:leaves=2,parallel=2000000000|rlft: a leaf would need 4000000001 ports"})
    void badSpecsSayWhatIsWrong(String spec, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Topologies.generate(spec));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void nodeSetsExpandRangesAndRefuseSwitchesAndUnknownNames() {
        Fabric f = Topologies.generate("fat-tree:k=4,levels=2");
        BitSet s = NodeSet.parse(f, "H[0-2]_0,H3_[1-2]");
        assertEquals(5, s.cardinality());
        assertTrue(s.get(f.endpointOfPort(f.globalPort(f.nodeByName("H3_2").orElseThrow(), 1))));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodeSet.parse(f, "H9_9"))
                .getMessage().contains("no node named \"H9_9\""));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> NodeSet.parse(f, "L1_0_0"))
                .getMessage().contains("is a switch"));
        assertEquals(List.of("n01", "n02", "n10"), NodeSetAccess.expand("n[01-02,10]"));
    }
}
