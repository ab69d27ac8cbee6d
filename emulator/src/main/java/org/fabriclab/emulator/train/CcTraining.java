package org.fabriclab.emulator.train;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.fabriclab.agent.core.RlCc;
import org.fabriclab.agent.core.RlCcPolicy;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.emulator.sweep.Sweep;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.topology.Topologies;

/**
 * Trains an RL-CC policy on the simulator, in two stages standing in for the RL-CC paper's
 * "reinforcement learning in simulation, then distillation into boosted trees":
 * <ol>
 * <li><b>Teacher.</b> A small parametric rule ({@link Teacher}) is searched by the cross-entropy
 *     method, seeded: each iteration samples {@code population} parameter vectors around the
 *     current mean, runs each on every many-to-one episode ({@code flows} hosts of one 100 Gb/s
 *     switch sending to one at the line rate, as {@code bench/cc-many-to-one.sh} does, for {@code
 *     episode} ns) and scores it by the mean reward per decision; the best quarter sets the next
 *     mean and spread. The reward is Tessler et al.'s ("Reinforcement learning for datacenter
 *     congestion control", 2022, which the RL-CC paper builds on) as we use it: per decision,
 *     {@code -(target - rtt_ratio * sqrt(rate_frac))^2}: at its maximum every flow of a shared
 *     bottleneck has the same {@code rtt_ratio * sqrt(rate_frac)}, so the same rate, and the
 *     queue is what makes the product {@code target} at a full link.
 * <li><b>Student.</b> The best teacher is rolled out on every episode, each decision recorded as
 *     (features, the teacher's action); boosted trees ({@link BoostedTrees}, the paper's
 *     distillation) are fitted to them; then, {@code dagger} times, the student is rolled out, its
 *     decisions labelled with the teacher's actions and added, and the trees refitted (DAgger), so
 *     that the student learns the states it visits itself.
 * </ol>
 * Deterministic: the same options give the same policy text, whatever {@code threads}
 * (simulations are deterministic and their results are gathered in order).
 */
public final class CcTraining {
    /** The fabric of the episodes: one 32-port switch, as the paper's single-switch simulations. */
    public static final String TOPOLOGY = "fat-tree:k=32,levels=1";
    /** The teacher's parameters' names, with their search ranges in {@link #LOWER} and {@link #UPPER}. */
    static final List<String> TEACHER = List.of("target", "ai", "mi", "gain", "max_down");
    private static final double[] LOWER = {1.05, 1e-3, 0.01, 0.05, 0.05};
    private static final double[] UPPER = {4, 0.05, 0.1, 1, 0.9};
    /** The one parameter searched on a logarithmic scale: {@code ai}. */
    private static final int LOG_SCALE = 1;
    /** The teacher's largest increase at once: doubling. */
    static final double MAX_UP = 1;
    /** Samples the trees are fitted to at most (every k-th beyond). */
    private static final int MAX_SAMPLES = 60_000;

    /**
     * What to train on and how long.
     *
     * @param seed         the cross-entropy search's seed (and every episode's)
     * @param iterations   cross-entropy iterations
     * @param population   teachers tried per iteration
     * @param flows        the many-to-one episodes, by their number of flows
     * @param longShort    the long-short episodes, by their number of short flows (a long flow from host 1 to host 0,
     *                     and that many flows of {@link #SHORT_PACKETS} packets from hosts 2.. joining it at a quarter of
     *                     the episode: the RL-CC paper's recovery benchmark, as {@code emulator sim --long-short} runs it)
     * @param episodeNs    each episode's virtual time
     * @param rewardTarget the reward's {@code target}
     * @param trees        the student's trees
     * @param depth        the most comparisons on a tree's path
     * @param dagger       rounds of DAgger after the first fit
     * @param threads      simulations side by side (the result does not depend on it)
     */
    public record Options(long seed, int iterations, int population, List<Integer> flows, List<Integer> longShort, long episodeNs,
                          double rewardTarget, int trees, int depth, int dagger, int threads) {
        public Options {
            flows = List.copyOf(flows);
            longShort = List.copyOf(longShort);
        }
    }

