package org.fabriclab.emulator.cli;

import org.fabriclab.agent.link.Frames;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.fabriclab.cli.DeprecatedSpelling;
import org.fabriclab.cli.JsonOption;
import org.fabriclab.cli.TimeSpan;
import org.fabriclab.emulator.bench.ForwardingBenchmark;
import org.fabriclab.routing.format.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code emulator bench-forwarding}: one switch's forwarding rate against a bare Netty relay, in one run. */
@Command(name = "bench-forwarding", mixinStandardHelpOptions = true,
        description = "Packets per second through one switch with every port busy, and through a bare Netty relay of the same frames.")
public final class BenchForwardingCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--ports", defaultValue = "8", description = "Switch ports (one busy host each), 2..254. Default: ${DEFAULT-VALUE}")
    int ports;

    @Option(names = "--payload", defaultValue = "256", paramLabel = "BYTES", description = "Payload bytes per packet. Default: ${DEFAULT-VALUE}")
    int payload;

    @Option(names = "--duration", defaultValue = "5s", paramLabel = "TIME", converter = TimeSpan.Converter.class,
            description = "Measured time per plane and round (ms, s). Default: ${DEFAULT-VALUE}")
    TimeSpan duration;

    @Option(names = "--warmup", defaultValue = "3s", paramLabel = "TIME", converter = TimeSpan.BareSeconds.class,
            description = "Unmeasured time per plane and round first (ms, s). Default: ${DEFAULT-VALUE}")
    TimeSpan warmup;

    @Option(names = "--rounds", defaultValue = "3", description = "Rounds, each measuring the relay then the switch; medians are reported. Default: ${DEFAULT-VALUE}")
    int rounds;

    @Mixin
    JsonOption json;

    /** The old name of {@code --duration}, in seconds without a unit (a field apart: picocli applies defaults after parsing). */
    @DeprecatedSpelling(use = "--duration TIME")
    @Option(names = "--seconds", hidden = true, paramLabel = "SECONDS")
    Double seconds;

    @Override
    public Integer call() throws Exception {
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds must be at least 1, not " + rounds);
        }
        if (ports < 2 || ports > 254) {
            throw new IllegalArgumentException("--ports must be 2..254, not " + ports);
        }
        if (payload < 0 || payload > Frames.MAX_PAYLOAD) {
            throw new IllegalArgumentException("--payload must be 0.." + Frames.MAX_PAYLOAD + " bytes, not " + payload);
        }
        if (seconds == null) {
            duration.positive("--duration");
        } else if (!(seconds > 0)) {
            throw new IllegalArgumentException("--seconds must be above 0, not " + seconds);
        }
        List<ForwardingBenchmark.Result> results = ForwardingBenchmark.run(ports, payload, warmup.seconds(),
                seconds != null ? seconds : duration.seconds(), rounds);
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
        PrintWriter out = spec.commandLine().getOut();
        if (json.json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("ports", ports);
            m.put("payloadBytes", payload);
            m.put("rounds", rounds);
            m.put("bareRelayPps", Math.round(ForwardingBenchmark.median(relayPps)));
            m.put("switchPps", Math.round(ForwardingBenchmark.median(switchPps)));
            m.put("ratio", thousandths(ForwardingBenchmark.median(ratio)));
            m.put("bareRelayPpsPerCpu", Math.round(ForwardingBenchmark.median(relayPerCpu)));
            m.put("switchPpsPerCpu", Math.round(ForwardingBenchmark.median(switchPerCpu)));
            m.put("cpuRatio", thousandths(ForwardingBenchmark.median(cpuRatio)));
            out.println(Json.write(m));
        } else {
            for (ForwardingBenchmark.Result r : results) {
                out.printf(Locale.ROOT, "%-11s %,12.0f packets/s  %,12.0f per CPU-second  loop busy %5.1f%%%n",
                        r.plane(), r.packetsPerSecond(), r.packetsPerCpuSecond(), 100 * r.cpuSeconds() / r.seconds());
            }
            out.printf(Locale.ROOT, "median switch/relay: %.1f%% of packets/s, %.1f%% of packets per CPU-second%n",
                    100 * ForwardingBenchmark.median(ratio), 100 * ForwardingBenchmark.median(cpuRatio));
        }
        out.flush();
        return 0;
    }

    /** Three decimals, as the report has always given the ratios. */
    private static double thousandths(double x) {
        return Math.round(x * 1000) / 1000.0;
    }
}
