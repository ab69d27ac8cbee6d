package org.fabriclab.routing.topology;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.FabricBuilder;

/**
 * Fat trees. The general form is the extended generalized fat tree XGFT(h; m1..mh; w1..wh)
 * (Öhring et al.): level-0 nodes are hosts; a level-i node has m_i children and w_(i+1) parents.
 * A k-ary n-tree is XGFT(n; k..k; 1, k..k). Names and port layout are those of the OpenSM peer's
 * generator, so that both sides route the very same {@code net} file: switches
 * {@code L<level>_<digits>}, hosts {@code H<digits>}; a level-i switch has ports 1..m_i down
 * (child index) and m_i+1.. up (parent index).
 */
final class FatTrees {
    /** Levels of a fat tree this tool builds (every real one has 2 to 4; the size checks below walk them pairwise). */
    static final int MAX_LEVELS = 16;

    private FatTrees() {
    }

    static Fabric kAryNTree(TopologySpec spec) {
        int k = spec.intParam("k");
        int levels = spec.intParam("levels", 3);
        spec.checkAllUsed(List.of("k", "levels"));
        TopologySpec.require(k >= 1 && levels >= 1, "fat-tree: need k >= 1 and levels >= 1");
        TopologySpec.require(levels <= MAX_LEVELS, "fat tree with " + levels + " levels: at most " + MAX_LEVELS + " are built");
        int[] m = new int[levels];
        int[] w = new int[levels];
        for (int i = 0; i < levels; i++) {
            m[i] = k;
            w[i] = i == 0 ? 1 : k;
        }
        checkSize(m, w);
        return xgft(spec.text(), m, w);
    }

    static Fabric xgft(TopologySpec spec) {
        int[] m = spec.listParam("m");
        int[] w = spec.listParam("w");
        spec.checkAllUsed(List.of("m", "w"));
        TopologySpec.require(m != null && w != null, "xgft: parameters m and w are required, e.g. xgft:m=4x4x8,w=1x4x4");
        TopologySpec.require(m.length == w.length && m.length >= 1, "xgft: m and w need the same number of levels");
        TopologySpec.require(w[0] == 1, "xgft: w1 must be 1 (hosts have one port)");
        for (int i = 0; i < m.length; i++) {
            TopologySpec.require(m[i] >= 1 && w[i] >= 1, "xgft: every m and w must be at least 1");
        }
        checkSize(m, w);
        return xgft(spec.text(), m, w);
    }

    private static void checkSize(int[] m, int[] w) {
        TopologySpec.require(m.length <= MAX_LEVELS, "fat tree with " + m.length + " levels: at most " + MAX_LEVELS + " are built");
        long hosts = TopologySpec.product(m);
        TopologySpec.require(hosts <= 40_000, "fat tree with " + TopologySpec.size(hosts) + " hosts is larger than the 40,000 this tool builds");
        // level l has m_(l+1)..m_h x w_1..w_l switches (labels): with few hosts and wide w that is still millions
        for (int l = 1; l <= m.length; l++) {
            int[] radix = new int[m.length];
            System.arraycopy(m, l, radix, 0, m.length - l);
            System.arraycopy(w, 0, radix, m.length - l, l);
            long switches = TopologySpec.product(radix);
            TopologySpec.require(switches <= 50_000, "fat tree level " + l + " would have " + TopologySpec.size(switches)
                    + " switches, more than the 50,000 this tool builds");
        }
        for (int i = 0; i < m.length; i++) {
            int ports = m[i] + (i + 1 < m.length ? w[i + 1] : 0);
            TopologySpec.require(ports <= FabricBuilder.MAX_PORTS, "fat tree level " + (i + 1) + " switches need "
                    + ports + " ports, more than " + FabricBuilder.MAX_PORTS);
        }
    }

    /** Builds XGFT(h; m; w) with the peer generator's names and port layout. */
    static Fabric xgft(String kind, int[] m, int[] w) {
        int h = m.length;
        FabricBuilder b = new FabricBuilder(kind);
        // Labels of a level-l node: a_(l+1..h) (which child it is at each level above) then b_(1..l).
        int[][][] labels = new int[h + 1][][];
        for (int l = 0; l <= h; l++) {
            labels[l] = labels(m, w, l);
        }
        Map<String, Integer> ids = new HashMap<>();
        for (int l = 1; l <= h; l++) {
            int ports = m[l - 1] + (l < h ? w[l] : 0);
            for (int[] lab : labels[l]) {
                String name = name(l, lab);
                int id = b.addSwitch(name, ports);
                b.level(id, l);
                ids.put(name, id);
            }
        }
        for (int[] lab : labels[0]) {
            String name = name(0, lab);
            ids.put(name, b.addCa(name, 1));
        }
        for (int[] lab : labels[0]) {
            // host (a1..ah;) hangs off leaf (a2..ah; 0) on port 1 + a1
            int[] parent = new int[h];
            System.arraycopy(lab, 1, parent, 0, h - 1);
            parent[h - 1] = 0;
            b.link(ids.get(name(0, lab)), 1, ids.get(name(1, parent)), 1 + lab[0]);
        }
        for (int l = 1; l < h; l++) {
            for (int[] lab : labels[l]) {
                int child = ids.get(name(l, lab));
                for (int bb = 0; bb < w[l]; bb++) {
                    // parent of (a_(l+1..h); b_(1..l)) is (a_(l+2..h); b_(1..l), bb)
                    int[] parent = new int[lab.length];
                    System.arraycopy(lab, 1, parent, 0, lab.length - 1);
                    parent[lab.length - 1] = bb;
                    b.link(child, m[l - 1] + 1 + bb, ids.get(name(l + 1, parent)), 1 + lab[0]);
                }
            }
        }
        return b.build();
    }

