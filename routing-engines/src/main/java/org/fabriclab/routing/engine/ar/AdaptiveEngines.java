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
 *       parallel links on the way down).
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
            ArTables.Builder ar = ArTables.builder(g.switchCount(), lft.size());
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
            return lft.withAr(ar.build(), NAME);
        }

        /** The LIDs of the endpoints on each switch. */
        private static int[][] endpointLids(RoutingRequest r, SwitchGraph g) {
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
}
