package org.fabriclab.routing.topology;

import java.util.List;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricBuilder;

/**
 * The test beds of the papers this project reproduces, by name ({@code paper:NAME}), with the
 * papers' node names: Rocher-González et al., "Adaptive Routing in InfiniBand Hardware"
 * ({@code ib-ar-*}); Kang et al., "Q-adaptive: A Multi-Agent Reinforcement Learning Based Routing
 * on Dragonfly Network" ({@code qadaptive-*}); Mukosey, Semenov and Tretiakov, "Optimized Graph
 * Based Routing Algorithm for the Angara Interconnect" ({@code angara-desmos}).
 *
 * <ul>
 *   <li>{@code ib-ar-c1}: configuration C1 of the InfiniBand adaptive-routing paper: switches SW1 and
 *       SW2 joined by two links (L1 on port 4, L2 on port 5), hosts A, B, C on SW1 and D, E, F on SW2.
 *   <li>{@code ib-ar-c2}: configuration C2: a two-level fat tree of four leaves and two roots, three
 *       hosts per leaf and two uplinks (3:2 oversubscription). Nodes are named, and given the LIDs,
 *       the paper numbers them by: hosts 1, 2, 3 on leaf 8; 4, 5 on leaf 7; 37, 39 on leaf 14; 28, 31
 *       on the fourth leaf; 13 on leaf 7 (scenario 6); root 6. The paper does not name the rest; ours
 *       are leaf 30, root 12 and hosts 38 (leaf 14) and 32 (leaf 30).
 *   <li>{@code qadaptive-1056}, {@code qadaptive-2550}: Table 1 of the Q-adaptive routing paper,
 *       dragonflies p=4,a=8,h=4 (33 groups) and p=5,a=10,h=5 (51 groups), global links in the
 *       absolute arrangement, with the paper's cable delays ({@link #QADAPTIVE_LINKS}). Its link rate
 *       (4 GB/s), packets (128 bytes) and buffers (20 packets per VC) are the simulation's options.
 *   <li>{@code angara-desmos}: the Desmos cluster of the Angara paper, a 4x2x2x2 torus with one host per switch.
 * </ul>
 */
final class PaperTopologies {
    /**
     * The Q-adaptive paper's cables (section 5.1): local links 30 ns, global links 300 ns (the 1:10
     * ratio of the Dragonfly literature), host links 10 ns (its simulator's configuration).
     */
    static final String QADAPTIVE_LINKS = "local-latency=30ns,global-latency=300ns,host-latency=10ns";
    static final List<String> NAMES = List.of("ib-ar-c1", "ib-ar-c2", "qadaptive-1056", "qadaptive-2550", "angara-desmos");

    private PaperTopologies() {
    }

    static Fabric build(TopologySpec spec) {
        String name = spec.positional();
        spec.checkAllUsed(List.of());
        if (name == null) {
            throw new IllegalArgumentException("paper: name a test bed, one of " + String.join(", ", NAMES));
        }
        String kind = spec.text();
        switch (name) {
            case "ib-ar-c1":
                return FatTrees.rlft(kind, 2, 0, 3, 2, new String[] {"SW1", "SW2"},
                        new String[][] {{"A", "B", "C"}, {"D", "E", "F"}});
            case "ib-ar-c2":
                return c2(kind);
            case "qadaptive-1056":
                return Dragonflies.dragonfly(TopologySpec.parse("dragonfly:p=4,a=8,h=4,g=33," + QADAPTIVE_LINKS), kind);
            case "qadaptive-2550":
                return Dragonflies.dragonfly(TopologySpec.parse("dragonfly:p=5,a=10,h=5,g=51," + QADAPTIVE_LINKS), kind);
            case "angara-desmos":
                return Tori.build(kind, new int[] {4, 2, 2, 2}, 1, false);
            default:
                throw new IllegalArgumentException("paper: unknown test bed '" + name + "'; known: " + String.join(", ", NAMES));
        }
    }

    private static Fabric c2(String kind) {
        String[] switches = {"SW8", "SW7", "SW14", "SW30", "SW6", "SW12"};
        String[][] hosts = {{"1", "2", "3"}, {"4", "5", "13"}, {"37", "38", "39"}, {"28", "31", "32"}};
        Fabric f = FatTrees.rlft(kind, 4, 2, 3, 1, switches, hosts);
        FabricBuilder b = FabricBuilder.copyOf(f);
        for (int n = 0; n < f.nodeCount(); n++) {
            String name = f.name(n);
            b.preferredLid(n, Integer.parseInt(name.startsWith("SW") ? name.substring(2) : name));
        }
        return b.build();
    }
}
