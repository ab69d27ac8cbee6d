package org.fabriclab.routing.engine.ar;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabriclab.routing.engine.ArTables;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingEngine;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.SwitchGraph;
import org.fabriclab.routing.engine.minhop.MinHopEngine;
import org.fabriclab.routing.fabric.Fabric;

/**
 * The group modes of InfiniBand's Adaptive Routing Manager, as routing engines: each computes the
 * static LFT as {@code minhop} does (the fallback a switch uses when AR is off or a group has no
 * usable port) and, beside it, AR groups and the AR LFT.
 * <ul>
 *   <li>{@code ar-lag}: a switch's ports cabled to the same neighbour switch form a group (link
 *       aggregation); a LID whose static port is in such a group may take any of its ports;
 *   <li>{@code ar-tree}: on fat trees and quasi fat trees, every port of a switch on a least-hop
 *       path towards the destination's switch is in the LID's group (up ports on the way up,
 *       parallel links on the way down);
 *   <li>{@code ar-dfp}: on Dragonfly+ (groups of leaves and spines, global links between spines),
 *       every port on a minimal path: the spines with a global link to the destination's group,
 *       the global links to it, the spines towards a leaf of the own group, parallel links. The
 *       minimal groups only: the DFP mode's non-minimal detours through an intermediate group need
 *       a lane change our switches' SL-to-VL map cannot make (it maps the SL, not the lane a
 *       packet came in on). Deadlock freedom is proven, not assumed: the engine builds the
 *       channel dependency graph of every path the groups allow and refuses a fabric where it
 *       has a cycle, naming the cycle.
 * </ul>
 */
public final class AdaptiveEngines {
    private AdaptiveEngines() {
    }

    /** {@code ar-lag}: groups of parallel links. */
    public static final class Lag implements RoutingEngine {
        public static final String NAME = "ar-lag";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public ForwardingTables route(RoutingRequest request) {
            ForwardingTables lft = new MinHopEngine().route(request);
            Fabric f = request.fabric();
            SwitchGraph g = new SwitchGraph(f);
            ArTables.Builder ar = ArTables.builder(g.switchCount(), lft.size());
            for (int s = 0; s < g.switchCount(); s++) {
                // the group of each port: the ports to the same neighbour, when there are two or more
                int[] groupOfPort = new int[f.portCount(f.switchNode(s)) + 1];
                for (int i = g.offset(s); i < g.offset(s + 1); i++) {
                    List<Integer> same = new ArrayList<>();
                    for (int j = g.offset(s); j < g.offset(s + 1); j++) {
                        if (g.neighbour(j) == g.neighbour(i)) {
                            same.add(g.portNumber(s, j));
                        }
                    }
                    if (same.size() > 1) {
                        groupOfPort[g.portNumber(s, i)] = ar.group(s, same.stream().mapToInt(Integer::intValue).toArray());
                    }
                }
                for (int lid = 1; lid < lft.size(); lid++) {
                    int p = lft.port(s, lid);
                    if (p > 0 && p < groupOfPort.length && groupOfPort[p] != 0) {
                        ar.set(s, lid, groupOfPort[p]);
                    }
                }
            }
            return lft.withAr(ar.build(), NAME);
        }
    }

    /** {@code ar-tree}: every least-hop port towards the destination's switch. */
    public static final class Tree implements RoutingEngine {
        public static final String NAME = "ar-tree";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public ForwardingTables route(RoutingRequest request) throws RoutingException {
            Fabric f = request.fabric();
            SwitchGraph g = new SwitchGraph(f);
            requireTree(f, g);
            ForwardingTables lft = new MinHopEngine().route(request);
            return lft.withAr(leastHopGroups(request, g, lft.size()), NAME);
        }