    /** A long-short episode's short flows' size: 64 KiB of 256-byte payloads. */
    public static final int SHORT_PACKETS = 256;

    /**
     * What training gave: the policy file's text, the teacher's parameters (in {@link #TEACHER}
     * order) and the mean reward per decision of the teacher and of the student on the episodes,
     * the student's RMSE to the teacher over the samples it was fitted to.
     */
    public record Result(String policy, double[] teacher, double teacherReward, double studentReward, double rmse, int samples) {
    }

    /**
     * The rule the cross-entropy search tunes, an increase and a multiplicative decrease on the
     * reward's own quantity {@code u = rtt_ratio * sqrt(rate_frac)}: below {@code target}, the rate
     * grows by {@code ai} of the line and by {@code mi} of itself ({@code a = min(1, mi + ai /
     * rate_frac)}); at or above it, it falls by {@code min(max_down, gain (u - target) / u)}.
     * Flows converge to equal shares because both steps depend on the flow's rate (the slower
     * flow's increase is larger, the faster one's {@code u} and so its cut): a step of the same
     * size for every flow (which a rule on the RTT alone gives, all flows of a bottleneck seeing
     * the same RTT) keeps their ratios as they are, and a first rule of that form left 16 flows at
     * a CoV of 0.16. {@code mi} keeps the increase large enough for the trees to tell it from
     * none: with the additive increase alone (0.3% a decision at half the line) the distilled
     * trees came out at zero or below there, and 2 flows sat at 18 and 36 Gb/s with an empty queue.
     */
    record Teacher(double target, double ai, double mi, double gain, double maxDown) implements RlCc.Decider {
        static Teacher of(double[] p) {
            return new Teacher(p[0], p[1], p[2], p[3], p[4]);
        }

        @Override
        public double decide(double[] x) {
            double u = x[RlCcPolicy.RTT_RATIO] * Math.sqrt(x[RlCcPolicy.RATE_FRAC]);
            return u < target ? Math.min(MAX_UP, mi + ai / x[RlCcPolicy.RATE_FRAC]) : -Math.min(maxDown, gain * (u - target) / u);
        }
    }

    /**
     * One episode's decider: {@code actor} acts; the reward is summed; with a {@code label}, each
     * decision is recorded with its action (allocating per decision: training only, never the
     * runtime's path).
     */
    private static final class Episode implements RlCc.Decider {
        private final RlCc.Decider actor;
        private final RlCc.Decider label;
        private final double target;
        final List<double[]> x = new ArrayList<>();
        final List<Double> y = new ArrayList<>();
        double reward;
        long decisions;

        Episode(RlCc.Decider actor, RlCc.Decider label, double target) {
            this.actor = actor;
            this.label = label;
            this.target = target;
        }

        @Override
        public double decide(double[] features) {
            double d = target - features[RlCcPolicy.RTT_RATIO] * Math.sqrt(features[RlCcPolicy.RATE_FRAC]);
            reward -= d * d;
            decisions++;
            double a = actor.decide(features);
            if (label != null) {
                x.add(features.clone());
                y.add(label == actor ? a : label.decide(features));
            }
            return a;
        }

        double meanReward() {
            return decisions == 0 ? Double.NEGATIVE_INFINITY : reward / decisions;
        }
    }

    private final Options o;
    private final Fabric fabric;
    private final ForwardingTables tables;
    /** Every episode's flows: the many-to-one ones, then the long-short ones. */
    private final List<List<Simulation.Flow>> episodes = new ArrayList<>();

