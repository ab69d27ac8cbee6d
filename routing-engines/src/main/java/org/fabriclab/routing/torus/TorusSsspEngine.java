package org.fabriclab.routing.torus;

import java.util.Arrays;
import java.util.BitSet;
import java.util.List;

/**
 * {@code torus-sssp}: Algorithms 3 and 4 of the Angara paper.
 * <ol>
 *   <li><b>Unique routes.</b> Every pair with exactly one shortest route the rules allow (distinct
 *       as a sequence of directions: the routing graph may reach one route by two vertex paths, a
 *       first step taken as FS or as a standard step) takes it, and its links' weights rise by one.
 *   <li><b>Sort and group.</b> The other pairs, in descending order of their turns (dimensions in
 *       which source and destination differ, less one; the paper's order is ascending, see below),
 *       then in ascending order of their length, then by source, grouped by those three keys. For
 *       each group, the cheapest route from the source to each destination, every hop costing
 *       {@code |N|^2} plus its link's weight; of the routes found,
 *       those that share no link with one taken before them in this round are taken and their
 *       links' weights raised, and the round repeats for the rest.
 * </ol>
 *
 * <p>The paper finds both by searching the routing graph: a breadth-first search from every
 * source, and a breadth-first search with relaxation per group and round. Ours finds the same
 * routes without searching the whole graph where it need not: a pair's cheapest route is one of
 * its routes as short as the torus allows whenever one exists and none weighs {@code |N|^2} or
 * more (a longer route costs at least that much more), and those few routes are walked
 * ({@link MinimalRoutes}) — on a whole torus without failed links once per offset for all pairs
 * alike, so a unique route's weights are added per direction for every source at once. A pair
 * with no such route (a failed link in every shortest way) or a heavier one is searched, as
 * the paper does. Ties between equally light routes fall differently than in a search (the first
 * route walked wins); the balance is the same up to them (tested against the searches).
 *
 * <p>The paper sorts by ascending turns; we take the pairs with the most turns first. Those are
 * the pairs with the most routes to choose from and the longest of their source's: weighed while
 * only the unique routes load the links, they spread over the whole torus, and the pairs of
 * fewer turns (fewer choices) then avoid what they took. On the paper's 32-node Desmos torus
 * this gives 27 / 8 / 6.237 (max load / min load / sigma(4,R)) where ascending turns give 28 / 8
 * / 6.439 and the paper 28 / 8 / 6.298, and lower edge-forwarding indices over each set of
 * Figure 5's random tori; with the paper's order, tie-breaks among equally light routes (first,
 * last, by the heaviest link, by the sum of squares, at random over 30 seeds) move the 32-node
 * figure only within 6.38 to 6.50 (docs/reproductions.md). The order is a counting-sort key; the
 * rounds it makes cost the same within a few percent (10x10x15 about 4% more, docs/benchmarks.md).
 */
public final class TorusSsspEngine implements TorusEngine {
    public static final String NAME = "torus-sssp";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SourceRoutes route(RoutingGraph g, int[] nodes, long seed) {
        return route(g, nodes, false);
    }

