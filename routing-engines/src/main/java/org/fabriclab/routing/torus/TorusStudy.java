package org.fabriclab.routing.torus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.fabriclab.routing.topology.Topologies;

/**
 * The Angara paper's Figure 5: on random tori of n dimensions, each dimension's size drawn from
 * [min, max], every engine routes all nodes; the systems are grouped by whether an engine's
 * edge-forwarding index is less than, equal to or greater than BFS's, and each group reports its
 * number of systems and the ratio of the engine's total edge-forwarding index to BFS's; beside
 * that, each engine's routing time against the number of nodes. Seeded: the same arguments draw
 * the same systems.
 */
public final class TorusStudy {
    /** One system's results: its dimensions and, per engine, the edge-forwarding index, sigma(4,R) and routing milliseconds. */
    public record Sample(int[] dims, int nodes, Map<String, Long> efi, Map<String, Double> sigma4, Map<String, Double> millis) {
        /** The torus's sizes as a topology spec writes them: {@code 4x2x2}. */
        public String size() {
            return Arrays.stream(dims).mapToObj(Integer::toString).collect(Collectors.joining("x"));
        }
    }

    /** One group of Figure 5(a-c): the systems where {@code engine}'s index is {@code relation} ("less", "equal", "greater") BFS's. */
    public record Group(String engine, String relation, int systems, double efiRatio) {
    }

    /** Figure 5(d-f): an engine's routing time over the systems with {@code fromNodes..toNodes} nodes: median and maximum. */
    public record Runtime(String engine, int fromNodes, int toNodes, int systems, double medianMillis, double maxMillis) {
    }

    public record Result(int dimensions, List<Sample> systems, List<Group> groups, List<Runtime> runtimes) {
    }

    /** The node-count bands runtimes are summarised in. */
    static final int[][] BANDS = {{1, 50}, {51, 100}, {101, 200}, {201, 300}, {301, 400}, {401, 512}, {513, 1024}, {1025, 4096}};

    /** The largest torus a study routes: what the torus generator builds. */
    static final int MAX_NODES = 50_000;

    private TorusStudy() {
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }

    /** Nodes of a torus of {@code dims}, saturating (sizes up to an int's each, at most four of them). */
    private static long nodes(int[] dims) {
        long p = 1;
        for (int d : dims) {
            p = p > Long.MAX_VALUE / d ? Long.MAX_VALUE : p * d;
        }
        return p;
    }

    /**
     * Takes {@code count} distinct tori of {@code n} dimensions with sizes in [min, max] and at most
     * {@code maxNodes} nodes, in a seeded random order (all of them if there are no more: 49 in
     * 2D with sizes 2 to 8, the paper's 2D set), and routes each with every engine of {@code
     * engines} (the first must be torus-bfs, the reference).
     */
    public static Result run(int n, int count, int min, int max, int maxNodes, List<String> engines, long seed) {
        require(n >= 1 && n <= Torus.MAX_DIMENSIONS, "--dimensions " + n + ": a study's tori have 1 to " + Torus.MAX_DIMENSIONS + " dimensions");
        require(count >= 1, "--systems " + count + ": a study takes at least one system");
        require(min >= 2, "--min-size " + min + ": a dimension has at least 2 nodes");
        require(max >= min, "--max-size " + max + " is below --min-size " + min);
        require(maxNodes >= 1 && maxNodes <= MAX_NODES, "--max-nodes " + maxNodes + ": give 1 to " + MAX_NODES
                + " (the largest torus the generator builds)");
        require(!engines.isEmpty() && engines.get(0).equals(TorusBfsEngine.NAME), "--engines " + String.join(",", engines)
                + ": give torus-bfs first, the reference the others are compared with");
        // every torus of n dimensions with sizes in [min, max] and at most maxNodes nodes, in lexicographic order
        // (last dimension fastest), then a seeded order; a size is taken only while the dimensions after it,
        // at min, still fit maxNodes, so the walk visits the tori that fit and not all (max - min + 1)^n shapes
        List<int[]> all = new ArrayList<>();
        int[] dims0 = new int[n];
        Arrays.fill(dims0, min);
        boolean fits = nodes(dims0) <= maxNodes;
        while (fits) {
            all.add(dims0.clone());
            fits = false;
            for (int k = n - 1; k >= 0 && !fits; k--) {
                dims0[k]++;
                fits = dims0[k] <= max && nodes(dims0) <= maxNodes;
                if (!fits) {
                    dims0[k] = min;
                }
            }
        }
        if (all.isEmpty()) {
            throw new IllegalArgumentException("no torus of " + n + " dimensions in [" + min + ", " + max + "] has at most " + maxNodes + " nodes");
        }
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = all.size() - 1; i > 0; i--) {
            Collections.swap(all, i, random.nextInt(i + 1));
        }
        List<Sample> systems = new ArrayList<>();
        for (int[] dims : all.subList(0, Math.min(count, all.size()))) {
            StringBuilder spec = new StringBuilder("torus:");
            for (int k = 0; k < n; k++) {
                spec.append(k == 0 ? "" : "x").append(dims[k]);
            }
            Torus t = Torus.of(Topologies.generate(spec + ",hosts=0"));
            RoutingGraph g = RoutingGraph.withDeadlockFreeTurns(t);
            int[] every = IntStream.range(0, t.nodes()).toArray();
            Map<String, Long> efi = new LinkedHashMap<>();
            Map<String, Double> sigma = new LinkedHashMap<>();
            Map<String, Double> millis = new LinkedHashMap<>();
            for (String e : engines) {
                long t0 = System.nanoTime();
                SourceRoutes r = TorusEngines.create(e).route(g, every, seed);
                long t1 = System.nanoTime();
                SourceRouteAnalysis.Report a = SourceRouteAnalysis.analyze(r);
                efi.put(e, a.maxLoad());
                sigma.put(e, a.sigma4());
                millis.put(e, (t1 - t0) / 1e6);
            }
            systems.add(new Sample(dims, t.nodes(), efi, sigma, millis));
        }
        List<Group> groups = new ArrayList<>();
        for (String e : engines.subList(1, engines.size())) {
            for (String relation : List.of("less", "equal", "greater")) {
                int k = 0;
                long mine = 0;
                long bfs = 0;
                for (Sample s : systems) {
                    long x = s.efi().get(e);
                    long y = s.efi().get(TorusBfsEngine.NAME);
                    int c = Long.compare(x, y);
                    if (relation.equals("less") && c < 0 || relation.equals("equal") && c == 0 || relation.equals("greater") && c > 0) {
                        k++;
                        mine += x;
                        bfs += y;
                    }
                }
                groups.add(new Group(e, relation, k, bfs == 0 ? Double.NaN : (double) mine / bfs));
            }
        }
        List<Runtime> runtimes = new ArrayList<>();
        for (String e : engines) {
            for (int[] band : BANDS) {
                double[] ms = systems.stream().filter(x -> x.nodes() >= band[0] && x.nodes() <= band[1])
                        .mapToDouble(x -> x.millis().get(e)).sorted().toArray();
                if (ms.length > 0) {
                    runtimes.add(new Runtime(e, band[0], band[1], ms.length, ms[ms.length / 2], ms[ms.length - 1]));
                }
            }
        }
        return new Result(n, systems, groups, runtimes);
    }
}