    private static int[][] labels(int[] m, int[] w, int level) {
        int h = m.length;
        int[] radix = new int[h];
        for (int j = level; j < h; j++) {
            radix[j - level] = m[j];
        }
        for (int j = 0; j < level; j++) {
            radix[h - level + j] = w[j];
        }
        int count = 1;
        for (int r : radix) {
            count *= r;
        }
        int[][] out = new int[count][h];
        int[] cur = new int[h];
        for (int i = 0; i < count; i++) {
            out[i] = cur.clone();
            // odometer, last digit fastest (itertools.product order)
            for (int d = h - 1; d >= 0; d--) {
                if (++cur[d] < radix[d]) {
                    break;
                }
                cur[d] = 0;
            }
        }
        return out;
    }

    private static String name(int level, int[] lab) {
        StringBuilder sb = new StringBuilder(level == 0 ? "H" : "L" + level + "_");
        for (int i = 0; i < lab.length; i++) {
            if (i > 0) {
                sb.append('_');
            }
            sb.append(lab[i]);
        }
        return sb.toString();
    }

    /**
     * A two-level "real-life" fat tree: {@code leaves} leaf switches with {@code hosts} hosts each,
     * every leaf cabled to every one of {@code spines} spine switches by {@code parallel} links.
     * With {@code spines=0} the leaves are cabled to each other directly, {@code parallel} links per
     * pair (the two-switch test bed C1 of the InfiniBand adaptive-routing paper). Switches are
     * {@code S<i>} (spines) and {@code L<i>} (leaves), hosts {@code L<i>_H<j>}.
     */
    static Fabric rlft(TopologySpec spec) {
        int leaves = spec.intParam("leaves");
        int spines = spec.intParam("spines", 2);
        int hosts = spec.intParam("hosts", 1);
        int parallel = spec.intParam("parallel", 1);
        spec.checkAllUsed(List.of("leaves", "spines", "hosts", "parallel"));
        TopologySpec.require(leaves >= 1 && spines >= 0 && hosts >= 0 && parallel >= 1,
                "rlft: need leaves >= 1, spines >= 0, hosts >= 0, parallel >= 1");
        TopologySpec.require(spines > 0 || leaves >= 2, "rlft: with spines=0 there must be at least two leaves");
        // the ports bound every count before anything is allocated (leaves=2000000000 ran out of heap)
        long leafPorts = hosts + (long) (spines > 0 ? spines : leaves - 1) * parallel;
        TopologySpec.require(leafPorts <= FabricBuilder.MAX_PORTS, "rlft: a leaf would need " + leafPorts + " ports (hosts + "
                + (spines > 0 ? "spines" : "the other leaves") + " x parallel), more than " + FabricBuilder.MAX_PORTS);
        TopologySpec.require(spines == 0 || (long) leaves * parallel <= FabricBuilder.MAX_PORTS, "rlft: a spine would need "
                + (long) leaves * parallel + " ports (leaves x parallel), more than " + FabricBuilder.MAX_PORTS);
        return rlft(spec.text(), leaves, spines, hosts, parallel, null, null);
    }

    /** The rlft shape with optional names: {@code leafNames[i]}, {@code hostNames[i][j]}. */
    static Fabric rlft(String kind, int leaves, int spines, int hosts, int parallel,
                       String[] switchNames, String[][] hostNames) {
        FabricBuilder b = new FabricBuilder(kind);
        int uplinks = spines > 0 ? spines * parallel : (leaves - 1) * parallel;
        int[] leaf = new int[leaves];
        int[] spine = new int[spines];
        for (int i = 0; i < leaves; i++) {
            leaf[i] = b.addSwitch(switchNames != null ? switchNames[i] : "L" + i, hosts + uplinks);
            b.level(leaf[i], 1);
        }
        for (int j = 0; j < spines; j++) {
            spine[j] = b.addSwitch(switchNames != null ? switchNames[leaves + j] : "S" + j, leaves * parallel);
            b.level(spine[j], 2);
        }
        for (int i = 0; i < leaves; i++) {
            for (int k = 0; k < hosts; k++) {
                int ca = b.addCa(hostNames != null ? hostNames[i][k] : "L" + i + "_H" + k, 1);
                b.link(leaf[i], 1 + k, ca, 1);
            }
        }
        if (spines > 0) {
            for (int i = 0; i < leaves; i++) {
                for (int j = 0; j < spines; j++) {
                    for (int q = 0; q < parallel; q++) {
                        b.link(leaf[i], hosts + 1 + j * parallel + q, spine[j], 1 + i * parallel + q);
                    }
                }
            }
        } else {
            int[] next = new int[leaves];
            for (int i = 0; i < leaves; i++) {
                for (int j = i + 1; j < leaves; j++) {
                    for (int q = 0; q < parallel; q++) {
                        b.link(leaf[i], hosts + 1 + next[i]++, leaf[j], hosts + 1 + next[j]++);
                    }
                }
            }
        }
        return b.build();
    }
}
