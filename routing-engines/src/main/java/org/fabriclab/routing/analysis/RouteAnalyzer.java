package org.fabriclab.routing.analysis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.fabriclab.routing.dragonfly.DragonflyPaths;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.PathLanes;
import org.fabriclab.routing.engine.SwitchGraph;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.graph.ChannelDependencyGraph;

/**
 * Judges forwarding tables by tracing every ordered pair of endpoints in a node set: reachability
 * (with the reason a route fails), loops, path lengths against the shortest, routes per channel,
 * and the channel dependency graph of each lane.
 *
 * <p>Routes are destination-based, so the routes to one destination form a tree: the analysis
 * resolves each switch's next hop once per destination (memoised, iteratively), takes the sources
 * attached to one switch together, and pushes source counts down the tree from the farthest
 * switch, which costs O(switches) per destination instead of O(pairs x hops). It trusts nothing in the tables: entries may be missing,
 * out of range, point at an uncabled port or a wrong CA, or loop.
 *
 * <p>Threads are the caller's: by default the analysis runs on the calling thread; a caller that
 * wants it shared passes an {@link Executor} and how many of its threads the analysis may use
 * (the library starts none, by the project's one-way rule). The report is the same either way.
 */
public final class RouteAnalyzer {
    private static final int MAX_EXAMPLES = 10;
    /** Pairs x switches below which one worker analyses alone (a worker costs more than it saves). */
    private static final long PARALLEL_WORK = 1_000_000L;
    private static final int UNRESOLVED = Integer.MIN_VALUE;
    // failure codes (negative), delivered routes have hop counts >= 0
    private static final int NO_ENTRY = -1;
    private static final int BAD_PORT = -2;
    private static final int UNCABLED = -3;
    private static final int WRONG_CA = -4;
    private static final int LOOP = -5;
    private static final int TO_SELF = -6;
    private static final String[] REASONS = {"", "no LFT entry", "port out of range", "port not cabled",
        "forwarded to the wrong CA", "routing loop", "forwarded to the switch itself (port 0)"};

    private RouteAnalyzer() {
    }

    /** Analyses routes among all endpoints, on the calling thread. */
    public static RouteReport analyze(ForwardingTables t) {
        return analyze(t, Optional.empty());
    }

    /** Analyses routes among the endpoints in {@code nodeSet} (all, when empty), on the calling thread. */
    public static RouteReport analyze(ForwardingTables t, Optional<BitSet> nodeSet) {
        return analyze(t, nodeSet, Runnable::run, 1);
    }

