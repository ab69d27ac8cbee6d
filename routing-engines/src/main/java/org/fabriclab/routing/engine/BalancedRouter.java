package org.fabriclab.routing.engine;

import java.util.Arrays;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssignment;

/**
 * Fills forwarding tables one destination at a time, choosing among a switch's equal-cost next
 * hops the one whose channel carries the fewest routes so far. Shared by the engines that differ
 * only in which next hops they allow (min-hop: any shortest; up/down: only legal turns).
 *
 * <p>Destination-based routes to one LID form an in-tree, and every step of a route lowers the
 * policy's distance by one. Per destination LID the router makes two passes over the switches:
 * <ol>
 *   <li>nearest first, each switch's <em>bottleneck</em>: over its allowed next hops, the least
 *       value of max(load of that channel, the next switch's bottleneck), i.e. the most loaded
 *       channel on the best path it could still take;
 *   <li>farthest first, the choice. The number of sources w whose route passes the switch is
 *       known by now (its own plus what its upstream switches sent it); the next hop t chosen is
 *       the one with the least max(channel load + w, t's bottleneck + what other switches already
 *       sent t for this destination + w), and w is added to the chosen channel's load. Counting what
 *       t already receives matters: without it, sibling switches all pick the same next hop for a
 *       destination, since its downstream channel is charged only when t itself chooses.
 * </ol>
 * So the balance counts <em>routes</em> (source/destination pairs) per channel, the
 * edge-forwarding index the analysis reports, and a choice near the sources sees the load of the
 * path it commits to further on (on a fat tree the down path is fixed once the top switch is
 * chosen). OpenSM's min-hop instead counts destinations per port, switch by switch, which is blind
 * to both and balances fat trees badly. Ties go to the less loaded channel, then the port with
 * fewer destinations routed over it, then the lower port number: the result is deterministic.
 *
 * <p>Switch LIDs (management traffic only) are routed last and add nothing to the loads.
 * Not thread-safe: one router serves one routing run.
 */
public final class BalancedRouter {
    /** Which next hops an engine allows, and how far each switch is from a destination switch. */
    public interface Policy {
        /**
         * Fills {@code dist[s]} with the number of hops from switch {@code s} to switch
         * {@code destination} along routes the policy allows, {@link SwitchGraph#UNREACHABLE} where none.
         */
        void distances(int destination, int[] dist);

        /**
         * May switch {@code s} forward towards the current destination over adjacency entry
         * {@code i} of the {@link SwitchGraph}? Called only for entries whose neighbour is one hop
         * closer by {@link #distances}.
         */
        boolean allowed(int s, int i);
    }

    private final SwitchGraph graph;
    private final Fabric fabric;
    private final LidAssignment lids;
    private final long[] load;
    private final int[] destinations;
    private final int[] sources;
    private final long[] bottleneck;

    public BalancedRouter(SwitchGraph graph, LidAssignment lids, RoutingOptions options) {
        this.graph = graph;
        this.fabric = graph.fabric();
        this.lids = lids;
        load = new long[fabric.globalPortCount()];
        destinations = new int[fabric.globalPortCount()];
        sources = new int[graph.switchCount()];
        bottleneck = new long[graph.switchCount()];
        for (int e = 0; e < fabric.endpointCount(); e++) {
            int sw = fabric.endpointSwitch(e);
            if (sw != Fabric.NONE && options.includes(e)) {
                sources[fabric.switchIndex(sw)]++;
            }
        }
    }

