package org.fabriclab.emulator.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.fabriclab.cli.DeprecatedSpelling;
import org.fabriclab.cli.EngineOption;
import org.fabriclab.cli.JsonOption;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.analysis.Fairness;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.format.Json;
import org.fabriclab.routing.format.QTableSnapshot;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code emulator sim}: a fabric in virtual time, routed offline, one report. */
@Command(name = "sim", mixinStandardHelpOptions = true,
        description = "Simulate a fabric in virtual time with the live agents' switch core: offered load in, throughput and latency out.")
public final class SimCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Mixin
    SimOptions sim;

    @Mixin
    EngineOption engine;

    @Option(names = "--load", defaultValue = "0.5", paramLabel = "X", description = "Offered load per host, a fraction of the link rate. Default: ${DEFAULT-VALUE}")
    double load;

    @Option(names = "--series", paramLabel = "TIME", converter = TimeSpan.Converter.class,
            description = "Add the run over time to the report: per bin of this width, by delivery time over the whole run "
                    + "(warm-up included), the packets delivered, their mean latency and the throughput. Default: none")
    TimeSpan series;

    @Option(names = "--link-loads",
            description = "Add every link between two switches to the report, each direction: the switch and port it leaves, the "
                    + "switch it reaches and the data it carried over the whole run (warm-up included) as a fraction of the link "
                    + "rate (linkLoads): how traffic spread over the fabric's links, parallel links included")
    boolean linkLoads;

    @Option(names = "--save-qtables", paramLabel = "FILE",
            description = "Write every router's Q-table as learnt by the end of the run to FILE, a Q-table snapshot (the daemon's "
                    + "format: put it in its STATE_DIR/qtables/ as NAME.qts and fabricctl qtable snapshot restore NAME loads it on "
                    + "the same fabric). q-adaptive only. Default: none")
    Path saveQTables;

    @Option(names = "--many-to-one", paramLabel = "N",
            description = "Instead of --pattern: N flows, from the fabric's hosts 1..N to host 0, each offered at --load for the whole "
                    + "run (the RL-CC paper's many-to-one). Adds each flow's throughput over the last four fifths (flowGbps), their "
                    + "sum as a fraction of one link (goodput) and their coefficient of variation (flowCov) to the report. Default: none")
    Integer manyToOne;

    @Option(names = "--all-to-all", paramLabel = "N",
            description = "Instead of --pattern: the RL-CC paper's all-to-all: every host of 0..N-1 sends to every other, N(N-1) flows "
                    + "for the whole run, each offered at --load / (N - 1) (so each host at --load). Adds each flow's throughput over "
                    + "the last four fifths (flowGbps, by source then destination), their sum as a fraction of N links (goodput) and "
                    + "their coefficient of variation (flowCov). Default: none")
    Integer allToAll;

    @Option(names = "--long-short", paramLabel = "N",
            description = "Instead of --pattern: the RL-CC paper's long-short: one long flow from host 1 to host 0 for the whole run, "
                    + "and N short flows from hosts 2..N+1 to host 0, each of --short-bytes, all starting at a quarter of the run, "
                    + "every flow offered at --load. Adds the long flow's bandwidth before, during and over time, its recovery time, and "
                    + "the short flows' completion times, plain and normalised (mean and p99). Default: none")
    Integer longShort;

    @Option(names = "--short-bytes", defaultValue = "65536", paramLabel = "BYTES",
            description = "With --long-short: each short flow's payload bytes (whole packets of --payload). Default: ${DEFAULT-VALUE}")
    long shortBytes;

    @Option(names = "--message", paramLabel = "BYTES",
            description = "With --all-to-all or --many-to-one: each flow sends messages of BYTES (4096, 64KiB, 1MiB; whole packets of "
                    + "--payload) instead of a stream: a message's packets created together and sent as a burst, messages at random "
                    + "(Poisson) at the flow's offered load, or every --message-gap. A message must fit its flow's share of the "
                    + "source queue (--source-queue over the host's flows). Adds the messages' completion times (mean, p99, and "
                    + "normalised over their frames' time alone at the link rate), each flow's mean message time and network "
                    + "latency (flowMessageMeanNs, flowNetworkLatencyNs), the switches' ECN marks and the hosts' CNPs. Default: none")
    String message;

    @Option(names = "--message-gap", paramLabel = "TIME", converter = TimeSpan.Converter.class,
            description = "With --message: a message every TIME from each flow's start, every flow in step (synchronised bursts), "
                    + "instead of Poisson messages at --load. Default: none")
    TimeSpan messageGap;

    @Mixin
    JobOptions jobOptions;

    @Mixin
    JsonOption json;

    /** The old name of {@code --engine} here (a field apart: picocli applies {@code --engine}'s default after parsing). */
    @DeprecatedSpelling(use = "--engine CHAIN")
    @Option(names = "--routing", hidden = true, paramLabel = "CHAIN", converter = EngineOption.ChainConverter.class)
    String routing;

    /** The most hosts {@code --all-to-all} takes: 64, 4,032 flows (each keeps a hundred bins of its bytes). */
    static final int MAX_ALL_TO_ALL = 64;

    /** A measured window shorter than this (10 us) is too short for a packet's trip, whatever the load. */
    private static final long SHORT_WINDOW_NS = 10_000;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        String chain = routing != null ? routing : engine.chain;
        sim.check();
        sim.checkEngineParams(chain);
        if (saveQTables != null) {
            SimOptions.requireLearning("--save-qtables", chain);
            SimOptions.requireWritable("--save-qtables", saveQTables);
        }
        long durationNs = sim.duration.positive("--duration").nanos(); // 0 read as "the warm-up (0 ns) must be shorter than the duration (0 ns)"
        if (series != null && (series.nanos() <= 0 || (durationNs + series.nanos() - 1) / series.nanos() > Simulation.MAX_SERIES_BINS)) {
            throw new IllegalArgumentException("Invalid value for option '--series': '" + series.text() + "' is not a bin width for "
                    + sim.duration.text() + ": give one above 0 that makes at most " + Simulation.MAX_SERIES_BINS + " bins (e.g. 10us)");
        }
        int hosts = sim.topology.fabric().endpointCount();
        if (manyToOne != null && (manyToOne < 1 || manyToOne >= hosts)) {
            throw new IllegalArgumentException("Invalid value for option '--many-to-one': " + manyToOne + " flows need 1.." + (hosts - 1)
                    + " senders besides the receiver; the fabric has " + hosts + " hosts");
        }
        List<Simulation.Flow> flows = new ArrayList<>();
        if (manyToOne != null) {
            flows.addAll(Simulation.Flow.manyToOne(manyToOne, durationNs));
        }
        List<Simulation.Job> jobs = jobOptions.place(sim.topology.fabric(), sim.seed.seed, load, sim.routingMode, sim.payloadBytes(),
                sim.sourceQueue);
        if (!jobs.isEmpty() && manyToOne != null) {
            throw new IllegalArgumentException("--job and --many-to-one both give the traffic; give one");
        }
        if (!jobs.isEmpty() && (allToAll != null || longShort != null)) {
            throw new IllegalArgumentException("--job and " + (allToAll != null ? "--all-to-all" : "--long-short") + " both give the traffic; give one");
        }
        boolean flowsGiven = manyToOne != null || allToAll != null || longShort != null;
        if ((!jobs.isEmpty() || flowsGiven) && spec.commandLine().getParseResult().hasMatchedOption("--pattern")) {
            throw new IllegalArgumentException("--pattern is every host's traffic; " + (jobs.isEmpty()
                    ? "--many-to-one, --all-to-all and --long-short give flows instead: give one or the other"
                    : "with --job each job's is its pattern= key"));
        }
        if (longShort == null && spec.commandLine().getParseResult().hasMatchedOption("--short-bytes")) {
            throw new IllegalArgumentException("--short-bytes is the size of --long-short's short flows: give --long-short N too");
        }
        if (allToAll != null && (manyToOne != null || longShort != null)) {
            throw new IllegalArgumentException("--all-to-all, --many-to-one and --long-short each give the traffic; give one");
        }
        if (allToAll != null && (allToAll < 2 || allToAll > Math.min(hosts, MAX_ALL_TO_ALL))) {
            throw new IllegalArgumentException("Invalid value for option '--all-to-all': " + allToAll + " hosts is outside 2.."
                    + Math.min(hosts, MAX_ALL_TO_ALL) + " (the fabric has " + hosts + " hosts)");
        }
        if (allToAll != null) {
            flows.addAll(Simulation.Flow.allToAll(allToAll, durationNs));
        }
        LongShort ls = longShort == null ? null : LongShort.of(longShort, shortBytes, manyToOne != null, hosts, sim, durationNs);
        if (ls != null) {
            flows.addAll(ls.flows());
        }
        Bursts bursts = Bursts.of(message, messageGap, manyToOne != null || allToAll != null, longShort != null,
                allToAll != null ? allToAll - 1 : 1, spec.commandLine().getParseResult().hasMatchedOption("--load"), sim);
        if (bursts != null) {
            flows = new ArrayList<>(bursts.apply(flows));
        }
        sim.checkPrecise(!flows.isEmpty(), durationNs - (sim.warmup == null ? durationNs / 5 : sim.warmup.nanos()), null);
        sim.checkScheduler(!flows.isEmpty(), !jobs.isEmpty());
        Simulation.Config config;
        try {
            config = sim.config(sim.route(chain)).load(allToAll == null ? load : load / (allToAll - 1))
                    .seriesNs(series == null ? 0 : series.nanos()).flows(flows).jobs(jobs).build();
        } catch (RoutingException e) {
            err.println("emulator sim: routing failed: " + e.getMessage());
            return 1;
        }
        if ((saveQTables != null || sim.qtableSeed != null) && !SimOptions.learnsQTables(config.tables())) {
            throw new IllegalArgumentException((saveQTables != null ? "--save-qtables" : "--qtable-seed") + ": the fabric is routed by "
                    + config.tables().engine() + ", which learns no Q-tables; they are q-adaptive's");
        }
        Simulation.Learnt learnt = Simulation.runLearning(config, sim.scheduler, 1, err::println);
        Simulation.Report r = learnt.report();
        if (saveQTables != null) {
            try {
                QTableSnapshot.of(config.tables().dragonfly(), learnt.qTables(), System.currentTimeMillis()).write(saveQTables);
            } catch (IOException e) {
                err.println("emulator sim: cannot write the Q-tables to " + saveQTables + " (" + e + ")");
                err.flush();
                return 1;
            }
        }
        long window = config.durationNs() - config.warmupNs();
        if (r.packetsDelivered() == 0 && window < SHORT_WINDOW_NS) {
            err.printf(Locale.ROOT, "emulator sim: no packet created after the warm-up (%s ns) arrived by the end (%s ns): the "
                    + "measured window of %d ns is shorter than packets take to cross a fabric, so latency and hops are not "
                    + "measured (null); simulate longer (--duration)%n", config.warmupNs(), config.durationNs(), window);
            err.flush();
        } else if (r.packetsDelivered() == 0) {
            err.printf(Locale.ROOT, "emulator sim: no packet created after the warm-up (%s ns) arrived by the end "
                    + "(%s ns), so latency and hops are not measured (null); throughput %.3f counts older packets. The fabric is "
                    + "saturated or deadlocked at this load: simulate longer (--duration), offer less (--load), or route "
                    + "deadlock-free (more --vls, another --engine)%n", config.warmupNs(), config.durationNs(), r.throughput());
            err.flush();
        }
        Map<String, Object> report = sim.report(config, r);
        if (!jobs.isEmpty()) {
            report.put("pattern", "jobs");
            report.put("jobs", jobOptions.reports(config, r));
            for (Simulation.JobReport jr : r.jobs()) {
                if (jr.messagesLost() > 0) {
                    err.printf(Locale.ROOT, "emulator sim: job %s had more messages in delivery at once than are tracked; %d are left "
                            + "out of its message times (messagesLost)%n", jr.name(), jr.messagesLost());
                    err.flush();
                }
            }
            if (learnt.nonminimalShare() >= 0) {
                report.put("nonMinimalShare", learnt.nonminimalShare());
            }
        }
        if (config.routingMode() != RoutingMode.DEFAULT) {
            // what the mode did: the switches' adaptive decisions that left the minimal path (over the whole run)
            report.put("nonMinimalShare", Double.isNaN(learnt.nonminimalShare()) ? null : learnt.nonminimalShare());
        }
        if (manyToOne != null || allToAll != null) {
            double[] gbps = r.phases().get(0).flowGbps();
            report.put("flows", gbps.length);
            report.put("flowGbps", Arrays.stream(gbps).boxed().toList());
            report.put("goodput", Arrays.stream(gbps).sum() / config.linkGbps() / (allToAll == null ? 1 : allToAll));
            report.put("flowCov", Fairness.coefficientOfVariation(gbps));
        }
        if (ls != null) {
            report.putAll(ls.report(r, config));
        }
        if (bursts != null) {
            report.putAll(bursts.report(r, config));
        }
        if (config.seriesNs() > 0) {
            report.put("seriesBinNs", config.seriesNs());
            report.put("series", series(r.series()));
        }
        if (linkLoads) {
            List<Map<String, Object>> loads = new ArrayList<>();
            for (Simulation.LinkLoad l : learnt.linkLoads()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("from", l.from());
                m.put("port", l.port());
                m.put("to", l.to());
                m.put("load", l.load());
                loads.add(m);
            }
            report.put("linkLoads", loads);
        }
        if (json.json) {
            out.println(Json.write(report));
        } else {
            TextReport.fields(out, report);
            if (!jobs.isEmpty()) {
                printJobs(out, report);
            }
            if (linkLoads) {
                TextReport.Table t = new TextReport.Table(new String[] {"from", "port", "to", "load"}, new boolean[] {false, true, false, true});
                for (Simulation.LinkLoad l : learnt.linkLoads()) {
                    t.row(l.from(), l.port(), l.to(), TextReport.fixed4(l.load()));
                }
                t.print(out);
            }
            if (config.seriesNs() > 0) {
                TextReport.Table t = new TextReport.Table(new String[] {"startNs", "packets", "latencyMeanNs", "throughput"},
                        new boolean[] {true, true, true, true});
                for (Simulation.SeriesBin b : r.series()) {
                    t.row(b.startNs(), b.packetsDelivered(),
                            Double.isNaN(b.latencyMeanNs()) ? "-" : String.format(Locale.ROOT, "%.1f", b.latencyMeanNs()), TextReport.fixed4(b.throughput()));
                }
                t.print(out);
            }
        }
        out.flush();
        return 0;
    }

    /** The jobs as a table after the report's fields (TextReport: each column as wide as its widest cell). */
    @SuppressWarnings("unchecked")
    private static void printJobs(PrintWriter out, Map<String, Object> report) {
        TextReport.Table t = new TextReport.Table(new String[] {"job", "hosts", "placement", "pattern", "mode", "offered", "accepted",
                "latMeanNs", "latP99Ns", "packets", "nonMin", "msgMeanNs", "msgP99Ns"},
                new boolean[] {false, true, false, false, false, true, true, true, true, true, true, true, true});
        for (Map<String, Object> m : (List<Map<String, Object>>) report.get("jobs")) {
            t.row(m.get("name"), m.get("hosts"), m.get("placement"), m.get("pattern"), m.get("routingMode"),
                    TextReport.fixed4(m.get("offeredLoad")), TextReport.fixed4(m.get("throughput")),
                    shown(m.get("latencyMeanNs")), shown(m.get("latencyP99Ns")), m.get("packetsDelivered"), shown(m.get("nonMinimalShare")),
                    shown(m.get("messageMeanNs")), shown(m.get("messageP99Ns")));
        }
        t.print(out);
        for (Map<String, Object> m : (List<Map<String, Object>>) report.get("jobs")) {
            if (m.containsKey("iterations")) { // a closed-loop job: its figure is the time per iteration
                out.printf(Locale.ROOT, "%s: %s, %s iterations, %s ns mean, %s ns p99%n", m.get("name"), m.get("pattern"),
                        m.get("iterations"), shown(m.get("iterationMeanNs")), shown(m.get("iterationP99Ns")));
            }
        }
    }

    private static String shown(Object v) {
        return v == null ? "-" : v instanceof Double d ? String.format(Locale.ROOT, d < 10 ? "%.3f" : "%.1f", d) : v.toString();
    }

    /** The series as the JSON report has it: one object per bin, latency null where no packet arrived in the bin. */
    private static List<Map<String, Object>> series(List<Simulation.SeriesBin> bins) {
        List<Map<String, Object>> out = new ArrayList<>(bins.size());
        for (Simulation.SeriesBin b : bins) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("startNs", b.startNs());
            m.put("packetsDelivered", b.packetsDelivered());
            m.put("latencyMeanNs", Double.isNaN(b.latencyMeanNs()) ? null : b.latencyMeanNs());
            m.put("throughput", b.throughput());
            out.add(m);
        }
        return out;
    }
}