    /**
     * The routes; with {@code searchEveryPair}, every pair is found by searching the whole routing
     * graph, as the paper does (slower: the reference the tests hold the walks to).
     */
    SourceRoutes route(RoutingGraph g, int[] nodes, boolean searchEveryPair) {
        Torus t = g.torus();
        SourceRoutes.Builder b = new SourceRoutes.Builder(t, nodes);
        int m = b.size();
        int[] weight = new int[t.channelIds()];
        MinimalRoutes walk = new MinimalRoutes(g);
        ShortestRoutes shortest = null;
        // per pair: 0, or (turns, hops) + 1 while it waits for stage 2
        short[] key = new short[m * m];
        BitSet searched = new BitSet(); // pairs only a search of the whole graph routes
        int pending = 0;
        // 1) unique routes (in any order: a pair's count does not depend on the weights)
        int[] sharedAt = null;
        int[] sharedHops = null;
        short[] offsetKey = null; // per offset with two routes or more: the key its pairs wait under
        if (!searchEveryPair && walk.perOffset() && m == t.nodes()) {
            // the whole torus: every source has one pair at each offset, so an offset's unique route
            // adds one to every channel in each of its hops' directions, and its pairs share it
            sharedAt = new int[walk.offsets()];
            sharedHops = new int[walk.offsets()];
            offsetKey = new short[walk.offsets()];
            int[] perDirection = new int[t.directions()];
            for (int o = 1; o < sharedAt.length; o++) {
                sharedAt[o] = -1;
                int routes = walk.routesAt(o);
                if (routes >= 2) {
                    offsetKey[o] = key(turns(t, walk.origin(), walk.nodeAtOffset(o)), walk.hops());
                }
                if (routes == 1) {
                    sharedAt[o] = b.keep(walk.directions(), walk.start(0), walk.hops());
                    sharedHops[o] = walk.hops();
                    for (int h = 0; h < walk.hops(); h++) {
                        perDirection[walk.directions()[walk.start(0) + h]]++;
                    }
                }
            }
            for (int c = 0; c < weight.length; c++) {
                weight[c] = t.next(c) >= 0 ? perDirection[c % t.directions()] : 0;
            }
        }
        int[] row = sharedAt != null && walk.nodesInOrder() ? new int[m] : null; // offsets from the source, node by node
        for (int i = 0; i < m; i++) {
            int source = b.member(i);
            boolean sourceSearched = false;
            if (row != null) {
                walk.offsetsFrom(source, row);
            }
            for (int j = 0; j < m; j++) {
                if (i == j) {
                    continue;
                }
                int target = b.member(j);
                if (sharedAt != null) {
                    int o = row != null ? row[j] : walk.offsetOf(source, target);
                    if (sharedAt[o] >= 0) {
                        b.routeAt(i, j, sharedAt[o], sharedHops[o]);
                        continue;
                    }
                    if (offsetKey[o] != 0) {
                        key[i * m + j] = offsetKey[o];
                        pending++;
                        continue;
                    }
                }
                int routes = searchEveryPair ? MinimalRoutes.TOO_MANY : walk.routes(source, target, 2);
                if (routes == 1) {
                    apply(b, t, i, j, walk.directions(), walk.start(0), walk.hops(), weight);
                    continue;
                }
                if (routes >= 2) {
                    key[i * m + j] = key(turns(t, source, target), walk.hops());
                    pending++;
                    continue;
                }
                // every minimal way crosses a failed link (or the walk gave up): the whole graph
                if (shortest == null) {
                    shortest = new ShortestRoutes(g);
                }
                if (!sourceSearched) {
                    shortest.from(g.begin(source));
                    sourceSearched = true;
                }
                int end = g.end(target);
                if (!shortest.reached(end)) {
                    b.unroutable(i, j);
                    continue;
                }
                List<byte[]> found = shortest.vertexPaths(end) <= ShortestRoutes.DUPLICATES ? shortest.routes(end, 2) : null;
                if (found != null && found.size() == 1) {
                    apply(b, t, i, j, found.get(0), found.get(0).length, weight);
                } else {
                    key[i * m + j] = key(turns(t, source, target), shortest.hops(end));
                    searched.set(i * m + j);
                    pending++;
                }
            }
        }
        // 2) sort (a counting sort by turns and length keeps the pairs' source, destination order) and group
        int[] first = new int[key(0, SourceRoutes.MAX_HOPS) + 2];
        for (short k : key) {
            first[k + 1]++;
        }
        for (int k = 1; k < first.length; k++) {
            first[k] += first[k - 1];
        }
        int[] order = new int[pending];
        for (int p = 0; p < key.length; p++) {
            if (key[p] != 0) {
                order[first[key[p]] - first[1]] = p; // key 0 (no pair waiting) is left out
                first[key[p]]++;
            }
        }
        long baseCost = (long) m * m;
        Search search = new Search(g.vertexCount(), m);
        int[] takenInRound = new int[t.channelIds()];
        int round = 0;
        Group group = new Group();
        int from = 0;
        while (from < pending) {
            int i = order[from] / m;
            int to = from;
            boolean searchGroup = false;
            int sourceEnd = (i + 1) * m; // pairs from source i are i * m to sourceEnd - 1, and come in order
            while (to < pending && key[order[to]] == key[order[from]] && order[to] < sourceEnd) {
                searchGroup |= searched.get(order[to]);
                to++;
            }
            searchGroup |= !group.reset(order, from, to, i, m, searchGroup ? null : walk, t, b);
            while (group.left > 0) {
                round++;
                if (searchGroup || !group.walkRound(weight, baseCost, takenInRound, round)) {
                    searchGroup = true;
                    round++; // the walk's marks, if it gave up half way, are void
                    group.walked = false;
                    group.searchRound(search, g, t, b, i, weight, baseCost, takenInRound, round);
                }
                int left = 0;
                for (int x = 0; x < group.left; x++) {
                    int k = group.remaining[x];
                    if (group.taken[k] && group.walked) {
                        int at = group.chosen[k];
                        int end = at + group.hops[k];
                        b.route(i, group.members[k], group.directions, at, end - at);
                        int[] channels = group.channels;
                        for (int h = at; h < end; h++) {
                            weight[channels[h]]++;
                        }
                    } else if (group.taken[k]) {
                        apply(b, t, i, group.members[k], group.directions, group.chosen[k], group.hops[k], weight);
                    } else {
                        group.remaining[left++] = k;
                    }
                }
                group.left = left;
            }
            from = to;
        }
        return b.build(NAME);
    }

