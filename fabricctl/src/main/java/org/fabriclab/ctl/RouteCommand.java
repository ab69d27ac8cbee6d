package org.fabriclab.ctl;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.Reader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.IntStream;
import org.fabriclab.cli.DeprecatedSpelling;
import org.fabriclab.cli.EngineOption;
import org.fabriclab.cli.EngineParamOption;
import org.fabriclab.cli.JsonOption;
import org.fabriclab.cli.SeedOption;
import org.fabriclab.cli.TopologyArg;
import org.fabriclab.routing.analysis.PathTracer;
import org.fabriclab.routing.analysis.RouteAnalyzer;
import org.fabriclab.routing.analysis.RouteReport;
import org.fabriclab.routing.dragonfly.DragonflyParams;
import org.fabriclab.routing.dragonfly.DragonflyPaths;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.engine.file.LftDumpWriter;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.fabric.Guids;
import org.fabriclab.routing.fabric.NodeSet;
import org.fabriclab.routing.format.Guid2LidFile;
import org.fabriclab.routing.format.TextLines;
import org.fabriclab.routing.format.Json;
import org.fabriclab.routing.format.LftDump;
import org.fabriclab.routing.lid.LidAssigner;
import org.fabriclab.routing.lid.LidAssignment;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.registry.RoutingEngines;
import org.fabriclab.routing.torus.CoordinatesFile;
import org.fabriclab.routing.torus.SourceRouteAnalysis;
import org.fabriclab.routing.torus.SourceRoutes;
import org.fabriclab.routing.torus.Torus;
import org.fabriclab.routing.torus.TorusEngines;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine;

/**
 * {@code fabricctl route}, two verbs under one name that share no code path: with
 * {@code --topology} it computes routes offline (no daemon), analyses them and reports, in the JSON
 * shape the command-line contract fixes ({@code routingMillis} is the engine chain's time alone;
 * LID assignment and analysis are timed apart); with {@code SRC DST} and no {@code --topology} it
 * traces the route the running daemon's switches hold ({@link RouteTrace}).
 */
@Command(name = "route", mixinStandardHelpOptions = true,
        description = {
            "Two modes that share no code:",
            "OFFLINE  route --topology SPEC [--engine CHAIN] ...",
            "         computes routes with an engine chain, no daemon, and reports",
            "         route quality (--topology, --engine, --engine-param, --nodes,",
            "         --roots, --seed, --lfts, --guid2lid, --warmup-runs, --runs,",
            "         --dump-paths, --dump-lfts, --coordinates).",
            "DAEMON   route SRC DST [--server HOST:PORT] [--timeout TIME]",
            "         traces SRC to DST through the running manager's switches'",
            "         own tables, hop by hop.",
            "Both take --json.", ""})