    /** Routes every LID of the fabric into {@code out} under {@code policy}. */
    public void route(Policy policy, ForwardingTables.Builder out) {
        int n = graph.switchCount();
        int[] dist = new int[n];
        int[] order = new int[n];
        long[] inflow = new long[n];
        int[][] endpointsAt = endpointsBySwitch();
        for (int d = 0; d < n; d++) {
            policy.distances(d, dist);
            int reachable = farthestFirst(dist, order);
            for (int e : endpointsAt[d]) {
                int lid = lids.endpointLid(e);
                int g = fabric.peerGlobalPort(fabric.endpointPort(e));
                out.set(d, lid, g - fabric.portBase(fabric.switchNode(d)) + 1);
                bottleneck[d] = 0;
                for (int k = reachable - 1; k >= 0; k--) {
                    int s = order[k];
                    int i = choose(policy, s, dist, 0, inflow);
                    bottleneck[s] = Math.max(load[graph.channel(i)], bottleneck[graph.neighbour(i)]);
                }
                for (int k = 0; k < reachable; k++) {
                    int s = order[k];
                    long w = inflow[s] + sources[s];
                    int i = choose(policy, s, dist, w, inflow);
                    inflow[s] = 0;
                    out.set(s, lid, graph.portNumber(s, i));
                    int ch = graph.channel(i);
                    load[ch] += w;
                    destinations[ch]++;
                    inflow[graph.neighbour(i)] += w;
                }
                inflow[d] = 0; // what arrived at the destination's switch is delivered, not forwarded
            }
            int ownLid = lids.switchLid(d);
            out.set(d, ownLid, 0);
            for (int k = 0; k < reachable; k++) {
                int s = order[k];
                out.set(s, ownLid, graph.portNumber(s, choose(policy, s, dist, 0, inflow)));
            }
        }
    }

    /** Routes per directed channel (global port) accumulated so far. */
    public long load(int channel) {
        return load[channel];
    }

    /** The allowed next hop of {@code s} with the least (path key, channel load, destinations, port). */
    private int choose(Policy policy, int s, int[] dist, long w, long[] inflow) {
        int want = dist[s] - 1;
        int best = -1;
        long bestKey = Long.MAX_VALUE;
        long bestLoad = Long.MAX_VALUE;
        int bestDest = Integer.MAX_VALUE;
        for (int i = graph.offset(s), end = graph.offset(s + 1); i < end; i++) {
            int t = graph.neighbour(i);
            if (dist[t] != want || !policy.allowed(s, i)) {
                continue;
            }
            int ch = graph.channel(i);
            long k = Math.max(load[ch] + w, bottleneck[t] + inflow[t] + w);
            long l = load[ch];
            if (k < bestKey || (k == bestKey && (l < bestLoad || (l == bestLoad && destinations[ch] < bestDest)))) {
                best = i;
                bestKey = k;
                bestLoad = l;
                bestDest = destinations[ch];
            }
        }
        assert best >= 0 : "policy distance without an allowed next hop at switch " + s;
        return best;
    }

    /** Puts the switches with a finite, non-zero distance into {@code order}, farthest first; returns how many. */
    private static int farthestFirst(int[] dist, int[] order) {
        int max = 0;
        for (int x : dist) {
            if (x != SwitchGraph.UNREACHABLE && x > max) {
                max = x;
            }
        }
        int[] start = new int[max + 2];
        for (int x : dist) {
            if (x != SwitchGraph.UNREACHABLE && x > 0) {
                start[max - x + 1]++;
            }
        }
        for (int i = 1; i < start.length; i++) {
            start[i] += start[i - 1];
        }
        int count = start[start.length - 1];
        for (int s = 0; s < dist.length; s++) {
            int x = dist[s];
            if (x != SwitchGraph.UNREACHABLE && x > 0) {
                order[start[max - x]++] = s;
            }
        }
        return count;
    }

    private int[][] endpointsBySwitch() {
        int n = graph.switchCount();
        int[] count = new int[n];
        for (int e = 0; e < fabric.endpointCount(); e++) {
            int sw = fabric.endpointSwitch(e);
            if (sw != Fabric.NONE) {
                count[fabric.switchIndex(sw)]++;
            }
        }
        int[][] at = new int[n][];
        for (int s = 0; s < n; s++) {
            at[s] = new int[count[s]];
        }
        Arrays.fill(count, 0);
        for (int e = 0; e < fabric.endpointCount(); e++) {
            int sw = fabric.endpointSwitch(e);
            if (sw != Fabric.NONE) {
                int s = fabric.switchIndex(sw);
                at[s][count[s]++] = e;
            }
        }
        return at;
    }
}