    /** A waiting pair's place in stage 2's order: the most turns first, then the shortest; never 0 (no pair waiting). */
    private static short key(int turns, int hops) {
        return (short) ((Torus.MAX_DIMENSIONS - 1 - turns) * (SourceRoutes.MAX_HOPS + 1) + hops + 1);
    }

    /**
     * One group's destinations, each with its minimal routes (as directions and as the channels
     * they take from the source) where walks found them, and per round the route chosen for each
     * destination still to route (all under the weights as the round began) and whether it is
     * taken: it is unless it shares a channel with one taken before it in the round. The weights
     * rise after the round.
     */
    private static final class Group {
        int size;
        int[] members = new int[16];
        int[] hops = new int[16];
        /** Per destination: where its routes start in directions and channels, and how many. */
        int[] routesAt = new int[16];
        int[] routeCount = new int[16];
        byte[] directions = new byte[256];
        int[] channels = new int[256];
        int used;
        /** Destinations still to route (indices), and per destination the route chosen this round (where it starts) and whether it is taken. */
        int[] remaining = new int[16];
        int left;
        int[] chosen = new int[16];
        boolean[] taken = new boolean[16];
        /** True if this round's routes came from the walks (their channels are known). */
        boolean walked;

        /**
         * The group of {@code order[from..to)}, with their routes from {@code walk} (none if
         * null); false if a walk gave up or found none (the group is then searched).
         */
        boolean reset(int[] order, int from, int to, int i, int m, MinimalRoutes walk, Torus t, SourceRoutes.Builder b) {
            size = to - from;
            if (members.length < size) {
                members = new int[size];
                hops = new int[size];
                routesAt = new int[size];
                routeCount = new int[size];
                remaining = new int[size];
                chosen = new int[size];
                taken = new boolean[size];
            }
            used = 0;
            left = size;
            boolean walked = walk != null;
            for (int k = 0; k < size; k++) {
                members[k] = order[from + k] - i * m;
                remaining[k] = k;
                if (!walked) {
                    continue;
                }
                int source = b.member(i);
                int c = walk.routes(source, b.member(members[k]), MinimalRoutes.MAX_ROUTES);
                walked = c > 0;
                hops[k] = walk.hops();
                routesAt[k] = used;
                routeCount[k] = Math.max(c, 0);
                ensure(used + routeCount[k] * hops[k]);
                for (int r = 0; r < routeCount[k]; r++, used += hops[k]) {
                    System.arraycopy(walk.directions(), walk.start(r), directions, used, hops[k]);
                    walk.channels(source, r, channels, used);
                }
            }
            return walked;
        }