    private CcTraining(Options o) throws RoutingException {
        this.o = o;
        fabric = Topologies.generate(TOPOLOGY);
        tables = EngineChain.parse("minhop").route(new RoutingRequest(fabric, LidAssigner.assign(fabric), RoutingOptions.DEFAULTS)).tables();
        for (int n : o.flows()) {
            episodes.add(Simulation.Flow.manyToOne(n, o.episodeNs())); // what emulator sim --many-to-one runs
        }
        for (int n : o.longShort()) {
            episodes.add(Simulation.Flow.longShort(n, SHORT_PACKETS, o.episodeNs() / 4, o.episodeNs())); // and --long-short
        }
    }

    /** Trains by {@code o}, telling {@code progress} a line per iteration. */
    public static Result train(Options o, Consumer<String> progress) throws RoutingException {
        return new CcTraining(o).run(progress);
    }

    /**
     * Runs {@code actor} on the episode of {@code flows}: one of {@code --threads} episodes at once,
     * its packet pool sized against that share of the heap, as {@code emulator sweep} sizes its
     * points' ({@link Simulation#run(Simulation.Config, int)}).
     */
    private Episode episode(List<Simulation.Flow> flows, RlCc.Decider actor, RlCc.Decider label) {
        Episode e = new Episode(actor, label, o.rewardTarget());
        Simulation.run(Simulation.Config.builder(fabric, tables).load(1).bufferPackets(32).outputBufferPackets(1024)
                .durationNs(o.episodeNs()).seed(o.seed()).flows(flows).cc(RlCc.Params.defaults().withPolicy(e, "training")).build(),
                o.threads());
        return e;
    }

    /** The mean over the episodes of the mean reward per decision of {@code actor}. */
    private double score(RlCc.Decider actor) {
        double sum = 0;
        for (List<Simulation.Flow> flows : episodes) {
            sum += episode(flows, actor, null).meanReward();
        }
        return sum / episodes.size();
    }

    private Result run(Consumer<String> progress) throws RoutingException {
        ExecutorService pool = Executors.newFixedThreadPool(o.threads(), r -> {
            Thread t = new Thread(r, "train-cc");
            t.setDaemon(true);
            return t;
        });
        try {
            double[] teacher = search(pool, progress);
            Teacher best = Teacher.of(teacher);
            List<double[]> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            Random augment = new Random(o.seed() ^ 0x5DEECE66DL);
            double teacherReward = collect(pool, best, best, xs, ys, augment);
            BoostedTrees student = fit(xs, ys);
            for (int round = 0; round < o.dagger(); round++) {
                BoostedTrees s = student;
                double r = collect(pool, s::predict, best, xs, ys, augment);
                progress.accept(String.format(Locale.ROOT, "train-cc: DAgger round %d/%d: student's reward %.5f, %d samples", round + 1,
                        o.dagger(), r, xs.size()));
                student = fit(xs, ys);
            }
            BoostedTrees s = student;
            double studentReward = collect(pool, s::predict, null, null, null, null);
            double sq = 0;
            for (int i = 0; i < xs.size(); i++) {
                double d = student.predict(xs.get(i)) - ys.get(i);
                sq += d * d;
            }
            double rmse = Math.sqrt(sq / Math.max(1, xs.size()));
            return new Result(text(student, teacher, teacherReward, studentReward, rmse, xs.size()), teacher, teacherReward, studentReward,
                    rmse, xs.size());
        } finally {
            pool.shutdownNow();
        }
    }

