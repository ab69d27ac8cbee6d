package org.fabriclab.manager.monitoring;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.fabriclab.manager.FabricManagerMain;
import org.fabriclab.testkit.Waits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboards and recording rules against a real Prometheus: the daemon runs (its own main, in
 * a JVM of its own, as a lab runs it) with an embedded Dragonfly+ under ar-dfp and uniform traffic
 * at the links' rate, so outputs congest and adaptive routing decides; Debian's
 * {@code /usr/bin/prometheus} scrapes it every second with the rules loaded; then every panel's
 * expression of every dashboard, every query variable and every recording rule runs through
 * {@code /api/v1/query}, and each must return data in its panel's unit ({@link Units}); every
 * rule, alerts too, must have been evaluated without error. Every failure is reported at once.
 * The rows that only some fabrics fill (Q-table learning, congestion control) run against a daemon
 * of their own. An integration test: it waits on live traffic.
 */
class DashboardsIT {
    /** Panels that rightly show nothing on a healthy fabric, by title, and why. */
    static final Map<String, String> MAY_BE_EMPTY = Map.of(
            "Discards by reason", "a reason's series appears when it is first non-zero, and this fabric discards nothing");

    /** The fabric: 5 groups of 2 leaves and 2 spines, 10 hosts, local and global links; ar-dfp's detours. */
    private static final String[] DAEMON = {"--emulate", "dragonfly-plus:p=1,leaves=2,spines=2,h=2", "--engine", "ar-dfp",
        "--traffic", "uniform", "--link-gbps", "0.2", "--traffic-gbps", "0.2", "--perf-interval", "1s", "--sweep-interval", "5s"};

    /** The routing dashboard's row of Q-adaptive's learning, which only a daemon routing by q-adaptive fills. */
    static final String Q_LEARNING_ROW = "Q-table learning";

    /** A Dragonfly of 5 groups of 4 routers, one host each, under q-adaptive with ADV+1 traffic: every switch learns. */
    private static final String[] Q_DAEMON = {"--emulate", "dragonfly:p=1,a=4,h=1", "--engine", "q-adaptive", "--traffic", "adv+1",
        "--link-gbps", "0.2", "--traffic-gbps", "0.1", "--perf-interval", "1s", "--sweep-interval", "5s"};

    /** The fairness dashboard's row of NIC congestion control, which only a daemon whose hosts run one fills. */
    static final String CC_ROW = "Congestion control";

    /**
     * A two-level fat tree whose hosts run DCQCN, the switches marking every ECN-capable packet
     * (Kmin 0, Kmax 1 byte: any queue is above it), so that CNPs flow at the emulator's slow rates.
     */
    private static final String[] CC_DAEMON = {"--emulate", "fat-tree:k=4,levels=2", "--engine", "minhop", "--traffic", "uniform",
        "--link-gbps", "0.2", "--traffic-gbps", "0.1", "--cc", "dcqcn", "--cc-param", "kmin_bytes=0", "--cc-param", "kmax_bytes=1",
        "--perf-interval", "1s", "--sweep-interval", "5s"};

    /** Scrapes to wait for on it: a minute's rates of the NICs' control packets. */
    private static final String CC_SCRAPED = "min(count_over_time(fabric_host_nic_cc_control_packets_total[1m])) >= 10";

    /** Scrapes to wait for on it: a minute's rates, and the convergence gauge of every switch over a few polls. */
    private static final String Q_SCRAPED = "min(count_over_time(fabric_switch_q_updates_total[1m])) >= 10"
            + " and on() count(fabric_switch_q_change_mean_seconds) >= 20";

    /** Scrapes to wait for: rates over a minute need a few, and some congested outputs with their input shares. */
    private static final String SCRAPED = "min(count_over_time(fabric_port_transmit_bytes_total[1m])) >= 10"
            + " and on() count(fabric_port_input_share_ratio) > 0";

    @Test
    void everyPanelAndRecordingRuleReturnsDataInItsUnit(@TempDir Path dir) throws Exception {
        List<Query> queries = new ArrayList<>();
        for (Query q : Dashboards.queries()) {
            if (!Dashboards.queriesOfRow(Q_LEARNING_ROW).contains(q) && !Dashboards.queriesOfRow(CC_ROW).contains(q)) {
                queries.add(q);
            }
        }
        queries.addAll(Dashboards.variableQueries());
        queries.addAll(Rules.queries(false));
        check(dir, DAEMON, SCRAPED, queries);
    }

    /**
     * The routing dashboard's Q-table learning row, on a daemon that learns: a Dragonfly under
     * q-adaptive with ADV+1 traffic (the fabric of the test above learns no Q-table).
     */
    @Test
    void theQTableLearningPanelsReturnDataInTheirUnitWhereSwitchesLearn(@TempDir Path dir) throws Exception {
        List<Query> queries = Dashboards.queriesOfRow(Q_LEARNING_ROW);
        assertTrue(queries.size() >= 8, "the row's panels: " + queries);
        check(dir, Q_DAEMON, Q_SCRAPED, queries);
    }