        private void ensure(int capacity) {
            if (capacity > directions.length) {
                int grown = Math.max(capacity, directions.length * 2);
                directions = Arrays.copyOf(directions, grown);
                channels = Arrays.copyOf(channels, grown);
            }
        }

        /**
         * A round by the routes the walks found: for each destination still to route, the lightest
         * (the first among equals), taken unless it crosses one taken before it. False, with the
         * round void, if a route is heavy enough that a longer one might be
         * cheaper in the paper's cost ({@code |N|^2} per hop): the group is then searched.
         */
        boolean walkRound(int[] weight, long baseCost, int[] takenInRound, int round) {
            int[] channels = this.channels; // locals: stores into int arrays would make the JIT reload fields that might alias them
            for (int x = 0; x < left; x++) {
                int k = remaining[x];
                int len = hops[k];
                int count = routeCount[k];
                long best = Long.MAX_VALUE;
                int bestAt = -1;
                for (int r = 0, at = routesAt[k]; r < count; r++, at += len) {
                    long cost = 0;
                    for (int h = at; h < at + len && cost < best; h++) {
                        cost += weight[channels[h]];
                    }
                    if (cost < best) {
                        best = cost;
                        bestAt = at;
                    }
                }
                if (best >= baseCost) {
                    return false;
                }
                chosen[k] = bestAt;
                boolean crosses = false;
                for (int h = bestAt; h < bestAt + len && !crosses; h++) {
                    crosses = takenInRound[channels[h]] == round;
                }
                taken[k] = !crosses;
                if (!crosses) {
                    for (int h = bestAt; h < bestAt + len; h++) {
                        takenInRound[channels[h]] = round;
                    }
                }
            }
            walked = true;
            return true;
        }

        /** A round by one search of the whole routing graph for the cheapest route to each destination (Algorithm 4). */
        void searchRound(Search search, RoutingGraph g, Torus t, SourceRoutes.Builder b, int i, int[] weight, long baseCost, int[] takenInRound,
                         int round) {
            int source = g.begin(b.member(i));
            for (int x = 0; x < left; x++) {
                search.destinations[x] = members[remaining[x]];
            }
            search.run(g, source, search.destinations, left, b, weight, baseCost);
            ensure(used + left * SourceRoutes.MAX_HOPS);
            int at = used;
            for (int x = 0; x < left; x++) {
                int k = remaining[x];
                chosen[k] = at;
                hops[k] = pathTo(g, t, source, g.end(b.member(members[k])), search.parentEdge, search.parent, directions, at);
                taken[k] = !crosses(t, b.member(i), directions, at, hops[k], takenInRound, round);
                if (taken[k]) {
                    mark(t, b.member(i), directions, at, hops[k], takenInRound, round);
                }
                at += hops[k];
            }
        }
    }

    /** Dimensions in which u and v differ, less one: the turns of a direction-order route between them. */
    static int turns(Torus t, int u, int v) {
        int differ = 0;
        for (int k = 0; k < t.dimensions(); k++) {
            differ += t.coordinate(u, k) != t.coordinate(v, k) ? 1 : 0;
        }
        return Math.max(0, differ - 1);
    }

    /**
     * Breadth-first search with relaxation (Algorithm 4), reusable: the vertices a search touched
     * are reset by the next one (not the whole graph), and its targets are marked in an array.
     */
    private static final class Search {
        final long[] distance;
        final int[] parentEdge;
        final int[] parent;
        final int[] queue;
        final boolean[] queued;
        final boolean[] target;
        final int[] destinations;
        int touched;

