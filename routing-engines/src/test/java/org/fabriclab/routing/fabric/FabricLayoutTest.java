package org.fabriclab.routing.fabric;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.HashSet;
import java.util.Set;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

class FabricLayoutTest {
    /** A fabric as discovery builds it: names, types and cabling, none of the generator's layout. */
    private static Fabric discovered(Fabric f) {
        FabricBuilder b = new FabricBuilder(f.kind());
        for (int v = 0; v < f.nodeCount(); v++) {
            b.addNode(f.type(v), f.name(v), f.portCount(v), f.nodeGuid(v));
        }
        for (int v = 0; v < f.nodeCount(); v++) {
            for (int p = 1; p <= f.portCount(v); p++) {
                int g = f.globalPort(v, p);
                int peer = f.peerNode(g);
                if (peer != Fabric.NONE && (peer > v || (peer == v && f.peerPort(g) > p))) {
                    b.link(v, p, peer, f.peerPort(g));
                }
            }
        }
        return b.build();
    }

    private static Set<String> kinds(FabricLayout layout, Fabric f) {
        Set<String> kinds = new HashSet<>();
        for (int v = 0; v < f.nodeCount(); v++) {
            for (int p = 1; p <= f.portCount(v); p++) {
                String k = layout.linkKind(v, p);
                if (k != null) {
                    kinds.add(k);
                }
            }
        }
        return kinds;
    }

    @Test
    void aDiscoveredFatTreeHasItsLevelsBackByHopsFromTheHosts() {
        Fabric generated = Topologies.generate("fat-tree:k=4,levels=3");
        Fabric f = discovered(generated);
        FabricLayout layout = FabricLayout.of(f);
        for (int v = 0; v < f.nodeCount(); v++) {
            assertEquals(f.isSwitch(v) ? generated.level(v) : 0, layout.level(v), f.name(v));
        }
        assertEquals(Set.of("host", "leaf-spine", "spine-core"), kinds(layout, f));
    }

    @Test
    void dragonflyGroupsComeFromTheNamesAndSplitLocalFromGlobal() {
        Fabric f = discovered(Topologies.generate("dragonfly:a=4,p=2,h=2"));
        FabricLayout layout = FabricLayout.of(f);
        int g0 = f.nodeByName("G0_S0").orElseThrow();
        assertEquals(0, layout.group(g0));
        assertEquals(Set.of("host", "local", "global"), kinds(layout, f));
    }

    @Test
    void torusLinksAreNamedByTheirDimension() {
        Fabric f = discovered(Topologies.generate("torus:4x4x4"));
        FabricLayout layout = FabricLayout.of(f);
        int t = f.nodeByName("T1_2_3").orElseThrow();
        assertArrayEquals(new int[] {1, 2, 3}, layout.coordinates(t));
        assertEquals(Set.of("host", "torus-x", "torus-y", "torus-z"), kinds(layout, f));
        int host = f.endpointNode(0);
        assertNull(layout.coordinates(host));
        assertEquals(0, layout.level(host));
    }
}
