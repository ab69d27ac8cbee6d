package org.fabriclab.routing.engine.ar;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.fabriclab.routing.engine.ArTables;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.SwitchGraph;
import org.fabriclab.routing.engine.minhop.MinHopEngine;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.topology.Topologies;
import org.junit.jupiter.api.Test;

/** DFP's detours through an intermediate group: where they are, their lane turn, and the proof that needs it. */
class DragonflyPlusGroupsTest {
    private static final String SPEC = "dragonfly-plus:p=2,leaves=4,spines=4,h=2,g=9";

    private static RoutingRequest request(Fabric f) {
        return new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS);
    }

    private static int sw(Fabric f, String name) {
        return f.switchIndex(f.nodeByName(name).orElseThrow());
    }

    /** The port of switch {@code from} cabled to switch {@code to}. */
    private static int port(Fabric f, String from, String to) {
        int node = f.nodeByName(from).orElseThrow();
        for (int p = 1; p <= f.portCount(node); p++) {
            if (f.peerNode(f.globalPort(node, p)) == f.nodeByName(to).orElseThrow()) {
                return p;
            }
        }
        throw new AssertionError(from + " has no link to " + to);
    }

    @Test
    void spinesAndLeavesGetDetoursThroughGroupsLinkedOnwards() throws Exception {
        Fabric f = Topologies.generate(SPEC);
        ForwardingTables t = new AdaptiveEngines.DragonflyPlus().route(request(f));
        ArTables ar = t.ar();
        int toG1 = t.lids().endpointLid(f.endpointOfPort(f.globalPort(f.nodeByName("G1_L0_H0").orElseThrow(), 1)));
        // G0_S0 holds G0's links to G1 and G2, and G2_S0 is linked to G1: a detour
        int s0 = sw(f, "G0_S0");
        int group = ar.group(s0, toG1);
        assertArrayEquals(sorted(port(f, "G0_S0", "G1_S0"), port(f, "G0_S0", "G2_S0")), ar.ports(s0, group));
        assertArrayEquals(new int[] {port(f, "G0_S0", "G2_S0")}, ar.detours(s0, group));
        assertEquals(port(f, "G0_S0", "G1_S0"), t.port(s0, toG1), "the static port is the minimal one");
        // a leaf: G0_S0 is minimal, the other spines reach G1 through an intermediate group
        int leaf = sw(f, "G0_L0");
        group = ar.group(leaf, toG1);
        assertEquals(4, ar.ports(leaf, group).length);
        assertArrayEquals(sorted(port(f, "G0_L0", "G0_S1"), port(f, "G0_L0", "G0_S2"), port(f, "G0_L0", "G0_S3")), ar.detours(leaf, group));
        // inside a group: every spine is minimal, no detour
        int sameGroup = t.lids().endpointLid(f.endpointOfPort(f.globalPort(f.nodeByName("G0_L1_H0").orElseThrow(), 1)));
        assertEquals(0, ar.detours(leaf, ar.group(leaf, sameGroup)).length);
        // the spines' global ports are static inputs, and global-in to global-out moves to lane 1
        assertArrayEquals(sorted(port(f, "G2_S0", "G0_S0"), port(f, "G2_S0", "G1_S0")), ar.staticInputs(sw(f, "G2_S0")));
        assertEquals(1, ar.lane(sw(f, "G2_S0"), port(f, "G2_S0", "G0_S0"), port(f, "G2_S0", "G1_S0")));
        assertEquals(0, ar.lane(sw(f, "G2_S0"), port(f, "G2_S0", "G0_S0"), port(f, "G2_S0", "G2_L0")));
        assertEquals(0, ar.staticInputs(leaf).length);
        assertEquals(2, ar.laneCount());
    }

    @Test
    void withoutTheLaneTurnTheDetoursCouldDeadlockAndTheProofSaysWhere() throws Exception {
        Fabric f = Topologies.generate(SPEC);
        RoutingRequest r = request(f);
        SwitchGraph g = new SwitchGraph(f);
        ForwardingTables lft = new MinHopEngine().route(r);
        ArTables ar = DragonflyPlusGroups.build(r, g, lft.size(), true);
        AdaptiveEngines.requireDeadlockFree(r, g, lft, ar, "ar-dfp"); // proven with the turn
        // the same groups and static inputs on one lane
        ArTables.Builder oneLane = ArTables.builder(g.switchCount(), lft.size());
        for (int s = 0; s < g.switchCount(); s++) {
            for (int lid = 1; lid < ar.size(s); lid++) {
                int grp = ar.group(s, lid);
                if (grp != 0) {
                    oneLane.set(s, lid, oneLane.group(s, ar.ports(s, grp), ar.detours(s, grp)));
                }
            }
            oneLane.staticInputs(s, ar.staticInputs(s));
        }
        RoutingException e = assertThrows(RoutingException.class,
                () -> AdaptiveEngines.requireDeadlockFree(r, g, lft, oneLane.build(), "ar-dfp"));
        assertTrue(e.getMessage().contains("cycle") && e.getMessage().contains("_S"), e.getMessage());
    }

    @Test
    void aFabricThatIsNotADragonflyPlusGetsMinimalGroupsOnly() {
        for (String spec : new String[] {"rlft:leaves=4,spines=2,hosts=2", "torus:3x3,hosts=1", "dragonfly:p=1,a=2,h=1"}) {
            Fabric f = Topologies.generate(spec);
            SwitchGraph g = new SwitchGraph(f);
            assertNull(DragonflyPlusGroups.groups(f, g), spec);
            ArTables ar = DragonflyPlusGroups.build(request(f), g, 1024, true);
            for (int s = 0; s < g.switchCount(); s++) {
                assertEquals(0, ar.staticInputs(s).length, spec);
                assertEquals(0, ar.laneTurns(s).length, spec);
                for (int grp = 1; grp <= ar.groupCount(s); grp++) {
                    assertEquals(0, ar.detours(s, grp).length, spec);
                }
            }
        }
    }

    private static int[] sorted(int... ports) {
        int[] out = ports.clone();
        Arrays.sort(out);
        return out;
    }
}