        Search(int vertices, int members) {
            distance = new long[vertices];
            Arrays.fill(distance, Long.MAX_VALUE);
            parentEdge = new int[vertices];
            parent = new int[vertices];
            queue = new int[vertices];
            queued = new boolean[vertices];
            target = new boolean[vertices];
            destinations = new int[members];
        }

        /** From source until every destination's end vertex is settled (its level is done). */
        void run(RoutingGraph g, int source, int[] destinations, int count, SourceRoutes.Builder b, int[] weight, long baseCost) {
            for (int k = 0; k < touched; k++) {
                distance[queue[k]] = Long.MAX_VALUE;
            }
            for (int k = 0; k < count; k++) {
                target[g.end(b.member(destinations[k]))] = true;
            }
            distance[source] = 0;
            parentEdge[source] = -1;
            int head = 0;
            int tail = 0;
            queue[tail++] = source;
            int reached = 0;
            while (head < tail) {
                int levelEnd = tail;
                for (int i = head; i < levelEnd; i++) {
                    int u = queue[i];
                    queued[u] = false;
                    for (int e = g.firstEdge(u); e < g.firstEdge(u + 1); e++) {
                        int v = g.edgeTarget(e);
                        int c = g.edgeLink(e);
                        long d = distance[u] + (c < 0 ? 0 : baseCost + weight[c]);
                        if (d < distance[v]) {
                            if (distance[v] == Long.MAX_VALUE) {
                                reached += target[v] ? 1 : 0;
                                queue[tail++] = v; // first reached: queued once (later improvements come within its level)
                                queued[v] = true;
                            } else if (!queued[v]) {
                                queued[v] = true;
                                queue[tail++] = v;
                            }
                            distance[v] = d;
                            parentEdge[v] = e;
                            parent[v] = u;
                        }
                    }
                }
                head = levelEnd;
                if (reached == count) {
                    break;
                }
            }
            for (int k = head; k < tail; k++) {
                queued[queue[k]] = false;
            }
            touched = tail;
            for (int k = 0; k < count; k++) {
                target[g.end(b.member(destinations[k]))] = false;
            }
        }
    }

    /** Writes the route to {@code end} in the search tree, as directions from the source, into {@code out} from {@code at}; its hops. */
    private static int pathTo(RoutingGraph g, Torus t, int source, int end, int[] parentEdge, int[] parent, byte[] out, int at) {
        int len = 0;
        for (int v = end; v != source; v = parent[v]) {
            len += g.edgeLink(parentEdge[v]) >= 0 ? 1 : 0;
        }
        int h = len;
        for (int v = end; v != source; v = parent[v]) {
            int c = g.edgeLink(parentEdge[v]);
            if (c >= 0) {
                out[at + --h] = (byte) (c % t.directions());
            }
        }
        return len;
    }

    /** True if the route ({@code len} directions of {@code dirs} from {@code at}) from u uses a channel taken this round. */
    private static boolean crosses(Torus t, int u, byte[] dirs, int at, int len, int[] taken, int round) {
        int node = u;
        for (int h = 0; h < len; h++) {
            int c = t.channel(node, dirs[at + h]);
            if (taken[c] == round) {
                return true;
            }
            node = t.next(c);
        }
        return false;
    }

    private static void mark(Torus t, int u, byte[] dirs, int at, int len, int[] taken, int round) {
        int node = u;
        for (int h = 0; h < len; h++) {
            int c = t.channel(node, dirs[at + h]);
            taken[c] = round;
            node = t.next(c);
        }
    }

    /** Takes the route for pair (i, j) and raises its links' weights. */
    private static void apply(SourceRoutes.Builder b, Torus t, int i, int j, byte[] dirs, int len, int[] weight) {
        apply(b, t, i, j, dirs, 0, len, weight);
    }

    private static void apply(SourceRoutes.Builder b, Torus t, int i, int j, byte[] dirs, int at, int len, int[] weight) {
        b.route(i, j, dirs, at, len);
        int node = b.member(i);
        for (int h = at; h < at + len; h++) {
            int c = t.channel(node, dirs[h]);
            weight[c]++;
            node = t.next(c);
        }
    }
}
