package org.fabriclab.manager.monitoring;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.fabriclab.testkit.Waits;

/**
 * Debian's {@code /usr/bin/prometheus}, started for a test: its config and data in a directory of
 * the test's, listening on loopback at a free port, scraping one target every second and
 * evaluating the given rule files every second; {@link #close()} stops it (and kills it if it does
 * not stop), so no process outlives the test.
 */
final class Prometheus implements AutoCloseable {
    /** One sample of an instant query's answer. */
    record Sample(Map<String, String> labels, double value) {
        @Override
        public String toString() {
            return labels.entrySet().stream().map(e -> e.getKey() + "=\"" + e.getValue() + "\"").collect(Collectors.joining(",", "{", "}")) + " " + value;
        }
    }

    /** An instant query's answer: its samples, or why Prometheus refused it (null if it did not). */
    record Answer(List<Sample> samples, String error) {
    }

    private final Process process;
    private final Path log;
    private final URI api;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Prometheus(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.api = URI.create("http://127.0.0.1:" + port + "/");
    }

    /** Starts Prometheus scraping {@code target} (host:port, path /metrics) under job fabriclab; returns once it is ready. */
    static Prometheus start(Path dir, String target, List<Path> ruleFiles) throws IOException {
        Promtool.assumeInstalled(Promtool.PROMETHEUS);
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
                + "rule_files:\n" + ruleFiles.stream().map(p -> "  - '" + p.toAbsolutePath().normalize() + "'\n").collect(Collectors.joining())
                + "scrape_configs:\n  - job_name: fabriclab\n    static_configs:\n      - targets: ['" + target + "']\n");
        int port = freePort();
        Path log = dir.resolve("prometheus.log");
        Process process = new ProcessBuilder(Promtool.PROMETHEUS.toString(), "--config.file=" + config, "--storage.tsdb.path=" + dir.resolve("data"),
                "--web.listen-address=127.0.0.1:" + port).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Prometheus prometheus = new Prometheus(process, log, port);
        try {
            Waits.until("prometheus answers /-/ready on port " + port + " (else it exited: see " + log + ")", prometheus::ready);
        } catch (RuntimeException | Error e) {
            prometheus.close();
            throw new IllegalStateException("prometheus did not start; its log:\n" + Files.readString(log), e);
        }
        return prometheus;
    }

    /** A port free on this machine now (another process could take it before its user binds it). */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private boolean ready() {
        if (!process.isAlive()) {
            throw new IllegalStateException("prometheus exited with " + process.exitValue());
        }
        try {
            return http.send(HttpRequest.newBuilder(api.resolve("-/ready")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode() == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Runs {@code promql} as an instant query ({@code /api/v1/query}) now. */
    Answer query(String promql) throws IOException, InterruptedException {
        URI uri = api.resolve("api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        String body = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString()).body();
        JsonObject answer = JsonParser.parseString(body).getAsJsonObject();
        if (!answer.get("status").getAsString().equals("success")) {
            return new Answer(List.of(), answer.get("errorType").getAsString() + ": " + answer.get("error").getAsString());
        }
        JsonObject data = answer.getAsJsonObject("data");
        List<Sample> samples = new ArrayList<>();
        switch (data.get("resultType").getAsString()) {
            case "vector" -> {
                for (JsonElement e : data.getAsJsonArray("result")) {
                    JsonObject series = e.getAsJsonObject();
                    Map<String, String> labels = new TreeMap<>();
                    series.getAsJsonObject("metric").entrySet().forEach(l -> labels.put(l.getKey(), l.getValue().getAsString()));
                    samples.add(new Sample(labels, value(series.getAsJsonArray("value"))));
                }
            }
            case "scalar" -> samples.add(new Sample(Map.of(), value(data.getAsJsonArray("result"))));
            default -> {
                return new Answer(List.of(), "a " + data.get("resultType").getAsString() + ", not an instant vector or a scalar");
            }
        }
        return new Answer(samples, null);
    }

    /**
     * The rules Prometheus loaded whose last evaluation was not healthy ({@code /api/v1/rules}:
     * an error at run time that promtool cannot see, as a join matching many series to many), each
     * as "file group name: health lastError"; fails if it loaded no rule.
     */
    List<String> unhealthyRules() throws IOException, InterruptedException {
        String body = http.send(HttpRequest.newBuilder(api.resolve("api/v1/rules")).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        List<String> unhealthy = new ArrayList<>();
        int rules = 0;
        for (JsonElement g : JsonParser.parseString(body).getAsJsonObject().getAsJsonObject("data").getAsJsonArray("groups")) {
            JsonObject group = g.getAsJsonObject();
            for (JsonElement r : group.getAsJsonArray("rules")) {
                JsonObject rule = r.getAsJsonObject();
                rules++;
                if (!rule.get("health").getAsString().equals("ok")) {
                    unhealthy.add(Path.of(group.get("file").getAsString()).getFileName() + " " + group.get("name").getAsString() + " "
                            + rule.get("name").getAsString() + ": " + rule.get("health").getAsString()
                            + (rule.has("lastError") ? " " + rule.get("lastError").getAsString() : ""));
                }
            }
        }
        if (rules == 0) {
            throw new IllegalStateException("prometheus loaded no rules: " + body);
        }
        return unhealthy;
    }

    /** Whether {@code promql} returns any sample now (for a named wait: a failed request fails the wait). */
    boolean returnsData(String promql) {
        try {
            return !query(promql).samples().isEmpty();
        } catch (IOException e) {
            throw new UncheckedIOException("prometheus did not answer " + promql, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** A sample's value: Prometheus writes it as a string ("NaN" and "+Inf" included). */
    private static double value(JsonArray timeAndValue) {
        String v = timeAndValue.get(1).getAsString();
        return switch (v) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            default -> Double.parseDouble(v);
        };
    }

    /** Prometheus's own log, to show with a failure. */
    String log() throws IOException {
        return Files.readString(log);
    }

    @Override
    public void close() {
        stop(process, "prometheus");
    }

    /** Stops {@code process} (SIGTERM), kills it if it has not exited in 30 s, and waits until it has. */
    static void stop(Process process, String what) {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    throw new IllegalStateException(what + " (pid " + process.pid() + ") did not exit when killed");
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