    /** The cross-entropy search for the teacher's parameters; returns the best seen. */
    private double[] search(ExecutorService pool, Consumer<String> progress) throws RoutingException {
        int dims = TEACHER.size();
        Random random = new Random(o.seed());
        double[] mean = new double[dims];
        double[] sd = new double[dims];
        Arrays.fill(mean, 0.5);
        Arrays.fill(sd, 0.25);
        double[] best = null;
        double bestScore = Double.NEGATIVE_INFINITY;
        int elite = Math.max(2, o.population() / 4);
        for (int it = 0; it < o.iterations(); it++) {
            double[][] unit = new double[o.population()][dims];
            List<Future<Double>> scores = new ArrayList<>();
            for (double[] u : unit) {
                for (int d = 0; d < dims; d++) {
                    u[d] = Math.max(0, Math.min(1, mean[d] + sd[d] * random.nextGaussian()));
                }
                Teacher t = Teacher.of(params(u));
                scores.add(pool.submit(() -> score(t)));
            }
            double[] score = new double[unit.length];
            for (int k = 0; k < unit.length; k++) {
                score[k] = Sweep.get(scores.get(k));
                if (score[k] > bestScore) {
                    bestScore = score[k];
                    best = params(unit[k]);
                }
            }
            Integer[] order = new Integer[unit.length];
            for (int k = 0; k < order.length; k++) {
                order[k] = k;
            }
            Arrays.sort(order, (a, b) -> score[a] != score[b] ? Double.compare(score[b], score[a]) : Integer.compare(a, b));
            for (int d = 0; d < dims; d++) {
                double m = 0;
                for (int k = 0; k < elite; k++) {
                    m += unit[order[k]][d];
                }
                m /= elite;
                double v = 0;
                for (int k = 0; k < elite; k++) {
                    v += (unit[order[k]][d] - m) * (unit[order[k]][d] - m);
                }
                mean[d] = m;
                sd[d] = Math.max(0.02, Math.sqrt(v / elite));
            }
            progress.accept(String.format(Locale.ROOT, "train-cc: iteration %d/%d: best reward %.5f (this iteration's %.5f), teacher %s",
                    it + 1, o.iterations(), bestScore, score[order[0]], describe(best)));
        }
        return best;
    }

    /** A point of the unit cube as the teacher's parameters: linear in each range but {@code ai}'s, logarithmic. */
    static double[] params(double[] u) {
        double[] p = new double[u.length];
        for (int d = 0; d < u.length; d++) {
            p[d] = d == LOG_SCALE ? LOWER[d] * Math.pow(UPPER[d] / LOWER[d], u[d]) : LOWER[d] + u[d] * (UPPER[d] - LOWER[d]);
        }
        return p;
    }

    /**
     * Rolls {@code actor} out on every episode, adding its decisions, labelled by {@code label}, to
     * {@code xs} and {@code ys} (none if {@code label} is null), each with two augmented copies
     * ({@link #augmented}, drawn from {@code augment}); returns the mean reward per decision.
     */
    private double collect(ExecutorService pool, RlCc.Decider actor, RlCc.Decider label, List<double[]> xs, List<Double> ys,
                           Random augment) throws RoutingException {
        List<Future<Episode>> runs = new ArrayList<>();
        for (List<Simulation.Flow> flows : episodes) {
            runs.add(pool.submit(() -> episode(flows, actor, label)));
        }
        double sum = 0;
        for (Future<Episode> f : runs) {
            Episode e = Sweep.get(f);
            sum += e.meanReward();
            if (label != null) {
                xs.addAll(e.x);
                ys.addAll(e.y);
                for (double[] x : e.x) {
                    for (int k = 0; k < 2; k++) {
                        double[] a = augmented(x, augment, k == 0 ? RlCcPolicy.RATE_FRAC : RlCcPolicy.RTT_RATIO);
                        xs.add(a);
                        ys.add(label.decide(a));
                    }
                }
            }
        }
        return sum / runs.size();
    }

