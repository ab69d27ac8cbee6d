package org.fabriclab.emulator.cli;

import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.fabriclab.cli.DeprecatedSpelling;
import org.fabriclab.cli.EngineOption;
import org.fabriclab.cli.JsonOption;
import org.fabriclab.cli.LaneOptions;
import org.fabriclab.cli.LinkOptions;
import org.fabriclab.cli.SeedOption;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.cli.TopologyArg;
import org.fabriclab.agent.core.TrafficPattern;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.routing.registry.EngineChain;
import org.fabriclab.routing.engine.ForwardingTables;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.engine.RoutingOptions;
import org.fabriclab.routing.engine.RoutingRequest;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.format.Json;
import org.fabriclab.routing.lid.LidAssigner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code emulator sim}: a fabric in virtual time, routed offline, one report. */
@Command(name = "sim", mixinStandardHelpOptions = true,
        description = "Simulate a fabric in virtual time with the live agents' switch core: offered load in, throughput and latency out.")
public final class SimCommand implements Callable<Integer> {
    /** The simulated links' propagation delay unless {@code --link-latency} says otherwise. */
    static final long DEFAULT_LATENCY_NS = 100;

    @Spec
    CommandSpec spec;

    @Option(names = "--topology", required = true, paramLabel = "SPEC", converter = TopologyArg.Converter.class,
            description = "Topology spec or file:PATH")
    TopologyArg topology;

    @Mixin
    EngineOption engine;

    @Option(names = "--pattern", defaultValue = "uniform", paramLabel = "NAME", converter = SimPatterns.class, completionCandidates = SimPatterns.class,
            description = "${COMPLETION-CANDIDATES} (group-shift: every host to a random host of the next group, Dragonfly's "
                    + "adversarial traffic; adv+N: of the group N after its own, adv+1 being group-shift). Default: ${DEFAULT-VALUE}")
    TrafficPattern pattern;

    @Option(names = "--load", defaultValue = "0.5", paramLabel = "X", description = "Offered load per host, a fraction of the link rate. Default: ${DEFAULT-VALUE}")
    double load;

    @Option(names = "--duration", defaultValue = "100us", paramLabel = "TIME", converter = TimeSpan.BareNanos.class,
            description = "Virtual time to simulate (ns, us, ms, s). Default: ${DEFAULT-VALUE}")
    TimeSpan duration;

    @Option(names = "--warmup", paramLabel = "TIME", converter = TimeSpan.BareNanos.class,
            description = "Virtual time before measuring (ns, us, ms, s). Default: a fifth of the duration")
    TimeSpan warmup;

    @Mixin
    SeedOption seed;

    @Mixin
    LinkOptions link;

    @Option(names = "--payload", defaultValue = "256", paramLabel = "BYTES", description = "Payload bytes per packet. Default: ${DEFAULT-VALUE}")
    int payload;

    @Mixin
    LaneOptions lanes;

    @Option(names = "--adaptive", defaultValue = "on", converter = OnOff.class, paramLabel = "on|off",
            description = "on: switches choose among the AR groups of an ar-* engine (AR); off: static routing by its LFT (DR). "
                    + "Default: ${DEFAULT-VALUE}")
    OnOff.Setting adaptive;

    @Mixin
    JsonOption json;

    /** The old name of {@code --engine} here (a field apart: picocli applies {@code --engine}'s default after parsing). */
    @DeprecatedSpelling(use = "--engine CHAIN")
    @Option(names = "--routing", hidden = true, paramLabel = "CHAIN", converter = EngineOption.ChainConverter.class)
    String routing;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SimPatterns.checkFits("--pattern", pattern, topology.fabric());
        Simulation.Config config;
        try {
            config = config(route());
        } catch (RoutingException e) {
            err.println("emulator sim: routing failed: " + e.getMessage());
            return 1;
        }
        Simulation.Report r = Simulation.run(config);
        if (r.packetsDelivered() == 0) {
            err.printf(Locale.ROOT, "emulator sim: no packet created after the warm-up (%s ns) arrived by the end "
                    + "(%s ns), so latency and hops are not measured (null); throughput %.3f counts older packets. The fabric is "
                    + "saturated or deadlocked at this load: simulate longer (--duration), offer less (--load), or route "
                    + "deadlock-free (more --vls, another --engine)%n", config.warmupNs(), config.durationNs(), r.throughput());
            err.flush();
        }
        Map<String, Object> report = report(config, r);
        if (json.json) {
            out.println(Json.write(report));
        } else {
            report.forEach((k, v) -> out.printf(Locale.ROOT, "%-20s %s%n", k,
                    v instanceof Double d ? String.format(Locale.ROOT, "%.4g", d) : v));
        }
        out.flush();
        return 0;
    }

    /** The engine chain's tables for the fabric, seeded with {@code --seed}. */
    private ForwardingTables route() throws RoutingException {
        Fabric f = topology.fabric();
        return EngineChain.parse(routing != null ? routing : engine.chain).route(new RoutingRequest(f, LidAssigner.assign(f), RoutingOptions.DEFAULTS.withSeed(seed.seed)))
                .tables();
    }

    /** The simulation the options describe: every option's way into the simulator, in one place. */
    Simulation.Config config(ForwardingTables tables) {
        long durationNs = duration.nanos();
        long warmupNs = warmup == null ? durationNs / 5 : warmup.nanos();
        return Simulation.Config.builder(topology.fabric(), tables).pattern(pattern).load(load).linkGbps(link.linkGbps)
                .latencyNs(link.latencyNs(DEFAULT_LATENCY_NS)).vls(lanes.vls).bufferPackets(lanes.buffer).payloadBytes(payload)
                .durationNs(durationNs).warmupNs(warmupNs).seed(seed.seed).adaptive(adaptive.on()).build();
    }

    /**
     * The report, field by field as the command-line contract and the baseline reports have them.
     * A run that measured no packet (none created after the warm-up arrived) reports latency and
     * hops as null, not 0.
     */
    private Map<String, Object> report(Simulation.Config config, Simulation.Report r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("topology", topology.spec());
        m.put("routing", config.tables().engine());
        m.put("adaptive", config.adaptive() && config.tables().ar() != null);
        m.put("pattern", new SimPatterns().nameOf(pattern));
        m.put("hosts", config.fabric().endpointCount());
        m.put("switches", config.fabric().switchCount());
        m.put("seed", seed.seed);
        m.put("offeredLoad", r.offeredLoad());
        m.put("throughput", r.throughput());
        boolean measured = r.packetsDelivered() > 0;
        m.put("latencyMeanNs", measured ? r.latencyMeanNs() : null);
        m.put("latencyP95Ns", measured ? r.latencyP95Ns() : null);
        m.put("latencyP99Ns", measured ? r.latencyP99Ns() : null);
        m.put("meanHops", measured ? r.meanHops() : null);
        m.put("packetsDelivered", r.packetsDelivered());
        m.put("packetsDropped", r.packetsDropped());
        m.put("packetsRefused", r.packetsRefused());
        m.put("outOfOrder", r.outOfOrder());
        m.put("packetHops", r.packetHops());
        m.put("events", r.events());
        m.put("simulatedNs", r.simulatedNs());
        m.put("wallMillis", r.wallMillis());
        m.put("eventsPerSecond", r.eventsPerSecond());
        m.put("packetHopsPerSecond", r.packetHopsPerSecond());
        m.put("cpuMillis", r.cpuMillis());
        m.put("packetHopsPerCpuSecond", r.packetHopsPerCpuSecond());
        return m;
    }
}
