package org.fabriclab.manager;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.fabriclab.cli.Cli;
import org.fabriclab.testkit.ProcessOutput;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Jobs on the live plane ({@code --job}, issue 19): the hosts of an emulated fabric run each job's
 * traffic among its ranks through the core's job plan, and a manager's Prometheus scrape has each
 * job's series ({@code fabric_job_*}, label {@code job}), summed over its hosts' NIC counters and
 * read over the management contract; a closed-loop job ({@code pattern=ping-pong}, barrier,
 * broadcast) runs the simulator's {@code ClosedLoop} on the live hosts, its iterations counted by its
 * rank 0's host ({@code fabric_job_iterations_total}). Two ways in, as a lab runs them: {@code emulator up --job} in
 * a process of its own, managed over TCP by a manager in this JVM; and {@code fabric-manager
 * --emulate --job}, its own main, scraped on its metrics port. promtool accepts both expositions.
 */
class LiveJobMetricsTest {
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /**
     * {@code emulator up} with an all-to-all job of 4 KiB messages (two packets of the live hosts'
     * 2,048 bytes each), a ring of one-packet messages and a ping-pong of 4 KiB messages: each job's
     * hosts receive whole messages of their own job only, a message's packets counted once each; the
     * ping-pong's iterations grow from poll to poll, each two of its messages, and only its rank 0
     * counts them.
     */
    @Test
    void emulatorUpJobsAreScrapedPerJobThroughTheManager(@TempDir Path dir) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process emulator = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                "org.fabriclab.emulator.EmulatorMain", "up", "--topology", "fat-tree:k=4,levels=2", "--management-port", "0",
                "--link-gbps", "1", "--job", "name=a2a,hosts=6,placement=interleaved,pattern=all-to-all,load=0.05,message=4KiB",
                "--job", "name=ring,hosts=4,pattern=allreduce-ring,load=0.02",
                "--job", "name=pp,hosts=2,placement=random,pattern=ping-pong,message=4KiB", "--seed", "7").redirectErrorStream(true).start();
        List<String> output = ProcessOutput.follow(emulator, "emulator-output");
        try {
            Waits.until("emulator up serves its fabric: " + output, () -> output.stream().anyMatch(l -> l.contains("--connect ")));
            String line = output.stream().filter(l -> l.contains("--connect ")).findFirst().orElseThrow();
            String endpoint = line.substring(line.indexOf("--connect ") + "--connect ".length()).strip();
            PrometheusMeterRegistry registry = MetricsServer.newRegistry();
            try (FabricManager manager = new FabricManager(endpoint, "minhop", dir.resolve("guid2lid"), registry);
                 PerfManager perf = new PerfManager(manager, registry, 1000);
                 MetricsServer server = new MetricsServer(registry, 0)) {
                FabricManager.Snapshot s = manager.sweep().get(60, TimeUnit.SECONDS);
                assertEquals(FabricManager.State.UP, s.state(), s.lastError());
                Waits.until("emulator up started the jobs: " + output, () -> output.stream().anyMatch(l -> l.contains("3 jobs started (a2a, ring, pp)")));
                AtomicReference<String> body = new AtomicReference<>();
                Waits.until("every job completed messages, the ping-pong iterations", () -> {
                    perf.poll();
                    body.set(scrape(server.port()));
                    Map<String, Double> m = QLearningMetricsTest.samples(body.get());
                    return m.getOrDefault("fabric_job_messages_total{job=\"a2a\"}", 0.0) >= 20
                            && m.getOrDefault("fabric_job_messages_total{job=\"ring\"}", 0.0) >= 20
                            && m.getOrDefault("fabric_job_iterations_total{job=\"pp\"}", 0.0) >= 5;
                });
                Map<String, Double> m = QLearningMetricsTest.samples(body.get());
                double messages = m.get("fabric_job_messages_total{job=\"a2a\"}");
                double packets = m.get("fabric_job_packets_total{job=\"a2a\"}");
                assertTrue(2 * messages <= packets, "a 4 KiB message is two packets, counted whole once: " + messages + " of " + packets);
                assertEquals(m.get("fabric_job_messages_total{job=\"ring\"}"), m.get("fabric_job_packets_total{job=\"ring\"}"),
                        "a ring's message is one packet");
                assertTrue(m.get("fabric_job_message_completion_seconds_total{job=\"a2a\"}") > 0, "completion times summed");
                assertEquals(0.0, m.get("fabric_job_nonminimal_ratio{job=\"a2a\"}"), "a fat tree's minhop routes minimally");
                assertEquals(3, m.keySet().stream().filter(k -> k.startsWith("fabric_job_messages_total{")).count(), "a series per job");
                assertEquals(List.of("fabric_job_iterations_total{job=\"pp\"}"), m.keySet().stream()
                        .filter(k -> k.startsWith("fabric_job_iterations_total{")).toList(), "iterations of the closed-loop job only");
                // the hosts are polled one after the other while the loop runs: the exact counts are LiveClosedLoopTest's
                double iterations = m.get("fabric_job_iterations_total{job=\"pp\"}");
                assertTrue(m.get("fabric_job_messages_total{job=\"pp\"}") >= iterations, "a round trip is two messages");
                assertTrue(m.get("fabric_job_iteration_seconds_total{job=\"pp\"}") > 0, "iteration times summed");
                List<PerfManager.NicSample> pp = perf.nicSamples().stream().filter(n -> n.job().equals("pp")).toList();
                assertEquals(2, pp.size());
                assertEquals(1, pp.stream().filter(n -> n.jobIterations() > 0).count(), "rank 0's host counts the iterations: " + pp);
                // the admin contract's samples (fabricctl counters) carry each host's job and its counters: they add up to the series
                long fromSamples = perf.nicSamples().stream().filter(n -> n.job().equals("a2a")).mapToLong(PerfManager.NicSample::jobMessages).sum();
                assertEquals(messages, (double) fromSamples, "a2a's hosts' messages, summed");
                assertEquals(6, perf.nicSamples().stream().filter(n -> n.job().equals("a2a")).count(), "a2a's six hosts");
                assertEquals(4, perf.nicSamples().stream().filter(n -> n.job().isEmpty()).count(), "the hosts in no job");
                MetricsTest.promtoolAccepts(dir, body.get());
                Waits.until("the ping-pong goes on", () -> {
                    perf.poll();
                    return QLearningMetricsTest.samples(scrape(server.port())).getOrDefault("fabric_job_iterations_total{job=\"pp\"}", 0.0)
                            >= iterations + 5;
                });
            }
        } finally {
            emulator.destroy();
            assertTrue(emulator.waitFor(60, TimeUnit.SECONDS), "emulator up stopped on SIGTERM");
        }
    }

    /**
     * {@code fabric-manager --emulate --job} on a Dragonfly routed by UGALn: a ring of two ranks in
     * two groups whose packets all ask for NMIN_HASH goes through an intermediate group every time
     * (share 1), an all-to-all whose packets ask for MIN_HASH never (share 0); a barrier and a
     * broadcast of four ranks each (the ends of their iterations seen by another rank than 0, posted
     * to it) count iterations. Each job's packets by the mode they asked for: the fixed modes' all
     * theirs; a closed-loop ring allreduce under application-aware routing ({@code mode=app-aware},
     * each message's mode chosen from the NIC counters when its first packet leaves) completes
     * iterations, and its packets carry only the two modes the chooser weighs, the high bias among
     * them (its first message, below the 4 KiB between counter reads, always takes it), and none of
     * its messages was refused.
     */
    @Test
    void fabricManagerEmulateJobsHaveTheirRoutingModesNonMinimalShare(@TempDir Path dir) throws Exception {
        CompletableFuture<FabricManagerMain.Running> up = new CompletableFuture<>();
        StringWriter err = new StringWriter();
        String[] args = {"--emulate", "dragonfly:p=1,a=4,h=1", "--engine", "df-ugaln", "--admin-port", "0", "--metrics-port", "0",
            "--state-dir", dir.toString(), "--link-gbps", "1", "--perf-interval", "200ms",
            "--job", "name=ring,hosts=2,placement=interleaved,pattern=allreduce-ring,load=0.05,mode=NMIN_HASH",
            "--job", "name=a2a,hosts=4,placement=contiguous,pattern=all-to-all,load=0.05,mode=MIN_HASH,message=8KiB",
            "--job", "name=bar,hosts=4,placement=random,pattern=barrier", "--job", "name=bc,hosts=4,pattern=broadcast,message=4KiB",
            "--job", "name=app,hosts=4,placement=interleaved,pattern=allreduce,mode=app-aware", "--job-seed", "3"};
        CompletableFuture<Integer> exit = CompletableFuture.supplyAsync(() -> Cli.execute(new FabricManagerMain().onStarted(up::complete),
                args, new PrintWriter(new StringWriter(), true), new PrintWriter(err, true)));
        FabricManagerMain.Running daemon = CompletableFuture.anyOf(up, exit).thenApply(x -> up.getNow(null)).get(120, TimeUnit.SECONDS);
        assertNotNull(daemon, "the daemon ended before it was up: " + err);
        try {
            AtomicReference<Map<String, Double>> m = new AtomicReference<>();
            AtomicReference<String> body = new AtomicReference<>();
            Waits.until("both jobs' packets polled", () -> {
                body.set(scrape(daemon.metricsPort()));
                m.set(QLearningMetricsTest.samples(body.get()));
                return m.get().getOrDefault("fabric_job_packets_total{job=\"ring\"}", 0.0) >= 20
                        && m.get().getOrDefault("fabric_job_messages_total{job=\"a2a\"}", 0.0) >= 5
                        && m.get().getOrDefault("fabric_job_iterations_total{job=\"bar\"}", 0.0) >= 5
                        && m.get().getOrDefault("fabric_job_iterations_total{job=\"bc\"}", 0.0) >= 5
                        && m.get().getOrDefault("fabric_job_iterations_total{job=\"app\"}", 0.0) >= 5;
            });
            assertTrue(m.get().get("fabric_job_iteration_seconds_total{job=\"bar\"}") > 0, "iteration times summed");
            assertTrue(m.get().get("fabric_job_iteration_seconds_total{job=\"bc\"}") > 0, "iteration times summed");
            assertEquals(1.0, m.get().get("fabric_job_nonminimal_ratio{job=\"ring\"}"), "NMIN_HASH: every packet non-minimal");
            assertEquals(0.0, m.get().get("fabric_job_nonminimal_ratio{job=\"a2a\"}"), "MIN_HASH: none");
            assertTrue(4 * m.get().get("fabric_job_messages_total{job=\"a2a\"}") <= m.get().get("fabric_job_packets_total{job=\"a2a\"}"),
                    "an 8 KiB message is four packets");
            // each job's packets by mode add up to its packets (one poll's counters of each host)
            assertEquals(Map.of("NMIN_HASH", m.get().get("fabric_job_packets_total{job=\"ring\"}")), byMode(m.get(), "ring"));
            assertEquals(Map.of("MIN_HASH", m.get().get("fabric_job_packets_total{job=\"a2a\"}")), byMode(m.get(), "a2a"));
            assertEquals(Map.of("DEFAULT", m.get().get("fabric_job_packets_total{job=\"bar\"}")), byMode(m.get(), "bar"));
            Map<String, Double> app = byMode(m.get(), "app");
            assertTrue(Set.of("ADAPTIVE_0", "ADAPTIVE_3").containsAll(app.keySet()), "the chooser's two modes only: " + app);
            assertTrue(app.getOrDefault("ADAPTIVE_3", 0.0) > 0, "the first messages take the high bias: " + app);
            assertEquals(m.get().get("fabric_job_packets_total{job=\"app\"}"), app.values().stream().mapToDouble(Double::doubleValue).sum(),
                    "every packet of the job counted under one mode: " + app);
            assertEquals(0.0, m.get().get("fabric_job_refused_messages_total{job=\"app\"}"), "the source queue held every message");
            assertEquals(null, m.get().get("fabric_job_refused_messages_total{job=\"ring\"}"), "an open loop's job has none");
            MetricsTest.promtoolAccepts(dir, body.get());
        } finally {
            daemon.stop().run();
            assertEquals(0, exit.get(60, TimeUnit.SECONDS), err.toString());
        }
    }

    /** {@code job}'s {@code fabric_job_mode_packets_total} series by their mode label. */
    private static Map<String, Double> byMode(Map<String, Double> samples, String job) {
        String prefix = "fabric_job_mode_packets_total{job=\"" + job + "\",mode=\"";
        Map<String, Double> out = new java.util.TreeMap<>();
        samples.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k.substring(prefix.length(), k.length() - 2), v);
            }
        });
        return out;
    }

    private static String scrape(int port) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + "/metrics")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