    /**
     * {@code x} with one of two features drawn anew: the flow's rate ({@code feature} {@code
     * rate_frac}), log-uniform from a thousandth of the line to all of it (the ACKed rate scaled
     * with it), or its RTT ratio ({@code rtt_ratio}), log-uniform from 1 to 16 (the one before moved
     * with it, the trend kept). A flow's decisions come once per RTT while it is fast and once per
     * packet when slow, and a rollout of a good teacher seldom leaves its equilibrium; without
     * these states the trees extend the nearest ones there: before the rate was drawn, two of 16
     * flows fell to their floor and stayed (0.1 Gb/s after 10 ms); before the RTT was, 2 flows sat
     * at 29 Gb/s each with an empty queue.
     */
    static double[] augmented(double[] x, Random random, int feature) {
        double[] a = x.clone();
        if (feature == RlCcPolicy.RATE_FRAC) {
            double rate = Math.pow(10, -3 * random.nextDouble());
            a[RlCcPolicy.ACK_RATE_FRAC] = x[RlCcPolicy.RATE_FRAC] > 0 ? x[RlCcPolicy.ACK_RATE_FRAC] * rate / x[RlCcPolicy.RATE_FRAC] : rate;
            a[RlCcPolicy.RATE_FRAC] = rate;
        } else {
            double ratio = Math.pow(16, random.nextDouble());
            a[RlCcPolicy.RTT_RATIO_PREV] = Math.max(1, x[RlCcPolicy.RTT_RATIO_PREV] + ratio - x[RlCcPolicy.RTT_RATIO]);
            a[RlCcPolicy.RTT_RATIO] = ratio;
            a[RlCcPolicy.RTT_TREND] = ratio - a[RlCcPolicy.RTT_RATIO_PREV];
        }
        return a;
    }

    private BoostedTrees fit(List<double[]> xs, List<Double> ys) {
        int stride = (xs.size() + MAX_SAMPLES - 1) / MAX_SAMPLES;
        int n = (xs.size() + stride - 1) / stride;
        double[][] x = new double[n][];
        double[] y = new double[n];
        for (int k = 0; k < n; k++) {
            x[k] = xs.get(k * stride);
            y[k] = ys.get(k * stride);
        }
        return BoostedTrees.fit(x, y, o.trees(), o.depth(), 0.3, 20);
    }

    private static String describe(double[] p) {
        List<String> s = new ArrayList<>();
        for (int d = 0; d < p.length; d++) {
            s.add(String.format(Locale.ROOT, "%s=%.4g", TEACHER.get(d), p[d]));
        }
        return String.join(" ", s);
    }

    /** The options as the command line that gives them ({@code --threads} left out: it changes nothing). */
    public String command() {
        return String.format(Locale.ROOT, "emulator train-cc --seed %d --iterations %d --population %d --flows %s --episode %dns "
                        + "--reward-target %s --trees %d --depth %d --dagger %d", o.seed(), o.iterations(), o.population(),
                flowList(), o.episodeNs(), Double.toString(o.rewardTarget()),
                o.trees(), o.depth(), o.dagger()) + (o.longShort().isEmpty() ? "" : " --long-short-episodes " + join(o.longShort()));
    }

    private String flowList() {
        return join(o.flows());
    }

    private static String join(List<Integer> values) {
        return values.stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    private String text(BoostedTrees student, double[] teacher, double teacherReward, double studentReward, double rmse, int samples) {
        return RlCcPolicy.MAGIC + " " + RlCcPolicy.VERSION + "\n"
                + "# RL-CC policy trained by: " + command() + " --output FILE\n"
                + "# reward per decision: -(" + o.rewardTarget() + " - rtt_ratio * sqrt(rate_frac))^2, mean over the decisions of "
                + "each many-to-one episode (" + TOPOLOGY + ", " + flowList() + " flows to one host at the line rate, "
                + o.episodeNs() + " ns)" + (o.longShort().isEmpty() ? "" : " and long-short episode (a long flow, and "
                + join(o.longShort()) + " flows of " + SHORT_PACKETS + " packets joining it at a quarter of the episode)") + "\n"
                + "# teacher: a = u < target ? min(1, mi + ai / rate_frac) : -min(max_down, gain (u - target) / u), "
                + "u = rtt_ratio sqrt(rate_frac); "
                + describe(teacher) + "\n"
                + String.format(Locale.ROOT, "# mean reward per decision: teacher %.5f, this policy %.5f; RMSE to the teacher %.5f over %d "
                        + "samples", teacherReward, studentReward, rmse, samples) + "\n"
                + student.policyText();
    }
}