final class RouteCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--topology", paramLabel = "SPEC", converter = TopologyArg.Converter.class,
            description = "OFFLINE: route this topology (spec or file:PATH). Without it, trace SRC DST through the daemon's switches")
    TopologyArg topology;

    @Parameters(arity = "0..2", paramLabel = "SRC DST", description = "DAEMON: the two hosts to trace between")
    List<String> hosts = new ArrayList<>();

    /** DAEMON: {@code --server}, {@code --timeout}. */
    @Mixin
    Daemon daemon;

    @Mixin
    JsonOption json;

    /** OFFLINE: the engine chain. */
    @Mixin
    EngineOption engineOption;

    /** OFFLINE: the engines' parameters. */
    @Mixin
    EngineParamOption engineParams;

    @Option(names = "--nodes", paramLabel = "SET",
            description = "Hosts of the job: names and ranges, e.g. H0_0_[0-3],H1_1_0. Default: every host")
    String nodes;

    @Option(names = "--roots", paramLabel = "GUIDS", split = ",", description = "Up/down root switch GUIDs")
    List<String> roots = new ArrayList<>();

    @Mixin
    SeedOption seedOption;

    @Option(names = "--lfts", paramLabel = "FILE", description = "opensm-lfts.dump for the file engine")
    Path lfts;

    @Option(names = "--guid2lid", paramLabel = "FILE",
            description = "Keep LIDs across runs: read this OpenSM guid2lid file if it exists, write it after")
    Path guid2lid;

    @DeprecatedSpelling(names = "--warmup", use = "--warmup-runs N")
    @Option(names = {"--warmup-runs", "--warmup"}, defaultValue = "0", paramLabel = "N",
            description = "Route N times untimed first, so routingMillis is a warm JVM's time (as in the daemon); "
                    + "--warmup is the old, deprecated spelling. Default: ${DEFAULT-VALUE}")
    int warmup;

    /** Routing runs a command times, warm-up and timed each (bench scripts take 50 at most): a typo of 10^8 would route for days. */
    static final int MAX_RUNS = 1000;

    @Option(names = "--runs", defaultValue = "1", paramLabel = "N",
            description = "Time N runs after the warm-up: routingMillis is their median, routingMillisMin the fastest (default: 1)")
    int runs;

    @Option(names = "--dump-paths", paramLabel = "FILE", description = "Write every pair's route as JSON lines")
    Path dumpPaths;

    @Option(names = "--dump-lfts", paramLabel = "FILE", description = "Write the tables in OpenSM's opensm-lfts.dump format")
    Path dumpLfts;

    /** The chain and the seed, as the offline path reads them. */
    private String engine;
    private long seed;

    @Option(names = "--coordinates", paramLabel = "FILE",
            description = "Torus engines: switch coordinates, a line 'NAME x y [z [k]]' per switch (for a net file whose names do not carry them)")
    Path coordinates;

    @Override
    public Integer call() throws IOException, RoutingException {
        if (topology == null) {
            if (hosts.size() != 2) {
                throw new IllegalArgumentException("usage: fabricctl route SRC DST (through the daemon) or fabricctl route --topology SPEC (offline)");
            }
            return RouteTrace.run(daemon, json.json, hosts.get(0), hosts.get(1), spec.commandLine().getOut());
        }
        if (!hosts.isEmpty()) {
            throw new IllegalArgumentException("give either --topology SPEC (offline routing) or SRC DST (a trace through the daemon), not both");
        }
        engine = engineOption.chain;
        seed = seedOption.seed;
        Map<String, String> params = EngineParamOption.checked(engineParams.params, engine);
        Fabric fabric = topology.fabric();
        if (TorusEngines.isTorusEngine(engine)) {
            return routeTorus(fabric);
        }
        if (coordinates != null) {
            throw new IllegalArgumentException("--coordinates is for the torus engines (torus-bfs, torus-sssp, torus-genetic), not " + engine);
        }
        EngineChain chain = EngineChain.parse(engine);
        Map<Long, Integer> previous = Map.of();
        if (guid2lid != null && Files.exists(guid2lid)) {
            try (Reader r = TextLines.utf8(Files.newInputStream(guid2lid))) {
                Guid2LidFile.Contents read = Guid2LidFile.read(r, guid2lid.toString());
                read.skipped().forEach(e -> spec.commandLine().getErr().println("fabricctl route: " + e.getMessage()));
                previous = read.lids();
            }
        }
        LidAssignment lids = LidAssigner.assign(fabric, previous);
        RoutingOptions options = RoutingOptions.DEFAULTS.withSeed(seed).withParams(params);
        if (!roots.isEmpty()) {
            List<Long> guids = new ArrayList<>();
            for (String r : roots) {
                try {
                    guids.add(Guids.parse(r));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("--roots: " + e.getMessage() + "; give switch GUIDs as fabricctl topology "
                            + "--topology SPEC lists them, comma-separated");
                }
            }
            options = options.withRoots(guids);
        }
        Optional<BitSet> set = Optional.empty();
        if (nodes != null) {
            set = Optional.of(NodeSet.parse(fabric, nodes));
            options = options.withEndpoints(set.get());
        }
        if (lfts != null) {
            try (Reader r = TextLines.utf8(Files.newInputStream(lfts))) {
                options = options.withLftDump(LftDump.read(r, lfts.toString()));
            }
        }
        RoutingRequest request = new RoutingRequest(fabric, lids, options);

        Timed<EngineChain.Result> timed = timed(() -> chain.route(request));
        EngineChain.Result result = timed.result();
        long t1 = System.nanoTime();
        int cores = Runtime.getRuntime().availableProcessors();
        ExecutorService analysis = Executors.newFixedThreadPool(cores, r -> {
            Thread t = new Thread(r, "route-analysis");
            t.setDaemon(true);
            return t;
        });
        RouteReport report;
        try {
            report = RouteAnalyzer.analyze(result.tables(), set, analysis, cores);
        } finally {
            analysis.shutdown();
        }
        long t2 = System.nanoTime();

        if (guid2lid != null) {
            try (BufferedWriter w = Files.newBufferedWriter(guid2lid, StandardCharsets.UTF_8)) {
                Guid2LidFile.write(lids.byPortGuidRemembering(fabric, previous), w);
            }
        }
        if (dumpLfts != null) {
            try (BufferedWriter w = Files.newBufferedWriter(dumpLfts, StandardCharsets.UTF_8)) {
                LftDumpWriter.write(result.tables(), w);
            }
        }
        if (dumpPaths != null) {
            writePaths(result, set);
        }
        Map<String, Object> m = reportMap(report, result, fabric, timed, (t2 - t1) / 1e6);
        PrintWriter out = spec.commandLine().getOut();
        if (json.json) {
            out.println(Json.write(m));
        } else {
            printTable(out, m, report);
        }
        out.flush();
        return report.allReachable() ? 0 : 1;
    }

    /**
     * A torus engine of the Angara paper: source routes among the switches of the job's hosts (all
     * switches without --nodes), reported with the paper's measures: channel loads over the
     * channels in use, sigma(4,R), max D, and whether any cycle of channel dependencies has a turn.
     */
    private int routeTorus(Fabric fabric) throws IOException, RoutingException {
        if (dumpLfts != null || lfts != null || !roots.isEmpty()) {
            throw new IllegalArgumentException(engine + " makes source routes (Angara writes the route into each packet's header), "
                    + "not LFTs: --dump-lfts, --lfts and --roots do not apply; --dump-paths writes the routes");
        }
        BitSet set = nodes == null ? null : NodeSet.parse(fabric, nodes);
        Map<String, int[]> coords = Map.of();
        if (coordinates != null) {
            try (Reader r = TextLines.utf8(Files.newInputStream(coordinates))) {
                coords = CoordinatesFile.read(r, coordinates.toString(), fabric);
            }
        }
        Map<String, int[]> byName = coords;
        Timed<SourceRoutes> timed = timed(
                () -> TorusEngines.route(fabric, byName, engine, set, seed));
        SourceRoutes routes = timed.result();
        long t1 = System.nanoTime();
        SourceRouteAnalysis.Report r = SourceRouteAnalysis.analyze(routes);
        long t2 = System.nanoTime();
        if (dumpPaths != null) {
            writeSourceRoutes(routes);
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("engine", r.engine());
        m.put("sourceRouted", true);
        m.put("engineGuarantees", EnginesCommand.guarantees(RoutingEngines.create(engine).guarantees()));
        m.put("torusNodes", r.nodes());
        m.put("pairs", r.pairs());
        m.put("routingMillis", round(timed.medianMillis()));
        m.put("edgeForwardingIndex", r.maxLoad());
        m.put("minChannelLoad", r.minLoad());
        m.put("meanChannelLoad", round(r.meanLoad()));
        m.put("sigma4", round(r.sigma4()));
        m.put("maxHops", r.maxHops());
        m.put("meanHops", Math.round(r.meanHops() * 10000) / 10000.0);
        m.put("unreachablePairs", r.unroutablePairs());
        m.put("deadlockFree", r.deadlockFree());
        m.put("cdgCycle", r.cycle());
        m.put("topology", fabric.kind());
        m.put("channels", r.channelsUsed());
        timed.report(m);
        m.put("analysisMillis", round((t2 - t1) / 1e6));
        PrintWriter out = spec.commandLine().getOut();
        if (json.json) {
            out.println(Json.write(m));
        } else {
            DaemonCommands.print(out, false, m);
        }
        out.flush();
        return r.unroutablePairs() == 0 ? 0 : 1;
    }

    /** The routes as JSON lines, switch to switch: each hop the switch and the port it leaves by. */
    private void writeSourceRoutes(SourceRoutes routes) throws IOException {
        Torus t = routes.torus();
        try (BufferedWriter w = Files.newBufferedWriter(dumpPaths, StandardCharsets.UTF_8)) {
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < routes.size(); i++) {
                for (int j = 0; j < routes.size(); j++) {
                    if (i == j) {
                        continue;
                    }
                    Map<String, Object> line = new LinkedHashMap<>();
                    line.put("src", t.name(routes.member(i)));
                    line.put("dst", t.name(routes.member(j)));
                    List<Object> hops = new ArrayList<>();
                    int at = routes.member(i);
                    for (int h = 0; h < routes.length(i, j); h++) {
                        int c = t.channel(at, routes.direction(i, j, h));
                        hops.add(hop(t.name(at), t.port(c)));
                        at = t.next(c);
                    }
                    line.put("hops", hops);
                    line.put("directions", routes.describe(i, j));
                    if (routes.unroutable(i, j)) {
                        line.put("failure", "the Angara rules allow no route with the links there are");
                    }
                    sb.setLength(0);
                    Json.append(sb, line);
                    sb.append('\n');
                    w.write(sb.toString());
                }
            }
        }
    }

    /** Routing that may fail as an engine does. */
    private interface Routing<T> {
        T route() throws RoutingException, IOException;
    }

    /** The engine's result, its timed runs' median and fastest, the warm-ups before them, and the heap's peak in the first. */
    private record Timed<T>(T result, double medianMillis, double minMillis, int warmup, int runs, long peakHeap) {
        void report(Map<String, Object> m) {
            m.put("warmupRuns", warmup);
            m.put("timedRuns", runs);
            m.put("routingMillisMin", round(minMillis));
            m.put("routingPeakHeapMb", round(peakHeap / (1024.0 * 1024.0)));
        }
    }

    /**
     * Routes {@code --warmup} times untimed, then {@code --runs} times timed, the first after a
     * garbage collection (whose heap peak is reported); the others run on as a daemon would.
     */
    private <T> Timed<T> timed(Routing<T> routing) throws RoutingException, IOException {
        if (warmup < 0 || warmup > MAX_RUNS) {
            throw new IllegalArgumentException("--warmup-runs must be 0.." + MAX_RUNS + ", not " + warmup);
        }
        if (runs < 1 || runs > MAX_RUNS) {
            throw new IllegalArgumentException("--runs must be 1.." + MAX_RUNS + ", not " + runs);
        }
        for (int i = 0; i < warmup; i++) {
            routing.route();
        }
        List<MemoryPoolMXBean> heap = ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == MemoryType.HEAP).toList();
        double[] millis = new double[runs];
        T result = null;
        long peakHeap = 0;
        System.gc(); // garbage of the warm-up out of the first run's peak
        heap.forEach(MemoryPoolMXBean::resetPeakUsage);
        for (int i = 0; i < runs; i++) {
            long t0 = System.nanoTime();
            result = routing.route();
            millis[i] = (System.nanoTime() - t0) / 1e6;
            if (i == 0) {
                peakHeap = heap.stream().mapToLong(p -> p.getPeakUsage().getUsed()).sum();
            }
        }
        double[] sorted = millis.clone();
        Arrays.sort(sorted);
        double median = runs % 2 == 1 ? sorted[runs / 2] : (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2;
        return new Timed<>(result, median, sorted[0], warmup, runs, peakHeap);
    }

    /** One hop of a route as the command-line contract writes it: {@code {"node":..,"port":..}}, the out port. */
    static Map<String, Object> hop(String node, int port) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("node", node);
        m.put("port", port);
        return m;
    }

    private static Map<String, Object> reportMap(RouteReport r, EngineChain.Result result, Fabric fabric, Timed<?> timed,
                                                 double analysisMillis) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("engine", r.engine());
        m.put("switches", r.switches());
        m.put("hosts", r.hosts());
        m.put("pairs", r.pairs());
        m.put("routingMillis", round(timed.medianMillis()));
        m.put("edgeForwardingIndex", r.edgeForwardingIndex());
        m.put("minChannelLoad", r.minChannelLoad());
        m.put("meanChannelLoad", round(r.meanChannelLoad()));
        m.put("sigma4", round(r.sigma4()));
        m.put("maxHops", r.maxHops());
        m.put("meanHops", Math.round(r.meanHops() * 10000) / 10000.0);
        m.put("unreachablePairs", r.unreachablePairs());
        m.put("deadlockFree", r.deadlockFree());
        m.put("virtualLanes", r.virtualLanes());
        m.put("engineGuarantees", EnginesCommand.guarantees(result.guarantees()));
        m.put("topology", fabric.kind());
        m.put("links", fabric.linkCount());
        m.put("channels", r.channels());
        m.put("nonMinimalPairs", r.nonMinimalPairs());
        m.put("hopHistogram", r.hopHistogram());
        m.put("unreachableReasons", new LinkedHashMap<>(r.unreachableReasons()));
        m.put("unreachableExamples", r.unreachableExamples());
        m.put("cdgCycle", r.cdgCycle());
        if (r.dragonfly() != null) {
            m.put("dragonfly", dragonfly(r.dragonfly(), result.tables().dragonfly().of(0).params()));
        }
        m.put("fallbacks", result.failures().stream().map(Throwable::getMessage).toList());
        timed.report(m);
        m.put("analysisMillis", round(analysisMillis));
        return m;
    }

    /**
     * A Dragonfly engine's proof over every path its algorithm allows ({@code DragonflyPaths}), as
     * the report shows it (the report's {@code deadlockFree}, {@code virtualLanes} and
     * {@code maxHops} are the proof's), and the algorithm's parameters as the tables carry them to
     * the switches.
     */
    private static Map<String, Object> dragonfly(DragonflyPaths.Proof p, DragonflyParams params) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("algorithm", p.algorithm());
        m.put("vcs", p.vcs());
        m.put("hopBound", p.hopBound());
        m.put("maxHops", p.maxHops());
        m.put("paths", p.paths());
        m.put("dependencies", p.dependencies());
        m.put("deadlockFree", p.deadlockFree());
        m.put("cycle", p.cycle());
        m.put("violations", p.violations());
        m.put("examples", p.examples());
        Map<String, Object> given = new LinkedHashMap<>();
        given.put("alpha", params.alpha());
        given.put("beta", params.beta());
        given.put("epsilon", params.epsilon());
        given.put("q_thld1", params.qThld1());
        given.put("q_thld2", params.qThld2());
        given.put("ugal_threshold", params.ugalThreshold());
        given.put("ugal_bias", params.ugalBias());
        m.put("parameters", given);
        return m;
    }

    private static double round(double x) {
        return Math.round(x * 1000) / 1000.0;
    }

    private static void printTable(PrintWriter out, Map<String, Object> m, RouteReport r) {
        for (Map.Entry<String, Object> e : m.entrySet()) {
            Object v = e.getValue();
            if (v instanceof List<?> l && l.isEmpty() || v instanceof Map<?, ?> mm && mm.isEmpty()) {
                continue;
            }
            out.printf("%-22s %s%n", e.getKey(), v instanceof long[] || v instanceof List || v instanceof Map
                    ? Json.write(v) : v);
        }
        if (!r.allReachable()) {
            out.println("routes that fail (first " + r.unreachableExamples().size() + "):");
            r.unreachableExamples().forEach(x -> out.println("  " + x));
        }
    }

    private void writePaths(EngineChain.Result result, Optional<BitSet> set) throws IOException {
        Fabric f = result.tables().fabric();
        int[] members = set.map(b -> b.stream().toArray())
                .orElseGet(() -> IntStream.range(0, f.endpointCount()).toArray());
        try (BufferedWriter w = Files.newBufferedWriter(dumpPaths, StandardCharsets.UTF_8)) {
            StringBuilder sb = new StringBuilder();
            for (int s : members) {
                for (int d : members) {
                    if (s == d) {
                        continue;
                    }
                    PathTracer.Path p = PathTracer.trace(result.tables(), s, d);
                    List<Object> hops = new ArrayList<>();
                    for (PathTracer.Hop h : p.hops()) {
                        hops.add(hop(f.name(h.node()), h.port()));
                    }
                    Map<String, Object> line = new LinkedHashMap<>();
                    line.put("src", f.endpointName(s));
                    line.put("dst", f.endpointName(d));
                    line.put("hops", hops);
                    if (!p.delivered()) {
                        line.put("failure", p.failure());
                    }
                    sb.setLength(0);
                    Json.append(sb, line);
                    sb.append('\n');
                    w.write(sb.toString());
                }
            }
        }
    }
}
