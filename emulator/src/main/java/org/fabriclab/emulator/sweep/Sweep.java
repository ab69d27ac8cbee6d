package org.fabriclab.emulator.sweep;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiFunction;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;

/**
 * An offered-load sweep: every (engine, load) point of a grid simulated, as the Dragonfly papers
 * draw their latency, throughput and hop-count curves. Each engine is routed once; each point is
 * one {@link Simulation#run} of its own, on one thread of a fixed pool (the points share nothing
 * but the immutable fabric and tables), so the machine's cores run points side by side. A point's
 * report depends on its configuration and seed only, never on the number of threads or the order
 * in which points finish: the results are in grid order and the same for any pool size.
 *
 * <p>With a {@link WarmStart} the points of an engine that learns are not independent: each starts
 * from what the point at the next lower load learnt, so they run one after another in rising load,
 * as one task on one thread, while the other threads take the other points. The results are still
 * the same for any pool size: a chain's order is the loads', not the scheduler's.
 *
 * <p>Everything that can be refused is refused before the first simulation starts: routing (all
 * engines first) and every point's configuration.
 */
public final class Sweep {
    /** One engine's tables, from {@link Router}. */
    @FunctionalInterface
    public interface Router {
        ForwardingTables route(String engine) throws RoutingException;
    }

    /** What a sweep tells as it goes; called from the pool's threads, one call at a time. */
    public interface Listener {
        /** {@code engine} was routed in {@code millis} of wall time. */
        default void routed(String engine, long millis) {
        }

        /** Point {@code p} is done, the {@code done}-th of {@code total} to finish. */
        default void simulated(Point p, int done, int total) {
        }

        /** The simulator said {@code line} of the sweep's points, once for all ({@link Simulation#ONE_PROCESS}). */
        default void note(String line) {
        }
    }

    /**
     * The share of the offered load a point must carry not to count as saturated. Below saturation
     * the two differ only by the packets in flight at the window's edges, which nearly cancel (a
     * few tenths of a percent on the small dragonfly at 0.1 load over 16 us); 5% leaves room for
     * short windows at high latency.
     */
    public static final double CARRIED = 0.95;

    /**
     * Points that start from what the point below them learnt ({@code emulator sweep --warm-start}):
     * for an engine whose switches learn, each point but the lowest load's starts from the tables
     * the point at the next lower load ended with, from an empty network.
     */
    public interface WarmStart {
        /** Whether the switches of {@code tables} learn state worth carrying from one point to the next (Q-adaptive's Q-tables). */
        boolean learns(ForwardingTables tables);

        /** {@code tables} with every switch starting from what it had learnt at the end of {@code learnt}'s run. */
        ForwardingTables from(ForwardingTables tables, Simulation.Learnt learnt);
    }

    /** A listener that says nothing. */
    public static final Listener QUIET = new Listener() {
    };

    /**
     * One simulated point of an engine's curve.
     *
     * @param load     the offered load asked for (the report's {@code offeredLoad} is what the hosts' sources created)
     * @param warmFrom with a {@link WarmStart}, the load whose point's learnt state this one started from; null when it
     *                 started from its engine's tables as routed (every point without, the lowest load's with)
     */
    public record Point(String engine, double load, Simulation.Config config, Simulation.Report report, Double warmFrom) {
        /**
         * The fabric did not carry this load over the measured window: no packet created after the
         * warm-up arrived (latency and hops unmeasured), or the throughput fell short of the load
         * the sources offered (what they created, refused or not) by more than {@link #CARRIED}
         * allows. Packets refused during the warm-up alone do not make a point saturated: an
         * engine that learns (Q-adaptive) congests an empty fabric before it settles, and small
         * source queues (--source-queue) refuse then.
         */
        public boolean saturated() {
            return report.packetsDelivered() == 0 || report.throughput() < CARRIED * report.offeredLoad();
        }

