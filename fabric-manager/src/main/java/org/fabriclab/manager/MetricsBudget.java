package org.fabriclab.manager;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.fabriclab.cli.Cli;
import org.fabriclab.manager.channel.NodeChannels;
import org.fabriclab.manager.discovery.Discovery;
import org.fabriclab.routing.fabric.Fabric;
import org.fabriclab.routing.topology.Topologies;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The /metrics budget of docs/benchmarks.md, measured: a fabric too big to emulate here, as
 * discovery would see it, polled by the real perf manager from {@link SyntheticCounters} (traffic
 * on every link, congested outputs, flows into every host), scraped over HTTP from the real
 * {@link MetricsServer} after every poll. Prints per poll the poll's time, the exposition's size
 * and series, and how long it took to serve; and the management calls a poll makes, one per node
 * (the per-port polling before made one per linked port and one more per host).
 * Run by {@code bench/metrics-budget.sh}.
 */
@Command(name = "metrics-budget", mixinStandardHelpOptions = true,
        description = "Size and serving time of /metrics on a big fabric fed synthetic counters through the perf manager.")
public final class MetricsBudget implements Callable<Integer> {
    @Parameters(index = "0", defaultValue = "fat-tree:k=18,levels=3", paramLabel = "SPEC", description = "Topology. Default: ${DEFAULT-VALUE}")
    String spec;

    @Option(names = "--polls", defaultValue = "10", description = "Polls (model seconds of traffic). Default: ${DEFAULT-VALUE}")
    int polls;

    @Option(names = "--poll-seconds", defaultValue = "1",
            description = "Model seconds of traffic between two polls (60 polls of 60: an hour). Default: ${DEFAULT-VALUE}")
    long pollSeconds;

    @Option(names = "--flows-per-host", defaultValue = "16", description = "Sources each host receives from. Default: ${DEFAULT-VALUE}")
    int flowsPerHost;

    @Option(names = "--top-flows", defaultValue = "" + PerfManager.DEFAULT_TOP_FLOWS, description = "K. Default: ${DEFAULT-VALUE}")
    int topFlows;

    @Option(names = "--dump", paramLabel = "FILE", description = "Write the last exposition to FILE")
    Path dump;

    public static void main(String[] args) {
        Cli.exit(new MetricsBudget(), args);
    }

    @Override
    public Integer call() throws Exception {
        Fabric f = Topologies.generate(spec);
        Discovery.Result d = SyntheticCounters.discovered(f, 100);
        FabricManager.Snapshot snapshot = FabricManager.Snapshot.initial("minhop").routing(d);
        SyntheticCounters counters = new SyntheticCounters(f, 100, flowsPerHost, 10);
        PrometheusMeterRegistry registry = MetricsServer.newRegistry();
        long linked = d.nodes().stream().flatMap(n -> n.ports().stream()).filter(p -> p.getNeighbourNodeGuid() != 0).count();
        System.out.printf(Locale.ROOT, "%s: %d switches, %d hosts, %d directed links; calls per poll: %d (one per node; per port it was %d)%n",
                spec, f.switchCount(), f.caCount(), linked, d.nodes().size(), linked + f.caCount());
        HttpClient http = HttpClient.newHttpClient();
        try (NodeChannels channels = new NodeChannels();
             PerfManager perf = new PerfManager(() -> snapshot, channels, counters, registry, 1000, topFlows);
             MetricsServer server = new MetricsServer(registry, 0)) {
            HttpRequest get = HttpRequest.newBuilder(URI.create("http://localhost:" + server.port() + "/metrics")).build();
            for (int i = 1; i <= polls; i++) {
                counters.nextPoll(pollSeconds);
                long t0 = System.nanoTime();
                perf.poll();
                long t1 = System.nanoTime();
                long bytes = 0;
                long lines = 0;
                try (InputStream in = http.send(get, HttpResponse.BodyHandlers.ofInputStream()).body()) {
                    byte[] buf = new byte[1 << 16];
                    for (int r = in.read(buf); r >= 0; r = in.read(buf)) {
                        bytes += r;
                        for (int k = 0; k < r; k++) {
                            lines += buf[k] == '\n' ? 1 : 0;
                        }
                    }
                }
                long t2 = System.nanoTime();
                if (dump != null && i == polls) {
                    Files.deleteIfExists(dump); // ofFile does not truncate
                    http.send(get, HttpResponse.BodyHandlers.ofFile(dump));
                }
                System.out.printf(Locale.ROOT, "poll %2d (model %6d s): poll %.0f ms; /metrics %.2f MB, %d lines, served in %.0f ms%n", i,
                        counters.modelTimeNanos() / 1_000_000_000L, (t1 - t0) / 1e6,
                        bytes / 1e6, lines, (t2 - t1) / 1e6);
            }
        }
        return 0;
    }
}