    /**
     * As {@link #analyze(ForwardingTables, Optional)}, shared among up to {@code parallelism}
     * workers (fewer for a small fabric) run by {@code executor}. The caller works too, and runs
     * itself any share the executor has not started when it is done with its own, so an executor
     * that is busy, saturated by the caller itself or shut down only slows the analysis.
     *
     * @param parallelism how many workers at most, the calling thread included (at least 1)
     */
    public static RouteReport analyze(ForwardingTables t, Optional<BitSet> nodeSet, Executor executor, int parallelism) {
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism " + parallelism + " must be at least 1");
        }
        return new Run(t, nodeSet).run(executor, parallelism, 0);
    }

    /** As the above on exactly {@code workers} workers whatever the fabric's size (tests of the merge). */
    static RouteReport analyzeOn(ForwardingTables t, Optional<BitSet> nodeSet, Executor executor, int workers) {
        return new Run(t, nodeSet).run(executor, workers, workers);
    }

    /** Why a switch's entry cannot forward, or null if it names a cabled port. */
    static String checkPort(Fabric f, int node, int port, int lid) {
        String where = " at switch \"" + f.name(node) + "\" for LID " + lid;
        if (port == ForwardingTables.NO_PATH) {
            return REASONS[-NO_ENTRY] + where;
        }
        if (port == 0) {
            return REASONS[-TO_SELF] + where;
        }
        if (port > f.portCount(node)) {
            return REASONS[-BAD_PORT] + " (" + port + ")" + where;
        }
        if (f.peerNode(f.globalPort(node, port)) == Fabric.NONE) {
            return REASONS[-UNCABLED] + " (" + port + ")" + where;
        }
        return null;
    }

    /**
     * What every worker of one analysis shares, read-only: the members grouped by their switch
     * (those of {@code sourceSwitch[k]} are {@code grouped[groupStart[k] .. groupStart[k+1])}),
     * the members cabled to no switch, and the numbering of dependency bits (dependency c1 -> c2,
     * where c2 leaves c1's far end on port p, is bit {@code dependencyBase[c1] + p - 1}).
     */
    private record Plan(ForwardingTables t, SwitchGraph graph, int[] members, long[] dependencyBase, int[] sourceSwitch,
                        int[] groupStart, int[] grouped, int[] detached) {
        static Plan of(ForwardingTables t, Optional<BitSet> nodeSet) {
            Fabric f = t.fabric();
            int n = f.switchCount();
            int[] members = nodeSet.map(b -> b.stream().filter(e -> e < f.endpointCount()).toArray())
                    .orElseGet(() -> IntStream.range(0, f.endpointCount()).toArray());
            long[] dependencyBase = new long[f.globalPortCount() + 1];
            for (int g = 0; g < f.globalPortCount(); g++) {
                int peer = f.peerNode(g);
                dependencyBase[g + 1] = dependencyBase[g] + (peer != Fabric.NONE && f.isSwitch(peer) ? f.portCount(peer) : 0);
            }
            int[] count = new int[n];
            int detachedCount = 0;
            for (int e : members) {
                int sw = switchOf(f, e);
                if (sw < 0) {
                    detachedCount++;
                } else {
                    count[sw]++;
                }
            }
            int groups = 0;
            for (int c : count) {
                groups += c > 0 ? 1 : 0;
            }
            int[] sourceSwitch = new int[groups];
            int[] groupStart = new int[groups + 1];
            int[] slot = new int[n];
            for (int sw = 0, k = 0; sw < n; sw++) {
                if (count[sw] > 0) {
                    sourceSwitch[k] = sw;
                    groupStart[k + 1] = groupStart[k] + count[sw];
                    slot[sw] = groupStart[k];
                    k++;
                }
            }
            int[] grouped = new int[members.length - detachedCount];
            int[] detached = new int[detachedCount];
            for (int e : members) {
                int sw = switchOf(f, e);
                if (sw < 0) {
                    detached[--detachedCount] = e;
                } else {
                    grouped[slot[sw]++] = e;
                }
            }
            return new Plan(t, new SwitchGraph(f), members, dependencyBase, sourceSwitch, groupStart, grouped, detached);
        }
    }

    /** The switch index endpoint {@code e} is cabled to, or -1. */
    private static int switchOf(Fabric f, int e) {
        int sw = f.endpointSwitch(e);
        return sw == Fabric.NONE ? -1 : f.switchIndex(sw);
    }

    /**
     * One worker's contiguous share of the destinations, run once by whichever thread claims it
     * first: one of the executor's, or the caller when it has finished its own share.
     */
    private static final class Share implements Runnable {
        private final Run run;
        private final int[] dests;
        private final int from;
        private final int to;
        private final AtomicBoolean claimed = new AtomicBoolean();
        private final CompletableFuture<Void> done = new CompletableFuture<>();

        Share(Run run, int[] dests, int from, int to) {
            this.run = run;
            this.dests = dests;
            this.from = from;
            this.to = to;
        }

        @Override
        public void run() {
            if (!claimed.compareAndSet(false, true)) {
                return;
            }
            try {
                run.destinations(dests, from, to);
                done.complete(null);
            } catch (RuntimeException | Error x) {
                done.completeExceptionally(x);
            }
        }
    }

    /** State of one analysis; arrays sized once and reused for every destination. */
    private static final class Run {
        private final Plan plan;
        private final ForwardingTables t;
        private final Fabric f;
        private final SwitchGraph graph;
        private final int[] members;
        /** As in {@link Plan}. */
        private final int[] sourceSwitch;
        private final int[] groupStart;
        private final int[] grouped;
        /** Members cabled to no switch. */
        private final int[] detached;
        private final PathLanes lanes;
        private final int laneCount;
        private final int n;
        private final int[] result;
        private final int[] next;
        private final int[] outChannel;
        private final int[] failAt;
        private final int[] touched;
        private int touchedCount;
        private final long[][] weight;
        private final long[] load;
        private final long[][] dependencyBits;
        private final long[] dependencyBase;
        private final int[] stack;
        private final int[] bfs;
        private final int[] queue;
        private final int[] order;
        private final Map<String, Long> reasons = new TreeMap<>();
        private final List<String> examples = new ArrayList<>();
        private long pairs;
        private long unreachable;
        private long nonMinimal;
        private long[] histogram = new long[16];
        private long hopSum;
        private int maxHops;

        Run(ForwardingTables t, Optional<BitSet> nodeSet) {
            this(Plan.of(t, nodeSet));
        }

        /** A worker on {@code plan}'s fabric and members, with state of its own. */
        Run(Plan plan) {
            this.plan = plan;
            t = plan.t();
            f = t.fabric();
            graph = plan.graph();
            n = f.switchCount();
            members = plan.members();
            lanes = t.lanes();
            laneCount = lanes.laneCount();
            dependencyBase = plan.dependencyBase();
            sourceSwitch = plan.sourceSwitch();
            groupStart = plan.groupStart();
            grouped = plan.grouped();
            detached = plan.detached();
            result = new int[n];
            next = new int[n];
            outChannel = new int[n];
            failAt = new int[n];
            touched = new int[n];
            weight = new long[laneCount][n];
            load = new long[f.globalPortCount()];
            stack = new int[n + 1];
            bfs = new int[n];
            queue = new int[n];
            order = new int[n];
            dependencyBits = new long[laneCount][(int) ((dependencyBase[f.globalPortCount()] + 63) >>> 6)];
            Arrays.fill(result, UNRESOLVED);
        }

        /**
         * Analyses every destination, on up to {@code parallelism} workers for large fabrics: each
         * worker takes a contiguous share of the destinations (grouped by switch) with state of its
         * own, and the shares are summed in order, so the report is the same however many ran.
         */
        RouteReport run(Executor executor, int parallelism, int forcedWorkers) {
            // group destinations by their switch so one BFS serves all of a switch's endpoints
            int[] dests = Arrays.stream(members).boxed().sorted((a, b) -> Integer.compare(switchOf(a), switchOf(b)))
                    .mapToInt(Integer::intValue).toArray();
            long work = (long) dests.length * (sourceSwitch.length + detached.length + n);
            int workers = forcedWorkers > 0 ? forcedWorkers : (int) Math.max(1, Math.min(parallelism, work / PARALLEL_WORK));
            Share[] shares = new Share[workers];
            for (int w = 1; w < workers; w++) {
                shares[w] = new Share(new Run(plan), dests, (int) ((long) dests.length * w / workers),
                        (int) ((long) dests.length * (w + 1) / workers));
                try {
                    executor.execute(shares[w]);
                } catch (RejectedExecutionException e) {
                    // the caller runs it below
                }
            }
            destinations(dests, 0, dests.length / workers);
            for (int w = 1; w < workers; w++) {
                shares[w].run(); // unless a worker has claimed it
                try {
                    shares[w].done.get();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("route analysis interrupted", e);
                } catch (ExecutionException e) {
                    throw new IllegalStateException("route analysis failed: " + e.getCause(), e.getCause());
                }
                merge(shares[w].run);
            }
            return report();
        }

        private void destinations(int[] dests, int from, int to) {
            int lastSwitch = Integer.MIN_VALUE;
            for (int i = from; i < to; i++) {
                int d = dests[i];
                int ds = switchOf(d);
                if (ds != lastSwitch && ds >= 0) {
                    graph.bfs(ds, bfs, queue);
                    lastSwitch = ds;
                }
                destination(d, ds);
            }
        }

        /** Adds another worker's share (which came after this one's) to this one. */
        private void merge(Run o) {
            pairs += o.pairs;
            unreachable += o.unreachable;
            nonMinimal += o.nonMinimal;
            hopSum += o.hopSum;
            maxHops = Math.max(maxHops, o.maxHops);
            if (o.histogram.length > histogram.length) {
                histogram = Arrays.copyOf(histogram, o.histogram.length);
            }
            for (int i = 0; i < o.histogram.length; i++) {
                histogram[i] += o.histogram[i];
            }
            o.reasons.forEach((k, v) -> reasons.merge(k, v, Long::sum));
            for (String x : o.examples) {
                if (examples.size() < MAX_EXAMPLES) {
                    examples.add(x);
                }
            }
            for (int c = 0; c < load.length; c++) {
                load[c] += o.load[c];
            }
            for (int l = 0; l < laneCount; l++) {
                for (int i = 0; i < dependencyBits[l].length; i++) {
                    dependencyBits[l][i] |= o.dependencyBits[l][i];
                }
            }
        }

        private int switchOf(int e) {
            return RouteAnalyzer.switchOf(f, e);
        }

        private void destination(int d, int ds) {
            int lid = t.lids().endpointLid(d);
            for (int e : detached) {
                if (e != d) {
                    fail(e, d, UNCABLED, -1, 1);
                }
            }
            for (int k = 0; k < sourceSwitch.length; k++) {
                int s0 = sourceSwitch[k];
                int sources = groupStart[k + 1] - groupStart[k] - (s0 == ds ? 1 : 0);
                if (sources == 0) {
                    continue;
                }
                int r = ds < 0 ? UNCABLED : resolve(s0, d, lid);
                if (r < 0) {
                    for (int i = groupStart[k]; i < groupStart[k + 1]; i++) {
                        if (grouped[i] != d) {
                            fail(grouped[i], d, r, ds < 0 ? -1 : failAt[s0], sources);
                            break;
                        }
                    }
                    continue;
                }
                pairs += sources;
                if (r >= histogram.length) {
                    histogram = Arrays.copyOf(histogram, Math.max(r + 1, histogram.length * 2));
                }
                histogram[r] += sources;
                hopSum += (long) r * sources;
                maxHops = Math.max(maxHops, r);
                if (r > bfs[s0]) {
                    nonMinimal += sources;
                }
                if (laneCount == 1) {
                    weight[0][s0] += sources;
                } else {
                    for (int i = groupStart[k]; i < groupStart[k + 1]; i++) {
                        if (grouped[i] != d) {
                            weight[lanes.lane(grouped[i], lid)][s0]++;
                        }
                    }
                }
            }
            pushLoads();
            for (int i = 0; i < touchedCount; i++) {
                result[touched[i]] = UNRESOLVED;
            }
            touchedCount = 0;
        }

        /** Counts {@code sources} unroutable pairs to {@code d} for reason {@code code}, {@code e} the example. */
        private void fail(int e, int d, int code, int blamedSwitch, int sources) {
            pairs += sources;
            unreachable += sources;
            String reason = REASONS[-code];
            reasons.merge(reason, (long) sources, Long::sum);
            if (examples.size() < MAX_EXAMPLES) {
                examples.add(f.endpointName(e) + " -> " + f.endpointName(d) + ": " + reason
                        + (blamedSwitch >= 0 ? " at switch \"" + f.name(f.switchNode(blamedSwitch)) + "\"" : ""));
            }
        }

        /** Hops from switch s to the destination, or a failure code; memoised per destination. */
        private int resolve(int s0, int d, int lid) {
            if (result[s0] != UNRESOLVED) {
                return result[s0];
            }
            int depth = 0;
            int s = s0;
            int outcome;
            int blame;
            // walk until a resolved switch, a terminal entry, or a switch already on this walk
            while (true) {
                if (result[s] != UNRESOLVED) {
                    outcome = result[s];
                    blame = failAt[s];
                    break;
                }
                result[s] = LOOP - 100; // on the walk
                touched[touchedCount++] = s;
                stack[depth++] = s;
                int node = f.switchNode(s);
                int port = t.port(s, lid);
                int code = terminal(node, port, d);
                if (code != 0) {
                    outcome = code == 1 ? 0 : code;
                    blame = s;
                    depth--;
                    result[s] = outcome;
                    failAt[s] = blame;
                    next[s] = -1;
                    break;
                }
                int g = f.globalPort(node, port);
                int peer = f.switchIndex(f.peerNode(g));
                next[s] = peer;
                outChannel[s] = g;
                if (result[peer] == LOOP - 100) {
                    outcome = LOOP;
                    blame = peer;
                    while (depth > 0) {
                        int x = stack[--depth];
                        result[x] = LOOP;
                        failAt[x] = blame;
                    }
                    return result[s0];
                }
                s = peer;
            }
            while (depth > 0) {
                int x = stack[--depth];
                outcome = outcome >= 0 ? outcome + 1 : outcome;
                result[x] = outcome;
                failAt[x] = blame;
            }
            return result[s0];
        }

        /** 0: forwards to a switch; 1: delivers to the destination; negative: failure code. */
        private int terminal(int node, int port, int d) {
            if (port == ForwardingTables.NO_PATH) {
                return NO_ENTRY;
            }
            if (port == 0) {
                return TO_SELF;
            }
            if (port > f.portCount(node)) {
                return BAD_PORT;
            }
            int g = f.globalPort(node, port);
            int peer = f.peerNode(g);
            if (peer == Fabric.NONE) {
                return UNCABLED;
            }
            if (!f.isSwitch(peer)) {
                return f.peerGlobalPort(g) == f.endpointPort(d) ? 1 : WRONG_CA;
            }
            return 0;
        }

        /** Pushes source counts down the destination's tree, farthest switch first. */
        private void pushLoads() {
            int max = 0;
            for (int i = 0; i < touchedCount; i++) {
                max = Math.max(max, result[touched[i]]);
            }
            int[] start = new int[max + 2];
            for (int i = 0; i < touchedCount; i++) {
                int r = result[touched[i]];
                if (r > 0) {
                    start[max - r + 1]++;
                }
            }
            for (int i = 1; i < start.length; i++) {
                start[i] += start[i - 1];
            }
            int count = start[start.length - 1];
            for (int i = 0; i < touchedCount; i++) {
                int r = result[touched[i]];
                if (r > 0) {
                    order[start[max - r]++] = touched[i];
                }
            }
            for (int k = 0; k < count; k++) {
                int s = order[k];
                int nx = next[s];
                int ch = outChannel[s];
                for (int l = 0; l < laneCount; l++) {
                    long w = weight[l][s];
                    if (w == 0) {
                        continue;
                    }
                    weight[l][s] = 0;
                    load[ch] += w;
                    weight[l][nx] += w;
                    if (result[nx] > 0) {
                        int p2 = outChannel[nx] - f.portBase(f.switchNode(nx));
                        long bit = dependencyBase[ch] + p2;
                        dependencyBits[l][(int) (bit >>> 6)] |= 1L << bit;
                    }
                }
            }
            for (int i = 0; i < touchedCount; i++) {
                for (int l = 0; l < laneCount; l++) {
                    weight[l][touched[i]] = 0;
                }
            }
        }

        private RouteReport report() {
            int channels = graph.channelCount();
            long max = 0;
            long min = channels == 0 ? 0 : Long.MAX_VALUE;
            long total = 0;
            for (int i = 0; i < channels; i++) {
                long l = load[graph.channel(i)];
                max = Math.max(max, l);
                min = Math.min(min, l);
                total += l;
            }
            double mean = channels == 0 ? 0 : (double) total / channels;
            double fourth = 0;
            for (int i = 0; i < channels; i++) {
                double dev = Math.abs(mean - load[graph.channel(i)]);
                fourth += dev * dev * dev * dev;
            }
            double sigma4 = channels == 0 ? 0 : Math.pow(fourth / channels, 0.25);
            boolean deadlockFree = true;
            List<String> cycle = List.of();
            for (int l = 0; l < laneCount && deadlockFree; l++) {
                ChannelDependencyGraph cdg = dependencyGraph(l);
                Optional<int[]> c = cdg.findCycle();
                if (c.isPresent()) {
                    deadlockFree = false;
                    cycle = describe(c.get(), l);
                }
            }
            long reachable = pairs - unreachable;
            int lanes = laneCount;
            int longest = maxHops;
            DragonflyPaths.Proof proof = null;
            if (t.dragonfly() != null) {
                // the packets take the algorithm's paths on its VCs, not the LFT's minimal ones on their lanes
                proof = DragonflyPaths.prove(t.dragonfly());
                deadlockFree = proof.deadlockFree();
                cycle = proof.cycle();
                lanes = proof.vcs();
                longest = Math.max(maxHops, proof.maxHops());
            }
            return new RouteReport(t.engine(), n, members.length, pairs, unreachable, reasons, examples, nonMinimal,
                    channels, max, min, mean, sigma4, longest, reachable == 0 ? 0 : (double) hopSum / reachable,
                    Arrays.copyOf(histogram, maxHops + 1), lanes, deadlockFree, cycle, proof);
        }

        private ChannelDependencyGraph dependencyGraph(int lane) {
            ChannelDependencyGraph.Builder b = ChannelDependencyGraph.builder(f.globalPortCount());
            long[] bits = dependencyBits[lane];
            for (int c1 = 0; c1 < f.globalPortCount(); c1++) {
                long base = dependencyBase[c1];
                int width = (int) (dependencyBase[c1 + 1] - base);
                for (int p = 0; p < width; p++) {
                    long bit = base + p;
                    if ((bits[(int) (bit >>> 6)] & (1L << bit)) != 0) {
                        b.add(c1, f.portBase(f.peerNode(c1)) + p);
                    }
                }
            }
            return b.build();
        }

        private List<String> describe(int[] cycle, int lane) {
            List<String> out = new ArrayList<>();
            for (int c : cycle) {
                int node = f.nodeOfGlobalPort(c);
                out.add(f.name(node) + "[" + (c - f.portBase(node) + 1) + "]->" + f.name(f.peerNode(c)) + " (VL" + lane + ")");
            }
            return out;
        }
    }
}