        /**
         * Per switch and destination LID, the group of every port on a least-hop path to the LID's
         * switch (where there are two or more).
         */
        static ArTables leastHopGroups(RoutingRequest request, SwitchGraph g, int lidSpace) {
            ArTables.Builder ar = ArTables.builder(g.switchCount(), lidSpace);
            int n = g.switchCount();
            int[] dist = new int[n];
            int[] queue = new int[n];
            int[][] lidsAt = endpointLids(request, g);
            int[] candidate = new int[64];
            for (int d = 0; d < n; d++) {
                if (lidsAt[d].length == 0) {
                    continue;
                }
                g.bfs(d, dist, queue);
                for (int s = 0; s < n; s++) {
                    if (s == d || dist[s] == SwitchGraph.UNREACHABLE) {
                        continue;
                    }
                    int k = 0;
                    for (int i = g.offset(s); i < g.offset(s + 1); i++) {
                        if (dist[g.neighbour(i)] == dist[s] - 1) {
                            if (k == candidate.length) {
                                candidate = Arrays.copyOf(candidate, k * 2);
                            }
                            candidate[k++] = g.portNumber(s, i);
                        }
                    }
                    if (k < 2) {
                        continue;
                    }
                    int group = ar.group(s, Arrays.copyOf(candidate, k));
                    for (int lid : lidsAt[d]) {
                        ar.set(s, lid, group);
                    }
                }
            }
            return ar.build();
        }

        /** The LIDs of the endpoints on each switch. */
        static int[][] endpointLids(RoutingRequest r, SwitchGraph g) {
            Fabric f = r.fabric();
            List<List<Integer>> at = new ArrayList<>();
            for (int s = 0; s < g.switchCount(); s++) {
                at.add(new ArrayList<>());
            }
            for (int e = 0; e < f.endpointCount(); e++) {
                int sw = f.endpointSwitch(e);
                if (sw != Fabric.NONE) {
                    at.get(f.switchIndex(sw)).add(r.lids().endpointLid(e));
                }
            }
            int[][] out = new int[at.size()][];
            for (int s = 0; s < out.length; s++) {
                out[s] = at.get(s).stream().mapToInt(Integer::intValue).toArray();
            }
            return out;
        }

        /**
         * Tree groups are deadlock-free where least-hop routes only go up then down: switches take
         * levels by their distance from the nearest switch with hosts, and no link may join two
         * switches of one level.
         */
        static void requireTree(Fabric f, SwitchGraph g) throws RoutingException {
            int n = g.switchCount();
            int[] level = new int[n];
            g.bfsFromHosts(level, new int[n]);
            for (int s = 0; s < n; s++) {
                for (int i = g.offset(s); i < g.offset(s + 1); i++) {
                    int t = g.neighbour(i);
                    if (level[s] != SwitchGraph.UNREACHABLE && level[s] == level[t]) {
                        throw new RoutingException(NAME, "AR tree groups need a fat tree or quasi fat tree, but switches "
                                + f.name(f.switchNode(s)) + " and " + f.name(f.switchNode(t)) + " are linked on one level ("
                                + level[s] + "); use ar-lag or a deterministic engine on this fabric");
                    }
                }
            }
        }
    }

    /** {@code ar-dfp}: every minimal port on a Dragonfly+, deadlock freedom proven on the groups' channel dependencies. */
    public static final class DragonflyPlus implements RoutingEngine {
        public static final String NAME = "ar-dfp";

        @Override
        public String name() {
            return NAME;
        }

        @Override
        public ForwardingTables route(RoutingRequest request) throws RoutingException {
            Fabric f = request.fabric();
            SwitchGraph g = new SwitchGraph(f);
            ForwardingTables lft = new MinHopEngine().route(request);
            ArTables ar = Tree.leastHopGroups(request, g, lft.size());
            requireDeadlockFree(request, g, lft, ar, NAME);
            return lft.withAr(ar, NAME);
        }
    }

