package org.fabriclab.routing.analysis;

import java.util.List;
import java.util.Map;
import org.fabriclab.routing.dragonfly.DragonflyPaths;

/**
 * What the route analysis found, over the ordered pairs of distinct endpoints in the node set.
 * Channel loads count routes per directed inter-switch link (parallel links separately, unused
 * links included, host links excluded), as the OpenSM peer's scorer does.
 *
 * @param engine               the engine that produced the tables
 * @param switches             switches in the fabric
 * @param hosts                endpoints (linked CA ports) in the node set
 * @param pairs                ordered pairs traced
 * @param unreachablePairs     pairs whose route does not arrive, for any reason
 * @param unreachableReasons   count of unreachable pairs per reason
 * @param unreachableExamples  a few unreachable pairs with where their route failed
 * @param nonMinimalPairs      routes longer than the shortest path between their switches
 * @param channels             directed inter-switch channels
 * @param edgeForwardingIndex  the most routes on one channel
 * @param minChannelLoad       the fewest routes on one channel
 * @param meanChannelLoad      routes per channel on average
 * @param sigma4               (mean over channels of |mean - load|^4)^(1/4), the Angara paper's sigma(4)
 * @param maxHops              longest route, in inter-switch hops
 * @param meanHops             mean route length, in inter-switch hops
 * @param hopHistogram         routes per length in inter-switch hops
 * @param virtualLanes         lanes the routes use
 * @param deadlockFree         the channel dependency graph of every lane is acyclic
 * @param cdgCycle             a dependency cycle, as channel names, where there is one
 * @param dragonfly            for a Dragonfly engine's tables, the proof over every path its algorithm allows (then
 *                             {@code virtualLanes}, {@code deadlockFree}, {@code cdgCycle} and {@code maxHops} are the
 *                             proof's; loads and mean hops stay those of the minimal routes the LFTs hold); else null
 */
public record RouteReport(String engine, int switches, int hosts, long pairs, long unreachablePairs,
                          Map<String, Long> unreachableReasons, List<String> unreachableExamples,
                          long nonMinimalPairs, int channels, long edgeForwardingIndex, long minChannelLoad,
                          double meanChannelLoad, double sigma4, int maxHops, double meanHops, long[] hopHistogram,
                          int virtualLanes, boolean deadlockFree, List<String> cdgCycle, DragonflyPaths.Proof dragonfly) {
    public RouteReport {
        unreachableReasons = Map.copyOf(unreachableReasons);
        unreachableExamples = List.copyOf(unreachableExamples);
        hopHistogram = hopHistogram.clone();
        cdgCycle = List.copyOf(cdgCycle);
    }

    /** True if every pair is routed, without loops. */
    public boolean allReachable() {
        return unreachablePairs == 0;
    }
}
