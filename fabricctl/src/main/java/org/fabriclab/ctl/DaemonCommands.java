package org.fabriclab.ctl;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.fabriclab.cli.JsonOption;
import org.fabriclab.proto.v1.Counters;
import org.fabriclab.proto.v1.DumpTablesRequest;
import org.fabriclab.proto.v1.DumpTablesResponse;
import org.fabriclab.proto.v1.EngineChainInfo;
import org.fabriclab.proto.v1.GetCountersRequest;
import org.fabriclab.proto.v1.GetEngineRequest;
import org.fabriclab.proto.v1.GetStatusRequest;
import org.fabriclab.proto.v1.HostNicCounters;
import org.fabriclab.proto.v1.ManagerStatus;
import org.fabriclab.proto.v1.RouteJobRequest;
import org.fabriclab.proto.v1.SetEngineRequest;
import org.fabriclab.proto.v1.SweepRequest;
import org.fabriclab.routing.dragonfly.RoutingMode;
import org.fabriclab.routing.engine.EngineGuarantees;
import org.fabriclab.routing.format.Json;
import org.fabriclab.routing.text.Excerpt;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** The verbs that talk to the daemon's admin service. */
final class DaemonCommands {
    private DaemonCommands() {
    }

    static Map<String, Object> status(ManagerStatus s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", s.getState());
        m.put("switches", s.getSwitches());
        m.put("hosts", s.getHosts());
        m.put("links", s.getLinks());
        m.put("engine", s.getEngine());
        m.put("tableVersion", s.getTableVersion());
        m.put("lastHeavySweepMillis", s.getLastHeavySweepMillis());
        m.put("upSinceEpochMillis", s.getUpSinceEpochMillis());
        m.put("heavySweeps", s.getHeavySweeps());
        m.put("traps", s.getTraps());
        m.put("lastError", s.getLastError());
        m.put("jobNodes", s.getJobNodes());
        if (s.getTimeDilation() > 0) { // an emulated fabric: its time dilation and the fidelity monitor's verdict
            m.put("timeDilation", s.getTimeDilation());
            m.put("faithful", s.getEmulationFaithful());
            m.put("worstLag", String.format("%.1f us (%s)", s.getEmulationLagSeconds() * 1e6, s.getEmulationLagWhere()));
        }
        return m;
    }

    static void print(PrintWriter out, boolean json, Map<String, Object> m) {
        if (json) {
            out.println(Json.write(m));
        } else {
            m.forEach((k, v) -> out.printf("%-22s %s%n", k, v instanceof List || v instanceof Map ? Json.write(v) : v));
        }
        out.flush();
    }