    /**
     * Proves that adaptive routing by {@code ar} cannot deadlock on one lane: for each destination
     * switch, the channels a packet may take (from every switch with endpoints, following the
     * static port and every port of the LID's group) and the dependencies between consecutive
     * ones; all destinations' dependencies in one graph, which must have no cycle.
     *
     * @throws RoutingException naming a cycle of channels
     */
    static void requireDeadlockFree(RoutingRequest request, SwitchGraph g, ForwardingTables lft, ArTables ar, String engine)
            throws RoutingException {
        Fabric f = request.fabric();
        int n = g.switchCount();
        int[][] lidsAt = Tree.endpointLids(request, g);
        // one bit per (channel, port of the channel's far end): channel c then leaving by that port
        long[] base = new long[f.globalPortCount() + 1];
        for (int c = 0; c < f.globalPortCount(); c++) {
            int peer = f.peerNode(c);
            base[c + 1] = base[c] + (peer == Fabric.NONE ? 0 : f.portCount(peer));
        }
        long[] dependency = new long[(int) ((base[f.globalPortCount()] + 63) >>> 6)];
        boolean[] seen = new boolean[n];
        int[] queue = new int[n];
        int[][] allowed = new int[n][];
        for (int d = 0; d < n; d++) {
            if (lidsAt[d].length == 0) {
                continue;
            }
            int lid = lidsAt[d][0]; // the LIDs of one switch's endpoints share the groups
            Arrays.fill(seen, false);
            int tail = 0;
            for (int s = 0; s < n; s++) {
                allowed[s] = s == d ? new int[0] : ports(lft, ar, s, lid);
                if (lidsAt[s].length > 0 && s != d) {
                    seen[s] = true;
                    queue[tail++] = s;
                }
            }
            for (int head = 0; head < tail; head++) {
                int s = queue[head];
                int node = f.switchNode(s);
                for (int out : allowed[s]) {
                    int channel = f.globalPort(node, out);
                    int next = f.peerNode(channel);
                    if (next == Fabric.NONE || !f.isSwitch(next)) {
                        continue;
                    }
                    int t = f.switchIndex(next);
                    for (int onward : allowed[t]) {
                        int to = f.globalPort(next, onward);
                        if (f.peerNode(to) != Fabric.NONE && f.isSwitch(f.peerNode(to))) {
                            long bit = base[channel] + onward - 1;
                            dependency[(int) (bit >>> 6)] |= 1L << bit;
                        }
                    }
                    if (!seen[t]) {
                        seen[t] = true;
                        queue[tail++] = t;
                    }
                }
            }
        }
        org.fabriclab.routing.analysis.ChannelDependencyGraph.Builder cdg =
                org.fabriclab.routing.analysis.ChannelDependencyGraph.builder(f.globalPortCount());
        for (int c = 0; c < f.globalPortCount(); c++) {
            int peer = f.peerNode(c);
            for (long bit = base[c]; bit < base[c + 1]; bit++) {
                if ((dependency[(int) (bit >>> 6)] & (1L << bit)) != 0) {
                    cdg.add(c, f.globalPort(peer, (int) (bit - base[c]) + 1));
                }
            }
        }
        java.util.Optional<int[]> cycle = cdg.build().findCycle();
        if (cycle.isPresent()) {
            List<String> names = new ArrayList<>();
            for (int c : cycle.get()) {
                int node = f.nodeOfGlobalPort(c);
                names.add(f.name(node) + "[" + (c - f.portBase(node) + 1) + "]->" + f.name(f.peerNode(c)));
            }
            throw new RoutingException(engine, "adaptive routing by these groups could deadlock on one lane: the channels they allow "
                    + "depend on each other in a cycle " + String.join(" ", names) + " (on a Dragonfly+ whose groups are not all linked "
                    + "to each other, minimal routes take two global hops); use updn, or a fabric whose groups are all linked");
        }
    }

    /** The ports a packet to {@code lid} may leave switch {@code s} by: the static port and the LID's AR group. */
    private static int[] ports(ForwardingTables lft, ArTables ar, int s, int lid) {
        int group = ar.group(s, lid);
        int[] members = group == 0 ? null : ar.ports(s, group);
        int p = lft.port(s, lid);
        if (members == null) {
            return p > 0 ? new int[] {p} : new int[0];
        }
        for (int m : members) {
            if (m == p) {
                return members;
            }
        }
        int[] out = Arrays.copyOf(members, members.length + 1);
        out[members.length] = p;
        return out;
    }
}
