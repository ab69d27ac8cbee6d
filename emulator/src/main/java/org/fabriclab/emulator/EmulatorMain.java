package org.fabriclab.emulator;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.fabriclab.agent.link.LiveHost;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.emulator.bench.ForwardingBenchmark;
import org.fabriclab.proto.v1.PortState;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code bin/emulator}: runs emulated fabrics for a fabric manager in another process. */
@Command(name = "emulator", mixinStandardHelpOptions = true, version = "emulator 0.1.0",
        description = "Runs emulated fabrics.", subcommands = {EmulatorMain.Up.class, EmulatorMain.Sim.class, EmulatorMain.Scenario.class, EmulatorMain.BenchForwarding.class})
public final class EmulatorMain implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new EmulatorMain()).execute(args));
    }

    /** {@code emulator sim}: a fabric in virtual time, routed offline, one JSON report. */
    @Command(name = "sim", mixinStandardHelpOptions = true,
            description = "Simulate a fabric in virtual time with the live agents' switch core: offered load in, throughput and latency out.")
    static final class Sim implements Callable<Integer> {
        @Option(names = "--topology", required = true, paramLabel = "SPEC", description = "Topology spec or file:PATH")
        String topology;

        @Option(names = "--routing", defaultValue = "minhop", paramLabel = "CHAIN", description = "Routing-engine chain. Default: ${DEFAULT-VALUE}")
        String routing;

        @Option(names = "--pattern", defaultValue = "uniform", description = "uniform, permutation, all-to-all or group-shift "
                + "(every host to a random host of the next group: Dragonfly's adversarial traffic). Default: ${DEFAULT-VALUE}")
        String pattern;

        @Option(names = "--load", defaultValue = "0.5", description = "Offered load per host, a fraction of the link rate. Default: ${DEFAULT-VALUE}")
        double load;

        @Option(names = "--duration", defaultValue = "100us", paramLabel = "TIME", description = "Virtual time to simulate (ns, us, ms, s). Default: ${DEFAULT-VALUE}")
        String duration;

        @Option(names = "--warmup", paramLabel = "TIME", description = "Virtual time before measuring. Default: a fifth of the duration")
        String warmup;

        @Option(names = "--seed", defaultValue = "1", description = "Seed of the traffic. Default: ${DEFAULT-VALUE}")
        long seed;

        @Option(names = "--link-gbps", defaultValue = "100", description = "Link rate. Default: ${DEFAULT-VALUE}")
        double linkGbps;

        @Option(names = "--latency-ns", defaultValue = "100", description = "Propagation delay of every link. Default: ${DEFAULT-VALUE}")
        long latencyNs;

        @Option(names = "--payload", defaultValue = "256", description = "Payload bytes per packet. Default: ${DEFAULT-VALUE}")
        int payload;

        @Option(names = "--vls", defaultValue = "2", description = "Virtual lanes. Default: ${DEFAULT-VALUE}")
        int vls;

        @Option(names = "--buffer", defaultValue = "8", description = "Input buffer per port and lane, in packets. Default: ${DEFAULT-VALUE}")
        int buffer;

        @Option(names = "--adaptive", defaultValue = "on", description = "on: switches choose among the AR groups of an ar-* engine; "
                + "off: static routing by its LFT (DR). Default: ${DEFAULT-VALUE}")
        String adaptive;

        @Option(names = "--json", description = "One JSON object")
        boolean json;

        @Override
        public Integer call() {
            org.fabriclab.emulator.sim.Simulation.Config config;
            if (!adaptive.equals("on") && !adaptive.equals("off")) {
                System.err.println("emulator sim: --adaptive is on or off, not '" + adaptive + "'");
                return 2;
            }
            try {
                Fabric f = Topologies.load(topology, p -> Files.newBufferedReader(Path.of(p)));
                long durationNs = nanos(duration);
                long warmupNs = warmup == null ? durationNs / 5 : nanos(warmup);
                var lids = org.fabriclab.routing.lid.LidAssigner.assign(f);
                var routed = org.fabriclab.routing.engine.EngineChain.parse(routing).route(new org.fabriclab.routing.engine.RoutingRequest(f, lids,
                        org.fabriclab.routing.engine.RoutingOptions.DEFAULTS.withSeed(seed)));
                config = org.fabriclab.emulator.sim.Simulation.Config.builder(f, routed.tables()).pattern(patternOf(pattern)).load(load)
                        .linkGbps(linkGbps).latencyNs(latencyNs).vls(vls).bufferPackets(buffer).payloadBytes(payload)
                        .durationNs(durationNs).warmupNs(warmupNs).seed(seed).adaptive(adaptive.equals("on")).build();
            } catch (IllegalArgumentException | java.io.IOException e) {
                System.err.println("emulator sim: " + e.getMessage());
                return 2;
            } catch (org.fabriclab.routing.engine.RoutingException e) {
                System.err.println("emulator sim: routing failed: " + e.getMessage());
                return 1;
            }
            var r = org.fabriclab.emulator.sim.Simulation.run(config);
            java.util.Map<String, Object> out = new java.util.LinkedHashMap<>();
            out.put("topology", topology);
            out.put("routing", config.tables().engine());
            out.put("adaptive", config.adaptive() && config.tables().ar() != null);
            out.put("pattern", pattern);
            out.put("hosts", config.fabric().endpointCount());
            out.put("switches", config.fabric().switchCount());
            out.put("seed", seed);
            out.put("offeredLoad", r.offeredLoad());
            out.put("throughput", r.throughput());
            // no packet created after the warm-up arrived: latency and hops measured nothing (null, not 0)
            boolean measured = r.packetsDelivered() > 0;
            out.put("latencyMeanNs", measured ? r.latencyMeanNs() : null);
            out.put("latencyP95Ns", measured ? r.latencyP95Ns() : null);
            out.put("latencyP99Ns", measured ? r.latencyP99Ns() : null);
            out.put("meanHops", measured ? r.meanHops() : null);
            out.put("packetsDelivered", r.packetsDelivered());
            out.put("packetsDropped", r.packetsDropped());
            out.put("packetsRefused", r.packetsRefused());
            out.put("outOfOrder", r.outOfOrder());
            out.put("packetHops", r.packetHops());
            out.put("events", r.events());
            out.put("simulatedNs", r.simulatedNs());
            out.put("wallMillis", r.wallMillis());
            out.put("eventsPerSecond", r.eventsPerSecond());
            out.put("packetHopsPerSecond", r.packetHopsPerSecond());
            out.put("cpuMillis", r.cpuMillis());
            out.put("packetHopsPerCpuSecond", r.packetHopsPerCpuSecond());
            if (!measured) {
                System.err.printf(java.util.Locale.ROOT, "emulator sim: no packet created after the warm-up (%s ns) arrived by the end "
                        + "(%s ns), so latency and hops are not measured (null); throughput %.3f counts older packets. The fabric is "
                        + "saturated or deadlocked at this load: simulate longer (--duration), offer less (--load), or route "
                        + "deadlock-free (more --vls, another --routing)%n", config.warmupNs(), config.durationNs(), r.throughput());
            }
            if (json) {
                System.out.println(org.fabriclab.routing.format.Json.write(out));
            } else {
                out.forEach((k, v) -> System.out.printf(java.util.Locale.ROOT, "%-20s %s%n", k,
                        v instanceof Double d ? String.format(java.util.Locale.ROOT, "%.4g", d) : v));
            }
            return 0;
        }

        static TrafficPattern patternOf(String name) {
            return TrafficPattern.parse(name);
        }

        /** {@code 100us}, {@code 2ms}, {@code 500ns}, {@code 1s} (a bare number is nanoseconds) in nanoseconds. */
        static long nanos(String time) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|ms|s)?").matcher(time.trim());
            if (!m.matches()) {
                throw new IllegalArgumentException("'" + time + "' is not a time; write e.g. 500ns, 100us, 2ms or 1s");
            }
            double v = Double.parseDouble(m.group(1));
            String unit = m.group(2) == null ? "ns" : m.group(2);
            double scale = switch (unit) {
                case "us" -> 1e3;
                case "ms" -> 1e6;
                case "s" -> 1e9;
                default -> 1;
            };
            return Math.round(v * scale);
        }
    }

    /** {@code emulator scenario}: one of the adaptive-routing paper's experiments. */
    @Command(name = "scenario", mixinStandardHelpOptions = true,
            description = "Run an experiment of the InfiniBand adaptive-routing paper (ib-ar-c1-s1..s3, ib-ar-c2-s1..s6) with DR or AR.")
    static final class Scenario implements Callable<Integer> {
        @CommandLine.Parameters(index = "0", paramLabel = "NAME", description = "The scenario; --list names them")
        String name;

        @Option(names = "--routing", defaultValue = "ar", description = "dr (static LFT) or ar (adaptive). Default: ${DEFAULT-VALUE}")
        String routing;

        @Option(names = "--sim", description = "In virtual time (the default)")
        boolean sim;

        @Option(names = "--live", description = "On the live emulated fabric in this JVM, in wall-clock time (use slow links: --link-gbps 1)")
        boolean live;

        @Option(names = "--phase-ms", defaultValue = "2000", description = "With --live: wall-clock milliseconds per phase. Default: ${DEFAULT-VALUE}")
        long phaseMillis;

        @Option(names = "--warmup-ms", defaultValue = "2000",
                description = "With --live: every sender runs this long first, unmeasured, while the JIT compiles the forwarding path. Default: ${DEFAULT-VALUE}")
        long warmupMillis;

        @Option(names = "--link-gbps", paramLabel = "GBPS",
                description = "Link rate. Default: 200 simulated (the paper's HDR links), 1 live (what two cores emulate faithfully)")
        Double linkGbps;

        @Option(names = "--phase", defaultValue = "200us", paramLabel = "TIME", description = "Virtual time per phase. Default: ${DEFAULT-VALUE}")
        String phase;

        @Option(names = "--seed", defaultValue = "1")
        long seed;

        @Option(names = "--svg", paramLabel = "FILE", description = "Also plot each flow's throughput over time into FILE (SVG)")
        Path svg;

        @Option(names = "--json", description = "One JSON object")
        boolean json;

        @Override
        public Integer call() throws java.io.IOException {
            if (name.equals("--list") || name.equals("list")) {
                org.fabriclab.emulator.scenario.Scenarios.all().forEach(x -> System.out.printf("%-12s %s%n", x.name(), x.paper()));
                return 0;
            }
            if (!routing.equals("dr") && !routing.equals("ar")) {
                System.err.println("emulator scenario: --routing is dr or ar, not '" + routing + "'");
                return 2;
            }
            if (live && sim) {
                System.err.println("emulator scenario: give --live or --sim, not both");
                return 2;
            }
            org.fabriclab.emulator.scenario.Scenarios.Result r;
            try {
                var scenario = org.fabriclab.emulator.scenario.Scenarios.byName(name);
                double gbps = linkGbps != null ? linkGbps : live ? 1 : 200;
                r = live ? org.fabriclab.emulator.scenario.Scenarios.live(scenario, routing.equals("ar"), gbps, phaseMillis, warmupMillis)
                        : org.fabriclab.emulator.scenario.Scenarios.simulate(scenario, routing.equals("ar"), gbps, Sim.nanos(phase), seed);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return 1;
            } catch (IllegalArgumentException e) {
                System.err.println("emulator scenario: " + e.getMessage());
                return 2;
            } catch (org.fabriclab.routing.engine.RoutingException e) {
                System.err.println("emulator scenario: routing failed: " + e.getMessage());
                return 1;
            }
            if (svg != null) {
                Files.writeString(svg, org.fabriclab.emulator.scenario.ThroughputPlot.svg(r));
            }
            if (json) {
                java.util.Map<String, Object> out = new java.util.LinkedHashMap<>();
                out.put("scenario", r.scenario());
                out.put("routing", r.routing());
                out.put("clock", r.live() ? "live" : "simulated");
                out.put("linkGbps", r.linkGbps());
                java.util.List<Object> phases = new java.util.ArrayList<>();
                for (var p : r.phases()) {
                    java.util.Map<String, Object> ph = new java.util.LinkedHashMap<>();
                    ph.put("startSeconds", p.startSeconds());
                    ph.put("endSeconds", p.endSeconds());
                    java.util.List<Object> flows = new java.util.ArrayList<>();
                    for (var fl : p.flows()) {
                        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
                        m.put("src", fl.src());
                        m.put("dst", fl.dst());
                        m.put("throughputGbps", fl.throughputGbps());
                        m.put("share", fl.share());
                        flows.add(m);
                    }
                    ph.put("flows", flows);
                    ph.put("jainIndex", p.jainIndex());
                    ph.put("coefficientOfVariation", p.coefficientOfVariation());
                    ph.put("maxMinRatio", p.maxMinRatio());
                    java.util.List<Object> ports = new java.util.ArrayList<>();
                    for (var o : p.congestedPorts()) {
                        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
                        m.put("node", o.node());
                        m.put("port", o.port());
                        m.put("to", o.to());
                        m.put("utilisation", o.utilisation());
                        m.put("jainIndex", o.jainIndex());
                        m.put("inputs", o.inputs().stream().map(in -> {
                            java.util.Map<String, Object> x = new java.util.LinkedHashMap<>();
                            x.put("port", in.port());
                            x.put("from", in.from());
                            x.put("share", in.share());
                            return x;
                        }).toList());
                        ports.add(m);
                    }
                    ph.put("congestedPorts", ports);
                    phases.add(ph);
                }
                out.put("phases", phases);
                System.out.println(org.fabriclab.routing.format.Json.write(out));
            } else {
                System.out.printf(java.util.Locale.ROOT, "%s, %s, %.3g Gbps links, %s%n", r.scenario(), r.routing().toUpperCase(java.util.Locale.ROOT),
                        r.linkGbps(), r.live() ? "live" : "simulated");
                for (var p : r.phases()) {
                    double scale = live ? 1 : 1e6; // wall-clock seconds live, microseconds of virtual time simulated
                    System.out.printf(java.util.Locale.ROOT, "phase %.0f-%.0f %s (Jain %.3f, CoV %.3f, max/min %.2f):%n",
                            p.startSeconds() * scale, p.endSeconds() * scale, live ? "s" : "us", p.jainIndex(), p.coefficientOfVariation(),
                            p.maxMinRatio());
                    for (var fl : p.flows()) {
                        System.out.printf(java.util.Locale.ROOT, "  %4s -> %-4s %7.1f Gbps  %.3f of a link%n", fl.src(), fl.dst(), fl.throughputGbps(), fl.share());
                    }
                    for (var o : p.congestedPorts()) {
                        System.out.printf(java.util.Locale.ROOT, "  congested %s port %d > %s (%.2f busy, inputs' Jain %.3f):%s%n", o.node(), o.port(), o.to(),
                                o.utilisation(), o.jainIndex(), o.inputs().stream()
                                        .map(in -> String.format(java.util.Locale.ROOT, " %s %.2f", in.from(), in.share()))
                                        .collect(java.util.stream.Collectors.joining(",")));
                    }
                }
            }
            return 0;
        }
    }

    /** {@code emulator bench-forwarding}: one switch's forwarding rate against a bare Netty relay, in one run. */
    @Command(name = "bench-forwarding", mixinStandardHelpOptions = true,
            description = "Packets per second through one switch with every port busy, and through a bare Netty relay of the same frames.")
    static final class BenchForwarding implements Callable<Integer> {
        @Option(names = "--ports", defaultValue = "8", description = "Switch ports (one busy host each). Default: ${DEFAULT-VALUE}")
        int ports;

        @Option(names = "--payload", defaultValue = "256", description = "Payload bytes per packet. Default: ${DEFAULT-VALUE}")
        int payload;

        @Option(names = "--seconds", defaultValue = "5", description = "Measured seconds per plane. Default: ${DEFAULT-VALUE}")
        double seconds;

        @Option(names = "--warmup", defaultValue = "3", description = "Warm-up seconds per plane. Default: ${DEFAULT-VALUE}")
        double warmup;

        @Option(names = "--rounds", defaultValue = "3", description = "Rounds, each measuring the relay then the switch; medians are reported. Default: ${DEFAULT-VALUE}")
        int rounds;

        @Option(names = "--json", description = "One JSON object")
        boolean json;

        @Override
        public Integer call() throws Exception {
            if (rounds < 1) {
                System.err.println("emulator: --rounds must be at least 1");
                return 2;
            }
            if (ports < 2 || ports > 254) {
                System.err.println("emulator: --ports must be 2..254");
                return 2;
            }
            var results = ForwardingBenchmark.run(ports, payload, warmup, seconds, rounds);
            double[] relayPps = new double[rounds];
            double[] switchPps = new double[rounds];
            double[] relayPerCpu = new double[rounds];
            double[] switchPerCpu = new double[rounds];
            double[] ratio = new double[rounds];
            double[] cpuRatio = new double[rounds];
            for (int r = 0; r < rounds; r++) {
                ForwardingBenchmark.Result bare = results.get(2 * r);
                ForwardingBenchmark.Result sw = results.get(2 * r + 1);
                relayPps[r] = bare.packetsPerSecond();
                switchPps[r] = sw.packetsPerSecond();
                relayPerCpu[r] = bare.packetsPerCpuSecond();
                switchPerCpu[r] = sw.packetsPerCpuSecond();
                ratio[r] = sw.packetsPerSecond() / bare.packetsPerSecond();
                cpuRatio[r] = sw.packetsPerCpuSecond() / bare.packetsPerCpuSecond();
            }
            if (json) {
                System.out.printf(java.util.Locale.ROOT, "{\"ports\":%d,\"payloadBytes\":%d,\"rounds\":%d,\"bareRelayPps\":%.0f,"
                                + "\"switchPps\":%.0f,\"ratio\":%.3f,\"bareRelayPpsPerCpu\":%.0f,\"switchPpsPerCpu\":%.0f,\"cpuRatio\":%.3f}%n",
                        ports, payload, rounds, ForwardingBenchmark.median(relayPps), ForwardingBenchmark.median(switchPps),
                        ForwardingBenchmark.median(ratio), ForwardingBenchmark.median(relayPerCpu),
                        ForwardingBenchmark.median(switchPerCpu), ForwardingBenchmark.median(cpuRatio));
            } else {
                for (ForwardingBenchmark.Result r : results) {
                    System.out.printf(java.util.Locale.ROOT, "%-11s %,12.0f packets/s  %,12.0f per CPU-second  loop busy %5.1f%%%n",
                            r.plane(), r.packetsPerSecond(), r.packetsPerCpuSecond(), 100 * r.cpuSeconds() / r.seconds());
                }
                System.out.printf(java.util.Locale.ROOT, "median switch/relay: %.1f%% of packets/s, %.1f%% of packets per CPU-second%n",
                        100 * ForwardingBenchmark.median(ratio), 100 * ForwardingBenchmark.median(cpuRatio));
            }
            return 0;
        }
    }

    /** {@code emulator up}: a fabric in this JVM, its management endpoints on one TCP port. */
    @Command(name = "up", mixinStandardHelpOptions = true,
            description = "Start a fabric in this JVM; every node's management endpoint is served on one TCP port as HOST:PORT/GUID.")
    static final class Up implements Callable<Integer> {
        @Option(names = "--topology", required = true, paramLabel = "SPEC", description = "Topology spec or file:PATH")
        String topology;

        @Option(names = "--management-port", defaultValue = "50100", description = "TCP port of the management server. Default: ${DEFAULT-VALUE}")
        int port;

        @Option(names = "--link-gbps", defaultValue = "100", description = "Link rate. Default: ${DEFAULT-VALUE}")
        double linkGbps;

        @Option(names = "--link-latency-ns", defaultValue = "0", description = "Propagation delay of every link in ns (the live plane honours tens of microseconds and more). Default: ${DEFAULT-VALUE}")
        long linkLatencyNs;

        @Option(names = "--threads", defaultValue = "2", description = "Event loops for the data plane. Default: ${DEFAULT-VALUE}")
        int threads;

        @Option(names = "--traffic", defaultValue = "none", paramLabel = "PATTERN",
                description = "uniform, permutation, all-to-all, group-shift or none: started once a manager has activated "
                        + "every host (Poisson arrivals). Default: ${DEFAULT-VALUE}")
        String traffic;

        @Option(names = "--traffic-gbps", defaultValue = "0.2", description = "Offered rate per host. Default: ${DEFAULT-VALUE}")
        double trafficGbps;

        @Option(names = "--processes", description = "Run every switch as a switch-agent process of its own, data links over TCP")
        boolean processes;

        @Option(names = "--exit-after", defaultValue = "0", paramLabel = "SECONDS", description = "Stop after this long (0: until interrupted)")
        long exitAfter;

        @Override
        public Integer call() throws Exception {
            Fabric f;
            try {
                f = Topologies.load(topology, p -> Files.newBufferedReader(Path.of(p)));
            } catch (IllegalArgumentException | java.io.IOException e) {
                System.err.println("emulator: " + e.getMessage());
                return 2;
            }
            TrafficPattern pattern = null;
            if (!traffic.equals("none")) {
                try {
                    pattern = TrafficPattern.parse(traffic);
                } catch (IllegalArgumentException e) {
                    System.err.println("emulator: --traffic must be " + TrafficPattern.NAMES + " or none, not '" + traffic + "'");
                    return 2;
                }
            }
            try (EmulatedFabric fabric = EmulatedFabric.start(f, EmulatedFabric.Options.DEFAULTS.withThreads(threads).withLinkGbps(linkGbps)
                    .withLinkLatencyNs(linkLatencyNs).withManagementPort(port).withProcesses(processes))) {
                String seed = fabric.tcpEndpoint(f.name(f.nodeCount() - 1));
                System.out.println("fabric up: " + f.switchCount() + " switches, " + f.caCount() + " hosts, " + f.linkCount()
                        + " links; manage it with: bin/fabric-manager --seed " + seed);
                System.out.flush();
                CountDownLatch stop = new CountDownLatch(1);
                Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "shutdown"));
                long end = exitAfter > 0 ? System.nanoTime() + TimeUnit.SECONDS.toNanos(exitAfter) : Long.MAX_VALUE;
                boolean started = pattern == null;
                while (!stop.await(200, TimeUnit.MILLISECONDS) && System.nanoTime() < end) {
                    if (!started && fabric.hosts().stream().map(LiveHost::management)
                            .allMatch(m -> m.port(1).state() == PortState.PORT_STATE_ACTIVE && m.port(1).lid() != 0)) {
                        try {
                            fabric.startTraffic(pattern, trafficGbps, 2048, 0);
                            System.out.println("every host is active: " + traffic + " traffic started at " + trafficGbps + " Gbps per host");
                        } catch (IllegalArgumentException e) { // the pattern does not fit the fabric (group-shift without groups)
                            System.err.println("emulator: no traffic started: " + e.getMessage());
                        }
                        started = true;
                    }
                }
            }
            return 0;
        }
    }
}