    /** The fairness dashboard's congestion-control row, on a daemon whose hosts run DCQCN and whose switches mark. */
    @Test
    void theCongestionControlPanelsReturnDataInTheirUnitWhereHostsRunOne(@TempDir Path dir) throws Exception {
        List<Query> queries = Dashboards.queriesOfRow(CC_ROW);
        assertTrue(queries.size() >= 7, "the row's panels: " + queries);
        check(dir, CC_DAEMON, CC_SCRAPED, queries);
    }

    /**
     * Runs the daemon with {@code args} under a Prometheus with the rules loaded, waits until
     * {@code scraped} returns data, then runs every one of {@code queries}: each must return data in
     * its unit ({@link #MAY_BE_EMPTY} excepted); every failure reported at once.
     */
    private static void check(Path dir, String[] args, String scraped, List<Query> queries) throws Exception {
        Promtool.assumeInstalled(Promtool.PROMETHEUS);
        int metricsPort = Prometheus.freePort();
        Process daemon = startDaemon(dir, metricsPort, args);
        try (Prometheus prometheus = Prometheus.start(dir, "127.0.0.1:" + metricsPort, Rules.ruleFiles())) {
            try {
                Waits.until("prometheus has scraped the daemon's fabric enough (" + scraped + ")", () -> {
                    if (!daemon.isAlive()) {
                        throw new IllegalStateException("the daemon exited with " + daemon.exitValue());
                    }
                    return prometheus.returnsData(scraped);
                });
            } catch (RuntimeException e) {
                throw new AssertionError(e.getMessage() + "\nprometheus's target: " + prometheus.query("up").samples()
                        + "\nthe daemon's log:\n" + read(dir.resolve("daemon.log")) + "\nprometheus's log:\n" + prometheus.log(), e);
            }
            List<String> failures = new ArrayList<>();
            for (Query q : queries) {
                Prometheus.Answer answer = prometheus.query(q.runnable());
                if (answer.error() != null) {
                    failures.add(q + "\n    -> refused: " + answer.error());
                } else if (answer.samples().isEmpty() && MAY_BE_EMPTY.containsKey(q.title())) {
                    System.out.println("may be empty (" + MAY_BE_EMPTY.get(q.title()) + "): " + q);
                } else if (answer.samples().isEmpty()) {
                    failures.add(q + "\n    -> no data");
                } else {
                    String outside = outsideItsUnit(q, answer);
                    if (outside != null) {
                        failures.add(q + "\n    -> " + outside);
                    }
                }
            }
            prometheus.unhealthyRules().forEach(rule -> failures.add("rule evaluated with an error: " + rule));
            Set<String> exported = new TreeSet<>();
            prometheus.query("group by (__name__) ({job=\"fabriclab\"})").samples().forEach(s -> exported.add(s.labels().get("__name__")));
            System.out.println(queries.size() + " expressions run");
            assertTrue(failures.isEmpty(), failures.size() + " of " + queries.size() + " expressions failed:\n" + String.join("\n", failures)
                    + "\n\nthe daemon exports: " + exported);
        } finally {
            Prometheus.stop(daemon, "the daemon");
        }
    }

    /** Why the answer is not all in the query's unit (the first few samples that are not), or null if it is. */
    private static String outsideItsUnit(Query q, Prometheus.Answer answer) {
        Instant now = Instant.now();
        List<String> wrong = new ArrayList<>();
        for (Prometheus.Sample s : answer.samples()) {
            String why = Units.outside(q, s.value(), now);
            if (why != null) {
                wrong.add(why + ": " + s);
            }
        }
        return wrong.isEmpty() ? null : wrong.size() + " of " + answer.samples().size() + " samples: " + String.join("; ", wrong.subList(0, Math.min(3, wrong.size())));
    }

    /**
     * The daemon, {@link FabricManagerMain} with the test's classpath in a JVM of its own (with a
     * small young generation, so that garbage collections, and their metrics, come soon), its log
     * in {@code dir}; its admin port free, its state in {@code dir}.
     */
    private static Process startDaemon(Path dir, int metricsPort, String[] args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m", "-Xmn16m", "-cp", System.getProperty("java.class.path"), FabricManagerMain.class.getName()));
        command.addAll(List.of(args));
        command.addAll(List.of("--metrics-port", Integer.toString(metricsPort), "--admin-port", Integer.toString(Prometheus.freePort()),
                "--state-dir", dir.resolve("state").toString()));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(dir.resolve("daemon.log").toFile()).start();
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(" + file + " unreadable: " + e.getMessage() + ")";
        }
    }
}
