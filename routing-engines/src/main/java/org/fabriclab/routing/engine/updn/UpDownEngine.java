package org.fabriclab.routing.engine.updn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.fabriclab.routing.engine.BalancedRouter;
import org.fabriclab.routing.engine.EngineGuarantees;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingEngine;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.SwitchGraph;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.Guids;

/**
 * OpenSM's {@code updn}: up*&#47;down* routing, deadlock-free on any topology with one virtual lane.
 *
 * <p>Switches are ranked by their hop distance from the root set; a link is <em>up</em> towards
 * the lower (rank, GUID), a total order, so the up direction never cycles. A legal route climbs
 * zero or more up links, then descends zero or more down links; it never turns from down to up,
 * which keeps the channel dependency graph acyclic. Because tables are per destination, a switch
 * that can reach the destination by a down-only path always takes it (so a packet that has
 * started down keeps going down), and any other switch climbs; within that rule the shortest
 * choices are balanced by {@link BalancedRouter}.
 *
 * <p>Roots are the switches named by {@code RoutingOptions.rootGuids()}, or else detected: the top
 * tree level where the topology knows levels; otherwise the switches farthest from any CA (the
 * spines of a fat tree read from a file); and where every switch has CAs (a torus), the most
 * central switch. A fabric where some pair has no legal route is a {@link RoutingException}.
 */
public final class UpDownEngine implements RoutingEngine {
    public static final String NAME = "updn";

    @Override
    public String name() {
        return NAME;
    }

    /** Up/down routes cannot deadlock on one lane: no route turns from down to up. */
    @Override
    public EngineGuarantees guarantees() {
        return EngineGuarantees.DEADLOCK_FREE;
    }

    @Override
    public ForwardingTables route(RoutingRequest request) throws RoutingException {
        Fabric fabric = request.fabric();
        SwitchGraph graph = new SwitchGraph(fabric);
        int n = graph.switchCount();
        int[] roots = roots(request, graph);
        int[] rank = new int[n];
        graph.bfs(roots, rank, new int[n]);
        // up[i] for adjacency entry i of s: the neighbour is lower in (rank, GUID).
        boolean[] up = new boolean[graph.channelCount()];
        for (int s = 0; s < n; s++) {
            for (int i = graph.offset(s); i < graph.offset(s + 1); i++) {
                up[i] = lower(fabric, rank, graph.neighbour(i), s);
            }
        }
        int[] downDist = new int[n];
        int[] queue = new int[n];
        int[][] reverse = reverseAdjacency(graph);
        ForwardingTables.Builder out = ForwardingTables.builder(fabric, request.lids());
        BalancedRouter router = new BalancedRouter(graph, request.lids(), request.options());
        router.route(new BalancedRouter.Policy() {
            @Override
            public void distances(int destination, int[] dist) {
                policyDistances(graph, reverse, up, destination, downDist, dist, queue);
            }

            @Override
            public boolean allowed(int s, int i) {
                if (downDist[s] != SwitchGraph.UNREACHABLE) {
                    return !up[i] && downDist[graph.neighbour(i)] != SwitchGraph.UNREACHABLE;
                }
                return up[i];
            }
        }, out);
        checkConnected(request, graph, out);
        return out.build(NAME);
    }

    /**
     * Down-only distances by a backward BFS over down links, then policy distances: a switch with a
     * down-only path uses it; others climb, so their distance is one more than the best up neighbour's.
     */
    private static void policyDistances(SwitchGraph g, int[][] reverse, boolean[] up, int dest,
                                        int[] downDist, int[] dist, int[] queue) {
        Arrays.fill(downDist, SwitchGraph.UNREACHABLE);
        downDist[dest] = 0;
        int head = 0;
        int tail = 0;
        queue[tail++] = dest;
        while (head < tail) {
            int t = queue[head++];
            for (int i : reverse[t]) {
                int s = g.source(i);
                // entry i is the link s -> t; a down link extends t's down path back to s
                if (!up[i] && downDist[s] == SwitchGraph.UNREACHABLE) {
                    downDist[s] = downDist[t] + 1;
                    queue[tail++] = s;
                }
            }
        }
        // Switches with a down path have policy distance = down distance; the queue already
        // holds them in non-decreasing order, so one BFS over reversed up links finishes the job.
        System.arraycopy(downDist, 0, dist, 0, dist.length);
        head = 0;
        while (head < tail) {
            int t = queue[head++];
            for (int i : reverse[t]) {
                int s = g.source(i);
                if (up[i] && dist[s] == SwitchGraph.UNREACHABLE) {
                    dist[s] = dist[t] + 1;
                    queue[tail++] = s;
                }
            }
        }
    }