        /** Whether latency and hops were measured (a packet created after the warm-up arrived). */
        public boolean measured() {
            return report.packetsDelivered() > 0;
        }
    }

    /** One engine's curve: its tables, the wall time routing took, a point per load in the grid's order. */
    public record Curve(String engine, ForwardingTables tables, long routingMillis, List<Point> points) {
        public Curve {
            points = List.copyOf(points);
        }
    }

    private Sweep() {
    }

    /**
     * Runs the grid {@code engines} x {@code loads} on {@code threads} threads.
     *
     * @param config per engine's tables and a point's load, the simulation but its load (the builder's load is set to
     *               the point's after; the load is given for what else follows it: jobs without a load of their own)
     * @param scheduler the event loop every point runs by ({@link Simulation.Scheduler}; the windowed one refuses
     *                  flows and jobs, before any point runs)
     * @param warm   null: every point starts from its engine's tables as routed; else the points of the engines it
     *               {@linkplain WarmStart#learns learns} for run in rising load, each from what the one below learnt
     * @return a curve per engine, in the order given, each with a point per load in the order given
     * @throws RoutingException         the first engine (in the order given) that could not route, named in its message
     * @throws IllegalArgumentException a point's configuration the simulator refuses, before any point runs
     */
    public static List<Curve> run(List<String> engines, double[] loads, Router router,
                                  BiFunction<ForwardingTables, Double, Simulation.Builder> config,
                                  int threads, Simulation.Scheduler scheduler, WarmStart warm, Listener listener)
            throws RoutingException {
        if (engines.isEmpty() || loads.length == 0) {
            throw new IllegalArgumentException("a sweep needs at least one engine and one load");
        }
        if (threads < 1) {
            throw new IllegalArgumentException("a sweep needs at least one thread, not " + threads);
        }
        int total = engines.size() * loads.length;
        int workers = Math.min(threads, Math.max(engines.size(), total));
        ExecutorService pool = Executors.newFixedThreadPool(workers, new Named());
        try {
            List<Future<ForwardingTables>> routing = new ArrayList<>();
            long[] millis = new long[engines.size()];
            for (int i = 0; i < engines.size(); i++) {
                String engine = engines.get(i);
                int index = i;
                routing.add(pool.submit(() -> {
                    long t0 = System.nanoTime();
                    ForwardingTables t = router.route(engine);
                    millis[index] = (System.nanoTime() - t0) / 1_000_000;
                    synchronized (listener) {
                        listener.routed(engine, millis[index]);
                    }
                    return t;
                }));
            }
            List<ForwardingTables> tables = new ArrayList<>();
            for (Future<ForwardingTables> f : routing) {
                tables.add(get(f)); // a RoutingException names its engine
            }
            List<Simulation.Config> configs = new ArrayList<>(); // every point checked before the first one runs
            for (ForwardingTables t : tables) {
                for (double load : loads) {
                    Simulation.Config c = config.apply(t, load).load(load).build();
                    scheduler.check(c);
                    configs.add(c);
                }
            }
            double[] work = new double[total];
            for (int k = 0; k < total; k++) {
                work[k] = configs.get(k).durationNs() * configs.get(k).load();
            }
            // the tasks: a point alone, or an engine's chain of points in rising load (k = engine * loads + load's index)
            List<int[]> tasks = new ArrayList<>();
            for (int i = 0; i < engines.size(); i++) {
                if (warm != null && warm.learns(tables.get(i))) {
                    tasks.add(risingLoad(i, loads));
                } else {
                    for (int j = 0; j < loads.length; j++) {
                        tasks.add(new int[] {i * loads.length + j});
                    }
                }
            }
            double[] taskWork = new double[tasks.size()];
            for (int t = 0; t < taskWork.length; t++) {
                for (int k : tasks.get(t)) {
                    taskWork[t] += work[k];
                }
            }
            AtomicInteger done = new AtomicInteger();
            AtomicBoolean toldGlobal = new AtomicBoolean();
            Point[] points = new Point[total];
            List<Future<?>> running = new ArrayList<>();
            for (int t : longestFirst(taskWork)) {
                int[] task = tasks.get(t);
                running.add(pool.submit(() -> {
                    ForwardingTables from = null; // a chain's tables as the point before left them
                    Double fromLoad = null;
                    for (int k : task) {
                        int i = k / loads.length;
                        double load = loads[k % loads.length];
                        Simulation.Config c = from == null ? configs.get(k) : config.apply(from, load).load(load).build();
                        boolean carry = task.length > 1 && k != task[task.length - 1];
                        // the points running at once share the heap: each sizes its packet pool against its share
                        // (the windowed loop's counts of its windows are not told: a sweep says one line a point; that
                        // the global loop runs a fabric of one process, once: every point's fabric is the same)
                        Simulation.Learnt learnt = Simulation.runLearning(c, scheduler, workers, note -> {
                            if (note.equals(Simulation.ONE_PROCESS) && toldGlobal.compareAndSet(false, true)) {
                                synchronized (listener) {
                                    listener.note(note);
                                }
                            }
                        });
                        Point p = new Point(engines.get(i), load, c, learnt.report(), fromLoad);
                        points[k] = p;
                        synchronized (listener) {
                            listener.simulated(p, done.incrementAndGet(), total);
                        }
                        if (carry) {
                            from = warm.from(tables.get(i), learnt);
                            fromLoad = load;
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : running) {
                get(f);
            }
            List<Curve> curves = new ArrayList<>();
            for (int i = 0; i < engines.size(); i++) {
                List<Point> curve = new ArrayList<>();
                for (int j = 0; j < loads.length; j++) {
                    curve.add(points[i * loads.length + j]);
                }
                curves.add(new Curve(engines.get(i), tables.get(i), millis[i], curve));
            }
            return curves;
        } finally {
            pool.shutdownNow(); // nothing left to run on success; on a failure, the rest is not wanted
        }
    }

    /** Engine {@code i}'s points' indices ({@code i * loads.length + j}) by rising load. */
    static int[] risingLoad(int i, double[] loads) {
        List<Integer> order = new ArrayList<>();
        for (int j = 0; j < loads.length; j++) {
            order.add(j);
        }
        order.sort(Comparator.comparingDouble((Integer j) -> loads[j]));
        return order.stream().mapToInt(j -> i * loads.length + j).toArray();
    }

    /**
     * The tasks' indices, the longest first by an estimate of their {@code work} (the sweep gives a
     * point simulated time x offered load: the packets to move; a warm-started chain the sum of its
     * points'), equals in the grid's order: the pool then ends on short points, not on one long
     * point running alone while the other threads idle (a Q-adaptive point learns over 1 ms where
     * the others run 300 us), and a chain, which no other thread can share, starts first. Each
     * point's report depends on its configuration (and a chain's on the loads below it) only, so
     * the order changes the sweep's wall time, not its results.
     */
    static List<Integer> longestFirst(double[] work) {
        List<Integer> order = new ArrayList<>();
        for (int k = 0; k < work.length; k++) {
            order.add(k);
        }
        order.sort(Comparator.comparingDouble((Integer k) -> -work[k]));
        return order;
    }

    /** The task's result, its own exception rethrown as it was (also {@code emulator.train}'s, whose simulations run side by side too). */
    public static <T> T get(Future<T> f) throws RoutingException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("the sweep was interrupted", e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RoutingException r) {
                throw r;
            }
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            if (cause instanceof Error r) {
                throw r;
            }
            throw new IllegalStateException(cause);
        }
    }

    /** The pool's threads: {@code sweep-1}, {@code sweep-2}, ..., daemons so a failed sweep never holds the JVM. */
    private static final class Named implements ThreadFactory {
        private final AtomicInteger next = new AtomicInteger(1);

        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, "sweep-" + next.getAndIncrement());
            t.setDaemon(true);
            return t;
        }
    }
}
