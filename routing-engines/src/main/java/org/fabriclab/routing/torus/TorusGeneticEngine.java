package org.fabriclab.routing.torus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * {@code torus-genetic}: section 4.2 of the Angara paper. A gene is one pair's route, chosen among
 * the pair's variants (its distinct shortest routes under the rules, up to {@link #VARIANTS}); a
 * chromosome is a gene per pair, a whole routing table. The first generation is {@link
 * #POPULATION} random chromosomes; each generation pairs random parents (panmixia) for two-point
 * crossover, changes each child's genes with probability {@link #MUTATION}, and keeps the best
 * {@link #POPULATION} of parents and children by fitness sigma(4,R) (lower is better). It stops
 * after {@link #PATIENCE} generations without a better chromosome, at fitness 0, or after {@link
 * #MAX_GENERATIONS}. Seeded: the same seed gives the same routes.
 */
public final class TorusGeneticEngine implements TorusEngine {
    public static final String NAME = "torus-genetic";
    static final int POPULATION = 100;
    static final double MUTATION = 0.02;
    static final int PATIENCE = 30;
    static final int MAX_GENERATIONS = 5_000;
    /** Route variants kept per pair (the paper does not bound them; on Desmos no pair has more). */
    static final int VARIANTS = 64;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public SourceRoutes route(RoutingGraph g, int[] nodes, long seed) {
        Torus t = g.torus();
        SourceRoutes.Builder b = new SourceRoutes.Builder(t, nodes);
        int m = b.size();
        // the variants of every routable pair, as channel lists
        List<int[]> pairs = new ArrayList<>(); // (i, j)
        List<byte[][]> routes = new ArrayList<>();
        List<int[][]> channels = new ArrayList<>();
        ShortestRoutes shortest = new ShortestRoutes(g);
        for (int i = 0; i < m; i++) {
            shortest.from(g.begin(b.member(i)));
            for (int j = 0; j < m; j++) {
                if (i == j) {
                    continue;
                }
                int end = g.end(b.member(j));
                if (!shortest.reached(end)) {
                    b.unroutable(i, j);
                    continue;
                }
                byte[][] v = shortest.routes(end, VARIANTS).toArray(new byte[0][]);
                int[][] c = new int[v.length][];
                for (int k = 0; k < v.length; k++) {
                    c[k] = channelsOf(t, b.member(i), v[k]);
                }
                pairs.add(new int[] {i, j});
                routes.add(v);
                channels.add(c);
            }
        }
        int genes = pairs.size();
        int[] variants = new int[genes];
        for (int p = 0; p < genes; p++) {
            variants[p] = routes.get(p).length;
        }
        SplittableRandom random = new SplittableRandom(seed);
        int[][] population = new int[POPULATION][genes];
        double[] fitness = new double[POPULATION];
        long[] load = new long[t.channelIds()];
        for (int c = 0; c < POPULATION; c++) {
            for (int p = 0; p < genes; p++) {
                population[c][p] = random.nextInt(variants[p]);
            }
            fitness[c] = sigma4(population[c], channels, load);
        }
        int[][] children = new int[POPULATION][genes];
        double[] childFitness = new double[POPULATION];
        double best = Arrays.stream(fitness).min().orElse(0);
        int stale = 0;
        for (int generation = 0; generation < MAX_GENERATIONS && stale < PATIENCE && best > 0 && genes > 1; generation++) {
            for (int c = 0; c + 1 < POPULATION; c += 2) {
                int[] a = population[random.nextInt(POPULATION)];
                int[] d = population[random.nextInt(POPULATION)];
                int x = random.nextInt(genes);
                int y = random.nextInt(genes);
                int lo = Math.min(x, y);
                int hi = Math.max(x, y);
                for (int p = 0; p < genes; p++) {
                    boolean middle = p >= lo && p < hi;
                    children[c][p] = middle ? d[p] : a[p];
                    children[c + 1][p] = middle ? a[p] : d[p];
                }
                mutate(children[c], variants, random);
                mutate(children[c + 1], variants, random);
                childFitness[c] = sigma4(children[c], channels, load);
                childFitness[c + 1] = sigma4(children[c + 1], channels, load);
            }
            // the best POPULATION of parents and children survive
            Integer[] order = new Integer[2 * POPULATION];
            for (int k = 0; k < order.length; k++) {
                order[k] = k;
            }
            double[] all = new double[2 * POPULATION];
            System.arraycopy(fitness, 0, all, 0, POPULATION);
            System.arraycopy(childFitness, 0, all, POPULATION, POPULATION);
            Arrays.sort(order, (p, q) -> Double.compare(all[p], all[q]));
            int[][] next = new int[POPULATION][];
            double[] nextFitness = new double[POPULATION];
            for (int k = 0; k < POPULATION; k++) {
                int from = order[k];
                next[k] = (from < POPULATION ? population[from] : children[from - POPULATION]).clone();
                nextFitness[k] = all[from];
            }
            population = next;
            fitness = nextFitness;
            if (fitness[0] < best) {
                best = fitness[0];
                stale = 0;
            } else {
                stale++;
            }
        }
        int winner = 0;
        for (int c = 1; c < POPULATION; c++) {
            if (fitness[c] < fitness[winner]) {
                winner = c;
            }
        }
        for (int p = 0; p < genes; p++) {
            b.route(pairs.get(p)[0], pairs.get(p)[1], routes.get(p)[population[winner][p]]);
        }
        return b.build(NAME);
    }

    private static void mutate(int[] chromosome, int[] variants, SplittableRandom random) {
        for (int p = 0; p < chromosome.length; p++) {
            if (variants[p] > 1 && random.nextDouble() < MUTATION) {
                chromosome[p] = random.nextInt(variants[p]);
            }
        }
    }

    /** sigma(4,R) of a chromosome's routes, over the channels they use (as {@link SourceRouteAnalysis} computes it). */
    static double sigma4(int[] chromosome, List<int[][]> channels, long[] load) {
        Arrays.fill(load, 0);
        for (int p = 0; p < chromosome.length; p++) {
            for (int c : channels.get(p)[chromosome[p]]) {
                load[c]++;
            }
        }
        return SourceRouteAnalysis.sigma4(load);
    }

    private static int[] channelsOf(Torus t, int u, byte[] dirs) {
        int[] out = new int[dirs.length];
        int at = u;
        for (int h = 0; h < dirs.length; h++) {
            out[h] = t.channel(at, dirs[h]);
            at = t.next(out[h]);
        }
        return out;
    }
}
