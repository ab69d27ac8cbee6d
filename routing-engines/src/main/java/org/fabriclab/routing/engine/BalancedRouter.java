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
 * policy's distance by one. Per destination LID the router makes three passes:
 * <ol>
 *   <li>farthest first, an <em>estimate</em> of the flow through each switch: its own sources plus
 *       what its upstream switches would send it if each split its flow evenly over its allowed
 *       next hops (ECMP);
 *   <li>nearest first, the <em>choice</em>: since every nearer switch has chosen, each candidate
 *       next hop t has a fixed path to the destination, and the switch takes the t with the least
 *       max(its channel's load, the most loaded channel on t's path), both counting the flow this
 *       destination has already committed there plus its own estimate. Its estimate is then
 *       committed along the whole path, so sibling switches see each other and spread out;
 *   <li>farthest first, the real route counts: each switch's sources plus what it receives are
 *       added to its chosen channel's load.
 * </ol>
 * So the balance counts <em>routes</em> (source/destination pairs) per channel, the
 * edge-forwarding index the analysis reports, and a choice sees the load of the whole path it
 * commits to (on a fat tree the down path is fixed once the top switch is chosen). OpenSM's
 * min-hop instead counts destinations per port, switch by switch, which is blind to both and
 * balances fat trees badly. Ties go to the less loaded channel, then the port with fewer
 * destinations routed over it, then the lower port number: the result is deterministic.
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
    private final double[] estimate;
    private final double[] own;
    private final int[] nextSwitch;
    private final long[] inflow;
    private final int[] next;
    private final int[] candidates;
    private final int[] candidateStart;
    private final int[] candidateEnd;

    public BalancedRouter(SwitchGraph graph, LidAssignment lids, RoutingOptions options) {
        this.graph = graph;
        this.fabric = graph.fabric();
        this.lids = lids;
        load = new long[fabric.globalPortCount()];
        destinations = new int[fabric.globalPortCount()];
        sources = new int[graph.switchCount()];
        estimate = new double[graph.switchCount()];
        own = new double[graph.switchCount()];
        nextSwitch = new int[graph.switchCount()];
        inflow = new long[graph.switchCount()];
        next = new int[graph.switchCount()];
        candidates = new int[graph.channelCount()];
        candidateStart = new int[graph.switchCount()];
        candidateEnd = new int[graph.switchCount()];
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
        int[][] endpointsAt = endpointsBySwitch();
        for (int d = 0; d < n; d++) {
            policy.distances(d, dist);
            int reachable = farthestFirst(dist, order);
            nextSwitch[d] = -1; // the destination's switch delivers: every path walk ends there
            // the estimate and the allowed next hops depend on the destination switch only
            estimateFlows(policy, dist, order, reachable);
            for (int e : endpointsAt[d]) {
                int lid = lids.endpointLid(e);
                int g = fabric.peerGlobalPort(fabric.endpointPort(e));
                out.set(d, lid, g - fabric.portBase(fabric.switchNode(d)) + 1);
                chooseNearestFirst(order, reachable, estimate);
                for (int k = 0; k < reachable; k++) {
                    out.set(order[k], lid, graph.portNumber(order[k], next[order[k]]));
                }
                chargeRoutes(order, reachable, d);
            }
            int ownLid = lids.switchLid(d);
            out.set(d, ownLid, 0);
            chooseNearestFirst(order, reachable, null);
            for (int k = 0; k < reachable; k++) {
                out.set(order[k], ownLid, graph.portNumber(order[k], next[order[k]]));
            }
        }
    }

    /**
     * Pass 1, once per destination switch: the allowed next hops of every switch (into
     * {@link #candidates}) and the ECMP estimate of the flow through it.
     */
    private void estimateFlows(Policy policy, int[] dist, int[] order, int reachable) {
        int used = 0;
        for (int k = 0; k < reachable; k++) {
            int s = order[k];
            estimate[s] = 0;
            candidateStart[s] = used;
            int want = dist[s] - 1;
            for (int i = graph.offset(s), end = graph.offset(s + 1); i < end; i++) {
                if (dist[graph.neighbour(i)] == want && policy.allowed(s, i)) {
                    candidates[used++] = i;
                }
            }
            candidateEnd[s] = used;
        }
        for (int k = 0; k < reachable; k++) {
            int s = order[k];
            double w = estimate[s] + sources[s];
            estimate[s] = w;
            double share = w / (candidateEnd[s] - candidateStart[s]);
            for (int c = candidateStart[s]; c < candidateEnd[s]; c++) {
                estimate[graph.neighbour(candidates[c])] += share;
            }
        }
    }

    /**
     * Pass 2: nearest first, each switch's choice, committing its estimate ({@code null}: none)
     * along its path. Loads do not change during this pass, so each chosen switch keeps the load of
     * its channel plus the flow committed to it in {@link #own}, and its next switch in
     * {@link #nextSwitch}: a path walk reads nothing else.
     */
    private void chooseNearestFirst(int[] order, int reachable, double[] flow) {
        for (int k = reachable - 1; k >= 0; k--) {
            int s = order[k];
            double w = flow == null ? 0 : flow[s];
            int i = choose(s, w);
            next[s] = i;
            nextSwitch[s] = graph.neighbour(i);
            own[s] = load[graph.channel(i)];
            if (w != 0) {
                for (int x = s; nextSwitch[x] >= 0; x = nextSwitch[x]) {
                    own[x] += w;
                }
            }
        }
    }

    /** Pass 3: real route counts, farthest first, onto the chosen channels. */
    private void chargeRoutes(int[] order, int reachable, int d) {
        for (int k = 0; k < reachable; k++) {
            inflow[order[k]] = 0;
        }
        for (int k = 0; k < reachable; k++) {
            int s = order[k];
            long w = inflow[s] + sources[s];
            int i = next[s];
            int ch = graph.channel(i);
            load[ch] += w;
            destinations[ch]++;
            int t = graph.neighbour(i);
            if (t != d) {
                inflow[t] += w;
            }
        }
    }

    /** Routes per directed channel (global port) accumulated so far. */
    public long load(int channel) {
        return load[channel];
    }

    /** The allowed next hop of {@code s} with the least (path key, channel load, destinations, port). */
    private int choose(int s, double w) {
        int best = -1;
        double bestKey = Double.MAX_VALUE;
        long bestLoad = Long.MAX_VALUE;
        int bestDest = Integer.MAX_VALUE;
        for (int c = candidateStart[s], end = candidateEnd[s]; c < end; c++) {
            int i = candidates[c];
            int ch = graph.channel(i);
            long l = load[ch];
            // the key is max(l, the most loaded channel on the neighbour's path) + w, pending flow
            // included; it only grows along the walk, so a candidate stops as soon as it loses
            double k = l + w;
            for (int x = graph.neighbour(i); k <= bestKey && nextSwitch[x] >= 0; x = nextSwitch[x]) {
                k = Math.max(k, own[x] + w);
            }
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
