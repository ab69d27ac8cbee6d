package org.fabriclab.routing.engine.ar;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.fabriclab.routing.engine.ArTables;
import org.fabriclab.routing.engine.EngineGuarantees;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingEngine;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.SwitchGraph;
import org.fabriclab.routing.engine.minhop.MinHopEngine;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.graph.ChannelDependencyGraph;

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
 *       every port on a minimal path (the spines with a global link to the destination's group,
 *       the global links to it, the spines towards a leaf of the own group, parallel links) and
 *       the detours through an intermediate group, marked as such so that switches take them only
 *       while the minimal ports are more loaded ({@link DragonflyPlusGroups}: the detour, its lane
 *       turn, the spines' static input ports). Deadlock freedom is proven, not assumed: the engine
 *       builds the channel dependency graph, lane by lane, of every path the groups allow and
 *       refuses a fabric where it has a cycle, naming the cycle.
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
            addGroups(request, g, ar, null);
            return ar.build();
        }

        /** Where a hop that is not least-hop still leads to the destination switch: a detour. */
        interface DetourRule {
            /** True if the hop from switch {@code s} to its neighbour {@code t} is a detour towards switch {@code d}. */
            boolean detour(int s, int t, int d);
        }

        /**
         * Adds to {@code ar}, per switch and destination LID, the group of every port on a
         * least-hop path to the LID's switch and every port {@code detours} names (null: none),
         * marked as detours, where there are two or more ports.
         */
        static void addGroups(RoutingRequest request, SwitchGraph g, ArTables.Builder ar, DetourRule detours) {
            int n = g.switchCount();
            int[] dist = new int[n];
            int[] queue = new int[n];
            int[][] lidsAt = endpointLids(request, g);
            int[] minimal = new int[64];
            int[] detour = new int[64];
            for (int d = 0; d < n; d++) {
                if (lidsAt[d].length == 0) {
                    continue;
                }
                g.bfs(d, dist, queue);
                for (int s = 0; s < n; s++) {
                    if (s == d || dist[s] == SwitchGraph.UNREACHABLE) {
                        continue;
                    }
                    int degree = g.offset(s + 1) - g.offset(s);
                    if (minimal.length < degree) {
                        minimal = new int[degree];
                        detour = new int[degree];
                    }
                    int m = 0;
                    int k = 0;
                    for (int i = g.offset(s); i < g.offset(s + 1); i++) {
                        int t = g.neighbour(i);
                        if (dist[t] == dist[s] - 1) {
                            minimal[m++] = g.portNumber(s, i);
                        } else if (detours != null && detours.detour(s, t, d)) {
                            detour[k++] = g.portNumber(s, i);
                        }
                    }
                    if (m + k < 2) {
                        continue;
                    }
                    int[] ports = Arrays.copyOf(minimal, m + k);
                    System.arraycopy(detour, 0, ports, m, k);
                    int group = ar.group(s, ports, Arrays.copyOf(detour, k));
                    for (int lid : lidsAt[d]) {
                        ar.set(s, lid, group);
                    }
                }
            }
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

    /**
     * {@code ar-dfp}: minimal ports and detours on a Dragonfly+, deadlock freedom proven on the
     * groups' channel dependencies; {@code ar-dfp-minimal}: the minimal ports only, to compare.
     */
    public static final class DragonflyPlus implements RoutingEngine {
        public static final String NAME = "ar-dfp";
        public static final String MINIMAL = "ar-dfp-minimal";
        private final boolean detours;

        /** With detours. */
        public DragonflyPlus() {
            this(true);
        }

        /** With detours or ({@code false}) the minimal ports only. */
        public DragonflyPlus(boolean detours) {
            this.detours = detours;
        }

        @Override
        public String name() {
            return detours ? NAME : MINIMAL;
        }

        /**
         * Deadlock-free, proven on every route the AR groups allow before the tables are returned;
         * the detours move to lane {@link DragonflyPlusGroups#DETOUR_LANE}, so with them two lanes.
         */
        @Override
        public EngineGuarantees guarantees() {
            return new EngineGuarantees(true, detours ? DragonflyPlusGroups.DETOUR_LANE + 1 : 1, false);
        }

        @Override
        public ForwardingTables route(RoutingRequest request) throws RoutingException {
            Fabric f = request.fabric();
            SwitchGraph g = new SwitchGraph(f);
            ForwardingTables lft = new MinHopEngine().route(request);
            ArTables ar = DragonflyPlusGroups.build(request, g, lft.size(), detours);
            requireDeadlockFree(request, g, lft, ar, name());
            return lft.withAr(ar, name());
        }
    }

    /**
     * Proves that adaptive routing by {@code ar} cannot deadlock: for each destination switch, the
     * channels a packet may take, each on the lane it travels (from every switch with endpoints,
     * following the static port and every port of the LID's group, or the static port alone after
     * a static input port; the lane from the AR tables' lane turns, else 0), and the dependencies
     * between consecutive ones; all destinations' dependencies in one graph of (channel, lane)
     * buffers, which must have no cycle.
     *
     * @throws RoutingException naming a cycle of channels
     */
    static void requireDeadlockFree(RoutingRequest request, SwitchGraph g, ForwardingTables lft, ArTables ar, String engine)
            throws RoutingException {
        Fabric f = request.fabric();
        int n = g.switchCount();
        int lanes = ar.laneCount();
        int[][] lidsAt = Tree.endpointLids(request, g);
        int vertices = f.globalPortCount() * lanes;
        ChannelDependencyGraph.Builder cdg =
                ChannelDependencyGraph.builder(vertices);
        // per (channel, lane): the destination switch that last reached it (a seen mark without clearing)
        int[] seenFor = new int[vertices];
        Arrays.fill(seenFor, -1);
        int[] queue = new int[vertices];
        for (int d = 0; d < n; d++) {
            if (lidsAt[d].length == 0) {
                continue;
            }
            int lid = lidsAt[d][0]; // the LIDs of one switch's endpoints share the groups
            int tail = 0;
            for (int s = 0; s < n; s++) {
                int hostPort = s == d ? 0 : hostPort(f, f.switchNode(s));
                if (hostPort == 0) {
                    continue;
                }
                int node = f.switchNode(s);
                for (int out : ports(lft, ar, s, lid, hostPort)) {
                    int channel = f.globalPort(node, out);
                    if (f.peerNode(channel) != Fabric.NONE && f.isSwitch(f.peerNode(channel))) {
                        int v = channel * lanes + ar.lane(s, hostPort, out);
                        if (seenFor[v] != d) {
                            seenFor[v] = d;
                            queue[tail++] = v;
                        }
                    }
                }
            }
            for (int head = 0; head < tail; head++) {
                int v = queue[head];
                int channel = v / lanes;
                int next = f.peerNode(channel);
                int t = f.switchIndex(next);
                if (t == d) {
                    continue; // delivered to the destination's hosts
                }
                int inPort = f.peerPort(channel);
                for (int onward : ports(lft, ar, t, lid, inPort)) {
                    int to = f.globalPort(next, onward);
                    if (f.peerNode(to) == Fabric.NONE || !f.isSwitch(f.peerNode(to))) {
                        continue;
                    }
                    int w = to * lanes + ar.lane(t, inPort, onward);
                    cdg.add(v, w);
                    if (seenFor[w] != d) {
                        seenFor[w] = d;
                        queue[tail++] = w;
                    }
                }
            }
        }
        Optional<int[]> cycle = cdg.build().findCycle();
        if (cycle.isPresent()) {
            List<String> names = new ArrayList<>();
            for (int v : cycle.get()) {
                int c = v / lanes;
                int node = f.nodeOfGlobalPort(c);
                names.add(f.name(node) + "[" + (c - f.portBase(node) + 1) + "]->" + f.name(f.peerNode(c)) + (lanes > 1 ? " (VL" + v % lanes + ")" : ""));
            }
            throw new RoutingException(engine, "adaptive routing by these groups could deadlock: the channels they allow "
                    + "depend on each other in a cycle " + String.join(" ", names) + " (on a fabric that is not a Dragonfly+, or whose "
                    + "spines are linked inside a group); use updn, or a Dragonfly+ (leaves with hosts, spines without, global links between groups)");
        }
    }

    /** A port of switch node {@code node} with a channel adapter on it, 0 if none. */
    private static int hostPort(Fabric f, int node) {
        for (int p = 1; p <= f.portCount(node); p++) {
            int peer = f.peerNode(f.globalPort(node, p));
            if (peer != Fabric.NONE && !f.isSwitch(peer)) {
                return p;
            }
        }
        return 0;
    }

    /**
     * The ports a packet to {@code lid} that came in on {@code inPort} may leave switch {@code s}
     * by: the static port alone after a static input port, else the static port and the LID's AR group.
     */
    private static int[] ports(ForwardingTables lft, ArTables ar, int s, int lid, int inPort) {
        if (ar.staticInput(s, inPort)) {
            int p = lft.port(s, lid);
            return p > 0 ? new int[] {p} : new int[0];
        }
        return ports(lft, ar, s, lid);
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