    /** {@code fabricctl status}. */
    @Command(name = "status", mixinStandardHelpOptions = true, description = "The manager's state and the fabric's size.")
    static final class Status implements Callable<Integer> {
        @Mixin
        Daemon daemon;
        @Mixin
        JsonOption json;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            print(spec.commandLine().getOut(), json.json, status(daemon.call(s -> s.getStatus(GetStatusRequest.getDefaultInstance()))));
            return 0;
        }
    }

    /** {@code fabricctl sweep}. */
    @Command(name = "sweep", mixinStandardHelpOptions = true, description = "Run a heavy sweep now and show the status after it.")
    static final class Sweep implements Callable<Integer> {
        @Mixin
        Daemon daemon;
        @Mixin
        JsonOption json;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() {
            ManagerStatus s = daemon.call(a -> a.sweep(SweepRequest.getDefaultInstance()));
            print(spec.commandLine().getOut(), json.json, status(s));
            return s.getState().equals("UP") ? 0 : 1;
        }
    }

    /** {@code fabricctl job route SET | job clear}. */
    @Command(name = "job", mixinStandardHelpOptions = true,
            description = "Route for a job's hosts before it starts ('job route H0_0_[0-3],H1_1_0'), or 'job clear' to route for every host again.")
    static final class Job implements Callable<Integer> {
        @Mixin
        Daemon daemon;
        @Mixin
        JsonOption json;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Parameters(arity = "1..2", paramLabel = "route SET | clear")
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() {
            String nodes;
            if (args.size() == 2 && args.get(0).equals("route")) {
                nodes = args.get(1);
                if (nodes.isBlank()) { // the daemon reads an empty set as clear: say so rather than clear unasked
                    throw new IllegalArgumentException("job route: the node set is empty; give the job's hosts (H0_0_[0-3],H1_1_0), "
                            + "or 'fabricctl job clear' to route for every host again");
                }
            } else if (args.size() == 1 && args.get(0).equals("clear")) {
                nodes = "";
            } else {
                throw new IllegalArgumentException("usage: fabricctl job route SET | fabricctl job clear");
            }
            ManagerStatus s = daemon.call(a -> a.routeJob(RouteJobRequest.newBuilder().setNodes(nodes).build()));
            print(spec.commandLine().getOut(), json.json, status(s));
            return s.getState().equals("UP") ? 0 : 1;
        }
    }

    /** {@code fabricctl engine [set CHAIN]}. */
    @Command(name = "engine", mixinStandardHelpOptions = true,
            description = "Show the routing-engine chain, or 'engine set CHAIN' to change it (a sweep follows).")
    static final class Engine implements Callable<Integer> {
        @Mixin
        Daemon daemon;
        @Mixin
        JsonOption json;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Parameters(arity = "0..2", paramLabel = "set CHAIN")
        List<String> args = new ArrayList<>();

        @Override
        public Integer call() {
            EngineChainInfo info;
            if (args.isEmpty()) {
                info = daemon.call(a -> a.getEngine(GetEngineRequest.getDefaultInstance()));
            } else if (args.size() == 2 && args.get(0).equals("set")) {
                info = daemon.call(a -> a.setEngine(SetEngineRequest.newBuilder().setChain(args.get(1)).build()));
            } else {
                throw new IllegalArgumentException("usage: fabricctl engine [set CHAIN]");
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("chain", info.getChain());
            m.put("engine", info.getActive());
            if (info.hasActiveGuarantees()) {
                var g = info.getActiveGuarantees();
                m.put("guarantees", EnginesCommand.guarantees(new EngineGuarantees(g.getDeadlockFree(), g.getLanes(), g.getSourceRoutes())));
            }
            print(spec.commandLine().getOut(), json.json, m);
            return 0;
        }
    }

    /** {@code fabricctl counters [NODE] [--job NAME]}. */
    @Command(name = "counters", mixinStandardHelpOptions = true,
            description = "Port counters and link load per directed link, and each host's NIC counters (request flits, stalled "
                    + "cycles, its own packets' sampled round trips, as Aries NICs count them), as the perf manager last polled them; "
                    + "with jobs, what each job's hosts counted and each job's sums (the fabric_job_* metrics).")
    static final class CountersVerb implements Callable<Integer> {
        @Mixin
        Daemon daemon;
        @Mixin
        JsonOption json;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Parameters(arity = "0..1", paramLabel = "NODE", description = "Only this node's ports")
        String node;
        @CommandLine.Option(names = "--job", paramLabel = "NAME", description = "Only the hosts of this job (a live job's name, "
                + "as --job name= gave it) and its sums")
        String job;

        @Override
        public Integer call() {
            Counters c = daemon.call(a -> a.getCounters(
                    GetCountersRequest.newBuilder().setNode(node == null ? "" : node).build()));
            List<HostNicCounters> hosts = c.getHostsList();
            if (job != null) {
                List<String> names = hosts.stream().map(HostNicCounters::getJob).filter(j -> !j.isEmpty()).distinct().toList();
                if (!names.contains(job)) {
                    throw new IllegalArgumentException("--job " + Excerpt.quote(job) + ": no " + (node == null ? "" : "polled ")
                            + "host " + (node == null ? "runs" : "named " + Excerpt.quote(node) + " runs") + " a job of that name ("
                            + (names.isEmpty() ? "no host runs a job" : "jobs: " + String.join(", ", names)) + ")");
                }
                hosts = hosts.stream().filter(h -> h.getJob().equals(job)).toList();
            }
            Map<String, JobSums> jobs = new LinkedHashMap<>();
            hosts.stream().filter(h -> !h.getJob().isEmpty()).forEach(h -> jobs.computeIfAbsent(h.getJob(), k -> new JobSums()).add(h));
            PrintWriter out = spec.commandLine().getOut();
            if (json.json) {
                List<Object> links = new ArrayList<>();
                c.getLinksList().forEach(l -> {
                    Map<String, Object> x = new LinkedHashMap<>();
                    x.put("node", l.getNode());
                    x.put("port", l.getPort());
                    x.put("xmitBytes", l.getXmitDataOctets());
                    x.put("xmitPackets", l.getXmitPkts());
                    x.put("xmitWaitNs", l.getXmitWaitNs());
                    x.put("discards", l.getXmitDiscards());
                    x.put("rcvErrors", l.getRcvErrors());
                    x.put("utilisation", Math.round(l.getUtilisation() * 10000) / 10000.0);
                    links.add(x);
                });
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("links", links);
                List<Object> hostsOut = new ArrayList<>();
                hosts.forEach(h -> {
                    Map<String, Object> x = new LinkedHashMap<>();
                    x.put("node", h.getNode());
                    x.put("requestFlits", h.getRequestFlits());
                    x.put("requestFlitsStalledCycles", h.getRequestFlitsStalledCycles());
                    x.put("latencySampledPackets", h.getLatencyPackets());
                    x.put("latencyMeanNs", h.getLatencyPackets() == 0 ? null : h.getLatencyNsSum() / (double) h.getLatencyPackets());
                    x.put("meanHops", h.getLatencyPackets() == 0 ? null : h.getReceivedHops() / (double) h.getLatencyPackets());
                    if (!h.getCongestionControl().isEmpty()) {
                        x.put("congestionControl", h.getCongestionControl());
                        x.put("cnpsReceived", h.getCnpsReceived());
                        x.put("acksReceived", h.getAcksReceived());
                        x.put("controlSent", h.getControlSent());
                        x.put("controlDropped", h.getControlDropped());
                    }
                    if (!h.getJob().isEmpty()) {
                        x.put("job", h.getJob());
                        x.put("jobMessages", h.getJobMessages());
                        x.put("jobMessageMeanNs", h.getJobMessages() == 0 ? null : h.getJobMessageNsSum() / (double) h.getJobMessages());
                        x.put("jobPackets", h.getJobPackets());
                        x.put("jobNonMinimalShare", h.getJobPackets() == 0 ? null : h.getJobNonminimalPackets() / (double) h.getJobPackets());
                        if (h.getJobIterations() > 0) { // a closed-loop job's rank 0
                            x.put("jobIterations", h.getJobIterations());
                            x.put("jobIterationMeanNs", h.getJobIterationNsSum() / (double) h.getJobIterations());
                        }
                        x.put("jobRefusedMessages", h.getJobRefusedMessages());
                        x.put("jobModePackets", byMode(h.getJobModePacketsList()));
                    }
                    hostsOut.add(x);
                });
                m.put("hosts", hostsOut);
                List<Object> jobsOut = new ArrayList<>();
                jobs.forEach((name, j) -> {
                    Map<String, Object> x = new LinkedHashMap<>();
                    x.put("job", name);
                    x.put("hosts", j.hosts);
                    x.put("messages", j.messages);
                    x.put("messageMeanNs", j.messages == 0 ? null : j.messageNs / (double) j.messages);
                    x.put("packets", j.packets);
                    x.put("nonMinimalShare", j.packets == 0 ? null : j.nonminimal / (double) j.packets);
                    x.put("iterations", j.iterations);
                    x.put("iterationMeanNs", j.iterations == 0 ? null : j.iterationNs / (double) j.iterations);
                    x.put("refusedMessages", j.refused);
                    x.put("modePackets", byMode(j.modePackets));
                    jobsOut.add(x);
                });
                m.put("jobs", jobsOut);
                out.println(Json.write(m));
            } else {
                // utilisation to 0.001%: a host offering 0.02 Gbps on a 100 Gbps link reads 0.020%, not 0.0%
                out.printf("%-24s %5s %16s %14s %14s %10s %10s %9s%n", "node", "port", "xmit bytes", "xmit packets", "xmit wait ns", "discards",
                        "rcv errors", "util");
                c.getLinksList().forEach(l -> out.printf("%-24s %5d %16d %14d %14d %10d %10d %8.3f%%%n", l.getNode(), l.getPort(),
                        l.getXmitDataOctets(), l.getXmitPkts(), l.getXmitWaitNs(), l.getXmitDiscards(), l.getRcvErrors(),
                        l.getUtilisation() * 100));
                if (!hosts.isEmpty()) {
                    out.printf("%n%-24s %16s %16s %16s %16s %10s%n", "host NIC", "request flits", "stalled cycles", "sampled packets",
                            "mean RTT ns", "mean hops");
                    hosts.forEach(h -> out.printf("%-24s %16d %16d %16d %16s %10s%n", h.getNode(), h.getRequestFlits(),
                            h.getRequestFlitsStalledCycles(), h.getLatencyPackets(), h.getLatencyPackets() == 0 ? "-"
                                    : String.format(Locale.ROOT, "%.1f", h.getLatencyNsSum() / (double) h.getLatencyPackets()),
                            h.getLatencyPackets() == 0 ? "-" : String.format(Locale.ROOT, "%.2f", h.getReceivedHops() / (double) h.getLatencyPackets())));
                }
                if (hosts.stream().anyMatch(h -> !h.getCongestionControl().isEmpty())) {
                    out.printf("%n%-24s %8s %14s %14s %14s %10s%n", "host NIC", "cc", "CNPs received", "ACKs received", "control sent",
                            "dropped");
                    hosts.stream().filter(h -> !h.getCongestionControl().isEmpty()).forEach(h -> out.printf(
                            "%-24s %8s %14d %14d %14d %10d%n", h.getNode(), h.getCongestionControl(), h.getCnpsReceived(),
                            h.getAcksReceived(), h.getControlSent(), h.getControlDropped()));
                }
                if (!jobs.isEmpty()) {
                    // a closed-loop job's iterations on its rank 0's row ("-" on the others' and an open-loop job's)
                    out.printf("%n%-24s %-16s %12s %18s %12s %12s %11s %20s%n", "host NIC", "job", "messages", "message mean ns", "packets",
                            "non-minimal", "iterations", "iteration mean ns");
                    hosts.stream().filter(h -> !h.getJob().isEmpty()).forEach(h -> out.printf(
                            "%-24s %-16s %12d %18s %12d %12s %11s %20s%n",
                            h.getNode(), h.getJob(), h.getJobMessages(), h.getJobMessages() == 0 ? "-"
                                    : String.format(Locale.ROOT, "%.1f", h.getJobMessageNsSum() / (double) h.getJobMessages()),
                            h.getJobPackets(), h.getJobPackets() == 0 ? "-"
                                    : String.format(Locale.ROOT, "%.3f", h.getJobNonminimalPackets() / (double) h.getJobPackets()),
                            h.getJobIterations() == 0 ? "-" : Long.toString(h.getJobIterations()), h.getJobIterations() == 0 ? "-"
                                    : String.format(Locale.ROOT, "%.1f", h.getJobIterationNsSum() / (double) h.getJobIterations())));
                    // each job's sums, as fabric_job_refused_messages_total and fabric_job_mode_packets_total give them
                    out.printf("%n%-16s %6s %12s %12s  %s%n", "job", "hosts", "packets", "refused", "packets by mode");
                    jobs.forEach((name, j) -> out.printf("%-16s %6d %12d %12d  %s%n", name, j.hosts, j.packets, j.refused,
                            modesText(byMode(j.modePackets))));
                }
            }
            out.flush();
            return 0;
        }

        /** "ADAPTIVE_0 12, ADAPTIVE_3 4", or "-" where no packet was counted. */
        private static String modesText(Map<String, Long> byMode) {
            return byMode.isEmpty() ? "-" : String.join(", ", byMode.entrySet().stream().map(e -> e.getKey() + " " + e.getValue()).toList());
        }

        /** Packets by the mode they asked for, by name, the modes seen only, in code order. */
        private static Map<String, Long> byMode(List<Long> byCode) {
            Map<String, Long> m = new LinkedHashMap<>();
            for (int code = 0; code < byCode.size(); code++) {
                if (byCode.get(code) > 0) {
                    m.put(RoutingMode.ofCode(code).name(), byCode.get(code));
                }
            }
            return m;
        }

        /** One job's counters summed over its hosts (PerfMetrics' fabric_job_* sums). */
        private static final class JobSums {
            int hosts;
            long messages;
            long messageNs;
            long packets;
            long nonminimal;
            long iterations;
            long iterationNs;
            long refused;
            final List<Long> modePackets = new ArrayList<>();

            void add(HostNicCounters h) {
                hosts++;
                messages += h.getJobMessages();
                messageNs += h.getJobMessageNsSum();
                packets += h.getJobPackets();
                nonminimal += h.getJobNonminimalPackets();
                iterations += h.getJobIterations();
                iterationNs += h.getJobIterationNsSum();
                refused += h.getJobRefusedMessages();
                for (int code = 0; code < h.getJobModePacketsCount(); code++) {
                    if (code == modePackets.size()) {
                        modePackets.add(0L);
                    }
                    modePackets.set(code, modePackets.get(code) + h.getJobModePackets(code));
                }
            }
        }
    }

    /** {@code fabricctl tables SWITCH}. */
    @Command(name = "tables", mixinStandardHelpOptions = true, description = "A switch's forwarding table as the switch holds it.")
    static final class Tables implements Callable<Integer> {
        @Mixin
        Daemon daemon;
        @Mixin
        JsonOption json;
        @CommandLine.Spec
        CommandLine.Model.CommandSpec spec;
        @Parameters(paramLabel = "SWITCH")
        String name;

        @Override
        public Integer call() {
            DumpTablesResponse r = daemon.call(a -> a.dumpTables(DumpTablesRequest.newBuilder().setSwitchName(name).build()));
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("switch", r.getSwitchName());
            m.put("tableVersion", r.getTableVersion());
            List<Object> entries = new ArrayList<>();
            r.getEntriesList().forEach(e -> {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("lid", e.getLid());
                x.put("port", e.getPort());
                x.put("destination", e.getDestination());
                entries.add(x);
            });
            m.put("entries", entries);
            if (json.json) {
                print(spec.commandLine().getOut(), true, m);
            } else {
                PrintWriter out = spec.commandLine().getOut();
                out.printf("%s (table version %d)%n", r.getSwitchName(), r.getTableVersion());
                r.getEntriesList().forEach(e -> out.printf("0x%04x %03d  %s%n", e.getLid(), e.getPort(), e.getDestination()));
                out.flush();
            }
            return 0;
        }
    }
}
