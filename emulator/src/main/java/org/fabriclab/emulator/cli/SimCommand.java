package org.fabriclab.emulator.cli;

import java.io.PrintWriter;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.fabriclab.cli.DeprecatedSpelling;
import org.fabriclab.cli.EngineOption;
import org.fabriclab.cli.JsonOption;
import org.fabriclab.emulator.sim.Simulation;
import org.fabriclab.routing.engine.RoutingException;
import org.fabriclab.routing.format.Json;
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
        sim.check();
        Simulation.Config config;
        try {
            config = sim.config(sim.route(routing != null ? routing : engine.chain)).load(load).build();
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
        Map<String, Object> report = sim.report(config, r);
        if (json.json) {
            out.println(Json.write(report));
        } else {
            report.forEach((k, v) -> out.printf(Locale.ROOT, "%-20s %s%n", k,
                    v instanceof Double d ? String.format(Locale.ROOT, "%.4g", d) : v));
        }
        out.flush();
        return 0;
    }
}