    /** For each switch t, the adjacency entries i (links s -> t) that end at t. */
    private static int[][] reverseAdjacency(SwitchGraph g) {
        int n = g.switchCount();
        int[] count = new int[n];
        for (int i = 0; i < g.channelCount(); i++) {
            count[g.neighbour(i)]++;
        }
        int[][] rev = new int[n][];
        for (int t = 0; t < n; t++) {
            rev[t] = new int[count[t]];
        }
        Arrays.fill(count, 0);
        for (int i = 0; i < g.channelCount(); i++) {
            int t = g.neighbour(i);
            rev[t][count[t]++] = i;
        }
        return rev;
    }

    private static boolean lower(Fabric f, int[] rank, int a, int b) {
        if (rank[a] != rank[b]) {
            return rank[a] < rank[b];
        }
        return Long.compareUnsigned(f.nodeGuid(f.switchNode(a)), f.nodeGuid(f.switchNode(b))) < 0;
    }

    private static int[] roots(RoutingRequest request, SwitchGraph g) throws RoutingException {
        Fabric f = request.fabric();
        List<Long> given = request.options().rootGuids();
        if (!given.isEmpty()) {
            int[] r = new int[given.size()];
            for (int k = 0; k < r.length; k++) {
                long guid = given.get(k);
                int node = f.nodeByGuid(guid).orElse(Fabric.NONE);
                if (node == Fabric.NONE || !f.isSwitch(node)) {
                    throw new RoutingException(NAME, "root GUID " + Guids.format(guid) + " is not a switch of this fabric");
                }
                r[k] = f.switchIndex(node);
            }
            return r;
        }
        return detectRoots(f, g);
    }

    static int[] detectRoots(Fabric f, SwitchGraph g) {
        int n = g.switchCount();
        int top = -1;
        boolean levelsKnown = n > 0;
        for (int s = 0; s < n; s++) {
            int l = f.level(f.switchNode(s));
            levelsKnown &= l != Fabric.NONE;
            top = Math.max(top, l);
        }
        List<Integer> roots = new ArrayList<>();
        if (levelsKnown) {
            for (int s = 0; s < n; s++) {
                if (f.level(f.switchNode(s)) == top) {
                    roots.add(s);
                }
            }
            return roots.stream().mapToInt(Integer::intValue).toArray();
        }
        // Distance from every switch to the nearest switch with CAs: the spines are farthest.
        int[] hostDist = new int[n];
        int[] queue = new int[n];
        g.bfsFromHosts(hostDist, queue);
        int far = 0;
        for (int x : hostDist) {
            if (x != SwitchGraph.UNREACHABLE) {
                far = Math.max(far, x);
            }
        }
        if (far > 0) {
            for (int s = 0; s < n; s++) {
                if (hostDist[s] == far) {
                    roots.add(s);
                }
            }
            return roots.stream().mapToInt(Integer::intValue).toArray();
        }
        // Every switch has CAs: take the most central switch (least eccentricity, then lowest GUID).
        int best = 0;
        int bestEcc = Integer.MAX_VALUE;
        int[] dist = new int[n];
        for (int s = 0; s < n; s++) {
            g.bfs(s, dist, queue);
            int ecc = 0;
            for (int x : dist) {
                if (x != SwitchGraph.UNREACHABLE) {
                    ecc = Math.max(ecc, x);
                }
            }
            if (ecc < bestEcc) {
                best = s;
                bestEcc = ecc;
            }
        }
        return new int[] {best};
    }

    /** Every pair of switches with CAs in one component must have a legal route. */
    private static void checkConnected(RoutingRequest request, SwitchGraph g, ForwardingTables.Builder out)
            throws RoutingException {
        Fabric f = request.fabric();
        int[] dist = new int[g.switchCount()];
        int[] queue = new int[g.switchCount()];
        boolean[] hasHosts = new boolean[g.switchCount()];
        for (int e = 0; e < f.endpointCount(); e++) {
            int sw = f.endpointSwitch(e);
            if (sw != Fabric.NONE) {
                hasHosts[f.switchIndex(sw)] = true;
            }
        }
        for (int e = 0; e < f.endpointCount(); e++) {
            int sw = f.endpointSwitch(e);
            if (sw == Fabric.NONE) {
                continue;
            }
            int d = f.switchIndex(sw);
            int lid = request.lids().endpointLid(e);
            g.bfs(d, dist, queue);
            for (int s = 0; s < g.switchCount(); s++) {
                if (hasHosts[s] && dist[s] != SwitchGraph.UNREACHABLE && out.get(s, lid) == ForwardingTables.NO_PATH) {
                    throw new RoutingException(NAME, "no up/down route from switch \"" + f.name(f.switchNode(s))
                            + "\" to \"" + f.endpointName(e) + "\" with the chosen roots; name roots that reach every"
                            + " switch going down (--roots GUID,...) or use minhop");
                }
            }
            // one destination per switch suffices: all its endpoints share the same routes' shape
            while (e + 1 < f.endpointCount() && f.endpointSwitch(e + 1) == sw) {
                e++;
            }
        }
    }
}
