package org.fabriclab.routing.engine.ar;

import java.util.Arrays;
import java.util.BitSet;
import org.fabriclab.routing.engine.ArTables;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.SwitchGraph;
import org.fabriclab.routing.fabric.Fabric;

/**
 * The DFP mode's groups on a Dragonfly+: every minimal port, plus the detours through an
 * intermediate group that let traffic between two groups use more global links than the few
 * joining them.
 *
 * <p>The structure is read from the cabling, so discovered fabrics qualify as generated ones do:
 * leaves are the switches with hosts, spines those without; leaf-to-spine links are local and
 * make the groups, spine-to-spine links are global. A fabric that does not fit (two leaves
 * linked, a global link inside a group) gets the minimal groups only.
 *
 * <p>A detour: source leaf, any spine of its group, a global link to spine {@code x} of an
 * intermediate group, {@code x}'s own global link to the destination group, its spine, the
 * destination leaf. Only spines {@code x} with a direct link onwards are used, so the detour
 * never turns down and up inside the intermediate group, and every turn a detour makes that a
 * minimal route never makes is global-in to global-out at {@code x}. That turn moves the packet
 * to lane 1 (a lane turn: the SL-to-VL entry of that port pair); everything else stays on lane
 * 0, and the channel dependencies run leaf-up(0), global(0), global(1), leaf-down(0): no cycle.
 * Packets arriving over a global link follow the static LFT (the switch's static input ports),
 * so {@code x} forwards a detoured packet minimally and never detours it again. The engine's
 * proof ({@link AdaptiveEngines}) checks all of this on the tables, lane by lane.
 */
final class DragonflyPlusGroups {
    private DragonflyPlusGroups() {
    }

    /** The lane a detour moves to at the intermediate spine. */
    static final int DETOUR_LANE = 1;

    /**
     * The groups for every destination switch with endpoints: minimal ports and, on a Dragonfly+
     * and with {@code detours}, detour ports, the spines' static input ports and lane turns.
     */
    static ArTables build(RoutingRequest request, SwitchGraph g, int lidSpace, boolean detours) {
        Fabric f = request.fabric();
        int n = g.switchCount();
        int[] groupOf = detours ? groups(f, g) : null;
        boolean dfPlus = groupOf != null;
        boolean[] spine = new boolean[n];
        for (int s = 0; s < n; s++) {
            spine[s] = !hasHosts(f, s);
        }
        ArTables.Builder ar = ArTables.builder(n, lidSpace);
        // per spine, the groups its global links reach
        BitSet[] reaches = new BitSet[n];
        if (dfPlus) {
            for (int s = 0; s < n; s++) {
                reaches[s] = new BitSet();
                if (!spine[s]) {
                    continue;
                }
                int[] global = new int[g.offset(s + 1) - g.offset(s)];
                int k = 0;
                for (int i = g.offset(s); i < g.offset(s + 1); i++) {
                    int t = g.neighbour(i);
                    if (spine[t]) {
                        reaches[s].set(groupOf[t]);
                        global[k++] = g.portNumber(s, i);
                    }
                }
                global = Arrays.copyOf(global, k);
                ar.staticInputs(s, global);
                for (int in : global) {
                    for (int out : global) {
                        if (in != out) {
                            ar.laneTurn(s, in, out, DETOUR_LANE);
                        }
                    }
                }
            }
        }
        AdaptiveEngines.Tree.addGroups(request, g, ar, !dfPlus ? null
                : (s, t, d) -> groupOf[s] != groupOf[d] && detourVia(s, t, groupOf[d], spine, groupOf, reaches, g));
        return ar.build();
    }

    /**
     * True if the hop from switch s to its neighbour t starts a detour to group {@code dest}: s a
     * spine and t an intermediate group's spine with a global link to {@code dest}; or s a leaf
     * and t a spine of its group with such a hop.
     */
    private static boolean detourVia(int s, int t, int dest, boolean[] spine, int[] groupOf, BitSet[] reaches, SwitchGraph g) {
        if (!spine[t]) {
            return false;
        }
        if (spine[s]) {
            return groupOf[t] != groupOf[s] && groupOf[t] != dest && reaches[t].get(dest);
        }
        for (int i = g.offset(t); i < g.offset(t + 1); i++) {
            int x = g.neighbour(i);
            if (spine[x] && groupOf[x] != groupOf[t] && groupOf[x] != dest && reaches[x].get(dest)) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasHosts(Fabric f, int s) {
        int node = f.switchNode(s);
        for (int p = 1; p <= f.portCount(node); p++) {
            int peer = f.peerNode(f.globalPort(node, p));
            if (peer != Fabric.NONE && !f.isSwitch(peer)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The group of every switch, by the local (leaf-to-spine) links; null if the fabric is not a
     * Dragonfly+: a link between two leaves, a global link inside one group, or a single group.
     */
    static int[] groups(Fabric f, SwitchGraph g) {
        int n = g.switchCount();
        boolean[] leaf = new boolean[n];
        for (int s = 0; s < n; s++) {
            leaf[s] = hasHosts(f, s);
        }
        int[] parent = new int[n];
        for (int s = 0; s < n; s++) {
            parent[s] = s;
        }
        for (int s = 0; s < n; s++) {
            for (int i = g.offset(s); i < g.offset(s + 1); i++) {
                int t = g.neighbour(i);
                if (leaf[s] && leaf[t]) {
                    return null;
                }
                if (leaf[s] != leaf[t]) {
                    parent[find(parent, s)] = find(parent, t);
                }
            }
        }
        int[] groupOf = new int[n];
        int[] number = new int[n];
        Arrays.fill(number, -1);
        int groups = 0;
        for (int s = 0; s < n; s++) {
            int r = find(parent, s);
            if (number[r] < 0) {
                number[r] = groups++;
            }
            groupOf[s] = number[r];
        }
        for (int s = 0; s < n; s++) {
            for (int i = g.offset(s); i < g.offset(s + 1); i++) {
                int t = g.neighbour(i);
                if (!leaf[s] && !leaf[t] && groupOf[s] == groupOf[t]) {
                    return null;
                }
            }
        }
        return groups < 2 ? null : groupOf;
    }

    private static int find(int[] parent, int x) {
        while (parent[x] != x) {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    }
}
