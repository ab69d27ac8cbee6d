package org.fabriclab.emulator.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.fabriclab.agent.core.CrossbarArbitration;
import org.fabriclab.agent.core.FrameSizes;
import org.fabriclab.cli.DeprecatedSpelling;
import org.fabriclab.cli.EngineOption;
import org.fabriclab.cli.JsonOption;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.emulator.sweep.Sweep;
import org.fabriclab.emulator.sweep.SweepPlot;
import org.fabriclab.routing.dragonfly.DragonflyTables;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.format.Json;
import org.fabriclab.routing.format.QTableSnapshot;
import org.fabriclab.routing.format.QTableSnapshotException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code emulator sweep}: the offered-load curves of several engines on one fabric and pattern
 * (the Dragonfly papers' latency, throughput and hop-count figures), every (engine, load) point
 * simulated as {@code emulator sim} would, points side by side on {@code --threads} threads.
 * Each point's report is {@code emulator sim}'s for the same options, whatever the threads.
 */
@Command(name = "sweep", mixinStandardHelpOptions = true,
        description = "Simulate every (engine, offered load) point of a grid, in parallel, and write the latency, throughput and "
                + "hop-count curves (JSON, SVG).")
public final class SweepCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    SimOptions sim;

    @Option(names = "--engines", split = ",", paramLabel = "ENGINE", converter = EngineOption.NameConverter.class,
            description = "The engines to compare, comma-separated, each routing the whole fabric alone (no fallback: an engine "
                    + "that cannot route the fabric fails the sweep). 'fabricctl engines' lists them")
    List<String> engines;

    /** The spelling of {@code --engines}, kept with a warning: {@code --routing} names an engine chain nowhere else now. */
    @DeprecatedSpelling(use = "--engines ENGINE,..")
    @Option(names = "--routing", hidden = true, split = ",", paramLabel = "ENGINE", converter = EngineOption.NameConverter.class)
    List<String> routing;

    @Option(names = "--loads", required = true, paramLabel = "START:STOP:STEP|X,Y,..", converter = LoadGrid.Converter.class,
            description = "Offered loads per host (fractions of the link rate in (0, 1]): a range, STOP included (0.1:0.9:0.05), "
                    + "or a list (0.2,0.5,0.8)")
    LoadGrid loads;

    @Option(names = "--engine-duration", paramLabel = "ENGINE=TIME",
            description = "A duration of its own for an engine's points, repeatable (q-adaptive=1ms: an algorithm that learns needs "
                    + "longer to settle than --duration gives the others)")
    Map<String, String> engineDuration = new LinkedHashMap<>();

    @Option(names = "--engine-warmup", paramLabel = "ENGINE=TIME",
            description = "A warm-up of its own for an engine's points, repeatable (q-adaptive=900us). Default: --warmup, or a fifth "
                    + "of the engine's duration")
    Map<String, String> engineWarmup = new LinkedHashMap<>();

    @Option(names = "--engine-steady-window", paramLabel = "ENGINE=TIME",
            description = "With --until-steady: a window of its own for an engine's steady-state test, repeatable (q-adaptive=10us "
                    + "beside --steady-window 2us: a learning engine drifts too slowly for a short span to see). Default: --steady-window")
    Map<String, String> engineSteadyWindow = new LinkedHashMap<>();

    @Option(names = "--warm-start",
            description = "Each point of an engine that learns (q-adaptive) starts from the Q-tables the point at the next lower "
                    + "load ended with, from an empty network, and ends its warm-up when steady: its points run one after another "
                    + "in rising load on one thread. Needs --until-steady. Default: every point from the engine's seed")
    boolean warmStart;

    @Option(names = "--threads", paramLabel = "N",
            description = "Points simulated at once, one per thread. Default: the machine's processors")
    Integer threads;

    @Option(names = "--out", paramLabel = "FILE", description = "Also write the JSON report into FILE")
    Path outFile;

    @Option(names = "--svg", paramLabel = "FILE", description = "Also plot latency, throughput and hops against offered load into FILE (SVG)")
    Path svgFile;

    @Mixin
    JobOptions jobOptions;

    @Mixin
    JsonOption json;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<String> names = engines();
        sim.check();
        sim.checkEngineParams(String.join(",", names));
        Map<String, Long> durations = perEngine("--engine-duration", engineDuration, names);
        Map<String, Long> warmups = perEngine("--engine-warmup", engineWarmup, names);
        Map<String, Long> windows = perEngine("--engine-steady-window", engineSteadyWindow, names);
        if (!windows.isEmpty() && sim.untilSteady == null) {
            throw new IllegalArgumentException("--engine-steady-window is the width of an engine's --until-steady windows: give "
                    + "--until-steady too");
        }
        for (Map.Entry<String, Long> w : windows.entrySet()) {
            if (w.getValue() <= 0) {
                throw new IllegalArgumentException("Invalid value for option '--engine-steady-window': " + w.getKey() + "="
                        + engineSteadyWindow.get(w.getKey()) + " is not a width above 0 (e.g. q-adaptive=10us)");
            }
        }
        for (String engine : names) { // the steady-state test's windows must fit each engine's warm-up: refused before routing
            long window = windows.getOrDefault(engine, sim.steadyWindow == null ? 0 : sim.steadyWindow.nanos());
            long cap = warmup(engine, durations.getOrDefault(engine, sim.duration.nanos()), warmups);
            int needed = sim.untilSteady == null ? Simulation.Steady.WINDOWS : sim.steady(0).minWindows();
            sim.checkPrecise(false, durations.getOrDefault(engine, sim.duration.nanos()) - cap, engine);
            if (window > 0 && needed * window > cap) {
                throw new IllegalArgumentException("Invalid value for option '" + (windows.containsKey(engine) ? "--engine-steady-window"
                        : "--steady-window") + "': " + engine + "'s steady-state test needs " + needed + " windows of "
                        + window + " ns within its warm-up's cap (" + cap + " ns): give narrower windows or a longer warm-up");
            }
        }
        if (warmStart) {
            SimOptions.requireLearning("--warm-start", String.join(",", names));
            if (sim.untilSteady == null) {
                throw new IllegalArgumentException("--warm-start saves time only by ending each point's warm-up once it is steady (the "
                        + "learnt tables then settle it sooner than an empty seed): give --until-steady too");
            }
        }
        sim.checkScheduler(false, jobOptions.given());
        if (jobOptions.given() && spec.commandLine().getParseResult().hasMatchedOption("--pattern")) {
            throw new IllegalArgumentException("--pattern is every host's traffic; with --job each job's is its pattern= key");
        }
        // every point's jobs placed alike (the seed is the sweep's): refused here, before routing, if they do not fit
        jobOptions.place(sim.topology.fabric(), sim.seed.seed, loads.loads()[0], sim.routingMode, sim.payloadBytes(), sim.sourceQueue);
        int pool = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
        if (pool < 1) {
            throw new IllegalArgumentException("Invalid value for option '--threads': " + threads + " is not a number of threads; give 1 or more");
        }
        SimOptions.requireWritable("--out", outFile);
        SimOptions.requireWritable("--svg", svgFile);
        int points = names.size() * loads.loads().length;
        err.printf(Locale.ROOT, "emulator sweep: %d engine%s x %d load%s = %d points on %d thread%s%n", names.size(), plural(names.size()),
                loads.loads().length, plural(loads.loads().length), points, Math.min(pool, points), plural(Math.min(pool, points)));
        err.flush();
        long t0 = System.nanoTime();
        List<Sweep.Curve> curves;
        try {
            curves = Sweep.run(names, loads.loads(), engine -> sim.route(engine + ",no_fallback"), (t, load) -> {
                // a job without load= runs at the point's load; one with load= keeps it (sweep one job's load, the others fixed)
                Simulation.Builder b = sim.config(t).jobs(jobOptions.place(sim.topology.fabric(), sim.seed.seed, load, sim.routingMode,
                        sim.payloadBytes(), sim.sourceQueue));
                long d = durations.getOrDefault(t.engine(), sim.duration.nanos());
                b.durationNs(d).warmupNs(warmup(t.engine(), d, warmups));
                if (windows.containsKey(t.engine())) {
                    b.steady(sim.steady(windows.get(t.engine())));
                }
                return b;
            }, pool, sim.scheduler, warmStart ? WARM_START : null, progress(err));
        } catch (RoutingException e) {
            err.println("emulator sweep: routing failed: " + e.getMessage());
            err.flush();
            return 1;
        }
        Map<String, Object> report = report(curves, pool, (System.nanoTime() - t0) / 1_000_000);
        String text = Json.write(report);
        try {
            if (outFile != null) {
                Files.writeString(outFile, text + "\n");
            }
            if (svgFile != null) {
                Files.writeString(svgFile, SweepPlot.svg(String.format(Locale.ROOT, "%s, %s traffic: %s", sim.topology.spec(),
                        sim.patternName(), String.join(", ", names)), curves));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (json.json) {
            out.println(text);
        } else {
            table(out, curves);
        }
        out.flush();
        return 0;
    }

    /**
     * {@code --warm-start}: a Q-adaptive point starts from the Q-tables the point below it ended
     * with, issue 17's snapshot taken and installed in memory ({@link QTableSnapshot#of}, {@link
     * QTableSnapshot#seed}: the same values a {@code --save-qtables} file would carry into {@code
     * --qtable-seed snapshot:FILE}).
     */
    private static final Sweep.WarmStart WARM_START = new Sweep.WarmStart() {
        @Override
        public boolean learns(ForwardingTables tables) {
            return SimOptions.learnsQTables(tables);
        }

        @Override
        public ForwardingTables from(ForwardingTables tables, Simulation.Learnt learnt) {
            try {
                DragonflyTables d = tables.dragonfly();
                return tables.withDragonfly(QTableSnapshot.of(d, learnt.qTables(), 0).seed(d, "the point below's tables"), tables.engine());
            } catch (QTableSnapshotException e) { // the same routing's tables: always fit
                throw new IllegalStateException(e);
            }
        }
    };

    /** An engine's warm-up (with --until-steady, its cap) when its points simulate {@code durationNs}: its own, --warmup, or a fifth. */
    private long warmup(String engine, long durationNs, Map<String, Long> warmups) {
        return warmups.getOrDefault(engine, sim.warmup != null ? sim.warmup.nanos() : durationNs / 5);
    }

    /** Per engine, a time an option gives it; an engine not swept or a malformed time refused naming the option. */
    private static Map<String, Long> perEngine(String option, Map<String, String> given, List<String> engines) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> e : given.entrySet()) {
            if (!engines.contains(e.getKey())) {
                throw new IllegalArgumentException("Invalid value for option '" + option + "': " + e.getKey() + " is not one of the engines swept "
                        + engines);
            }
            try {
                out.put(e.getKey(), TimeSpan.parse(e.getValue()).nanos());
            } catch (IllegalArgumentException x) {
                throw new IllegalArgumentException("Invalid value for option '" + option + "': " + e.getKey() + "=" + e.getValue() + ": "
                        + x.getMessage());
            }
        }
        return out;
    }

    /** {@code --engines}, or its old spelling {@code --routing}; one of them, each engine once. */
    private List<String> engines() {
        if (engines != null && routing != null) {
            throw new IllegalArgumentException("--engines and --routing (its old spelling) both name the engines; give --engines only");
        }
        List<String> names = engines != null ? engines : routing;
        if (names == null) {
            throw new IllegalArgumentException("Missing required option: '--engines=ENGINE[,ENGINE...]'");
        }
        if (new HashSet<>(names).size() != names.size()) {
            throw new IllegalArgumentException("Invalid value for option '--engines': " + String.join(",", names) + " names an engine twice");
        }
        return names;
    }

    /** Progress on standard error: each engine routed, each point done (in the order they finish). */
    private static Sweep.Listener progress(PrintWriter err) {
        return new Sweep.Listener() {
            @Override
            public void routed(String engine, long millis) {
                err.printf(Locale.ROOT, "emulator sweep: routed %s in %d ms%n", engine, millis);
                err.flush();
            }

            @Override
            public void simulated(Sweep.Point p, int done, int total) {
                Simulation.Report r = p.report();
                String steady = p.config().steady() == null ? "" : r.steady()
                        ? String.format(Locale.ROOT, ", steady at %d us", r.steadyAtNs() / 1000)
                        : String.format(Locale.ROOT, ", not steady by %d us", p.config().warmupNs() / 1000);
                if (r.precision() != null) {
                    steady += r.precision().precise() ? String.format(Locale.ROOT, ", precise at %d us", r.simulatedNs() / 1000)
                            : String.format(Locale.ROOT, ", not precise by %d us", r.simulatedNs() / 1000);
                }
                if (p.warmFrom() != null) {
                    steady += ", from load " + number(p.warmFrom()) + "'s tables";
                }
                err.printf(Locale.ROOT, "emulator sweep: %d/%d %s load %s: throughput %.3f, %s (%.1f s)%s%s%n", done, total, p.engine(),
                        number(p.load()), r.throughput(), p.measured()
                                ? String.format(Locale.ROOT, "mean latency %.0f ns, %.2f hops", r.latencyMeanNs(), r.meanHops())
                                : "no packet measured", r.wallMillis() / 1000.0,
                        p.saturated() ? ", saturated" : "", steady);
                err.flush();
            }

            @Override
            public void note(String line) {
                err.println(line);
                err.flush();
            }
        };
    }

    /** The sweep's JSON: the fabric and options once, then per engine its points, each with every field of {@code emulator sim}'s report. */
    private Map<String, Object> report(List<Sweep.Curve> curves, int pool, long wallMillis) {
        Simulation.Config first = curves.get(0).points().get(0).config();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("topology", sim.topology.spec());
        m.put("pattern", jobOptions.given() ? "jobs" : sim.patternName());
        m.put("hosts", first.fabric().endpointCount());
        m.put("switches", first.fabric().switchCount());
        Map<String, Object> options = new LinkedHashMap<>();
        options.put("durationNs", first.durationNs());
        options.put("warmupNs", first.warmupNs());
        options.put("seed", first.seed());
        options.put("linkGbps", first.linkGbps());
        options.put("linkLatencyNs", first.latencyNs());
        options.put("vls", first.vls());
        options.put("bufferPackets", first.bufferPackets());
        options.put("outputBufferPackets", first.outputBufferPackets());
        options.put("sourceQueuePackets", first.sourceQueuePackets());
        options.put("payloadBytes", first.payloadBytes());
        options.put("packetBytes", first.payloadBytes() + FrameSizes.DATA_HEADER);
        options.put("adaptive", first.adaptive());
        if (first.routingMode() != RoutingMode.DEFAULT) {
            options.put("routingMode", first.routingMode().name()); // absent by default: the report stays as it was
        }
        if (first.arbitration() != CrossbarArbitration.ROUND_ROBIN) {
            options.put("arbitration", first.arbitration().label()); // absent by default, as routingMode
        }
        if (first.steady() != null) { // the same: absent without --until-steady
            options.put("untilSteady", first.steady().tolerance());
            options.put("steadyDrift", first.steady().drift());
        }
        if (first.precise() != null) { // the same: absent without --until-precise
            options.put("untilPrecise", first.precise().rel());
        }
        if (warmStart) { // the same: absent without --warm-start
            options.put("warmStart", true);
        }
        if (sim.scheduler != Simulation.Scheduler.GLOBAL) { // the same: absent with the default loop
            options.put("scheduler", sim.scheduler.name().toLowerCase(Locale.ROOT));
        }
        m.put("options", options);
        List<Object> loadList = new ArrayList<>();
        for (double l : loads.loads()) {
            loadList.add(l);
        }
        m.put("loads", loadList);
        m.put("threads", Math.min(pool, curves.size() * loads.loads().length));
        m.put("wallMillis", wallMillis);
        List<Object> engineList = new ArrayList<>();
        for (Sweep.Curve c : curves) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("engine", c.engine());
            e.put("routingMillis", c.routingMillis());
            e.put("durationNs", c.points().get(0).config().durationNs());
            e.put("warmupNs", c.points().get(0).config().warmupNs());
            if (c.points().get(0).config().steady() != null) {
                e.put("steadyWindowNs", c.points().get(0).config().steady().windowNs());
            }
            if (warmStart) {
                e.put("warmStart", WARM_START.learns(c.tables()));
            }
            List<Object> points = new ArrayList<>();
            for (Sweep.Point p : c.points()) {
                Map<String, Object> point = new LinkedHashMap<>();
                point.put("load", p.load());
                point.putAll(sim.report(p.config(), p.report()));
                if (jobOptions.given()) {
                    point.put("pattern", "jobs");
                    point.put("jobs", jobOptions.reports(p.config(), p.report()));
                }
                point.put("saturated", p.saturated());
                if (p.warmFrom() != null) {
                    point.put("warmStartFrom", p.warmFrom());
                }
                points.add(point);
            }
            e.put("points", points);
            engineList.add(e);
        }
        m.put("engines", engineList);
        return m;
    }

    /** Without {@code --json}: per engine, a row per load. */
    private static void table(PrintWriter out, List<Sweep.Curve> curves) {
        for (Sweep.Curve c : curves) {
            out.printf(Locale.ROOT, "%s%n%8s %10s %14s %14s %9s %10s%n", c.engine(), "load", "throughput", "latencyMeanNs", "latencyP99Ns",
                    "meanHops", "refused");
            for (Sweep.Point p : c.points()) {
                Simulation.Report r = p.report();
                out.printf(Locale.ROOT, "%8s %10.4f %14s %14s %9s %10d%s%n", number(p.load()), r.throughput(),
                        p.measured() ? String.format(Locale.ROOT, "%.1f", r.latencyMeanNs()) : "-",
                        p.measured() ? Long.toString(r.latencyP99Ns()) : "-",
                        p.measured() ? String.format(Locale.ROOT, "%.3f", r.meanHops()) : "-", r.packetsRefused(),
                        p.saturated() ? "  saturated" : "");
                for (int i = 0; i < r.jobs().size(); i++) {
                    Simulation.JobReport j = r.jobs().get(i);
                    // a closed-loop job's figure is its time per iteration (as emulator sim and the JSON give it)
                    String loop = p.config().jobs().get(i).loop() == null ? "" : String.format(Locale.ROOT, ", %d iterations, iteration mean "
                            + "%s ns, p99 %s ns", j.iterations(), j.iterations() > 0 ? String.format(Locale.ROOT, "%.1f", j.iterationMeanNs()) : "-",
                            j.iterations() > 0 ? Long.toString(j.iterationP99Ns()) : "-");
                    out.printf(Locale.ROOT, "%8s   job %s: accepted %.4f, message mean %s ns, p99 %s ns, non-minimal %s%s%n", "", j.name(),
                            j.throughput(), j.messagesCompleted() > 0 ? String.format(Locale.ROOT, "%.1f", j.messageMeanNs()) : "-",
                            j.messagesCompleted() > 0 ? Long.toString(j.messageP99Ns()) : "-",
                            Double.isNaN(j.nonMinimalShare()) ? "-" : String.format(Locale.ROOT, "%.3f", j.nonMinimalShare()), loop);
                }
            }
            out.println();
        }
    }

    private static String number(double load) {
        return BigDecimal.valueOf(load).stripTrailingZeros().toPlainString();
    }

    private static String plural(int n) {
        return n == 1 ? "" : "s";
    }
}
