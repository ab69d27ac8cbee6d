package org.fabriclab.manager.monitoring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dashboards as files, without a Prometheus: Grafana JSON that imports anywhere (its data
 * source a variable), every panel in a unit the live check ({@link DashboardsIT}) knows, every
 * metric they read named in docs/metrics.md, every expression parsed by promtool, and each
 * dashboard described in the directory's README.
 */
class DashboardsTest {
    /** Grafana 11's dashboard schema; older Grafana migrates nothing newer than it knows. */
    private static final int SCHEMA_VERSION = 39;
    private static final String DATASOURCE = "${datasource}";
    /** Series Prometheus makes itself for every target. */
    private static final Set<String> PROMETHEUS_OWN = Set.of("up", "scrape_samples_scraped", "scrape_series_added", "scrape_duration_seconds");

    @Test
    void everyDashboardImportsWithItsDataSourceAsAVariable() throws Exception {
        List<Path> files = Dashboards.files();
        assertEquals(5, files.size(), "overview, link load, fairness, routing, emulation fidelity: " + files);
        Set<String> uids = new HashSet<>();
        for (Path file : files) {
            JsonObject d = Dashboards.read(file);
            assertTrue(uids.add(d.get("uid").getAsString()), file + ": uid " + d.get("uid") + " is another dashboard's");
            assertEquals(SCHEMA_VERSION, d.get("schemaVersion").getAsInt(), file.toString());
            assertFalse(d.has("__inputs"), file + ": the data source is the variable, not an import input");
            JsonObject datasource = null;
            for (JsonElement v : d.getAsJsonObject("templating").getAsJsonArray("list")) {
                if (v.getAsJsonObject().get("name").getAsString().equals("datasource")) {
                    datasource = v.getAsJsonObject();
                }
            }
            assertTrue(datasource != null && datasource.get("type").getAsString().equals("datasource")
                    && datasource.get("query").getAsString().equals("prometheus"), file + ": a variable datasource of type prometheus");
            Set<Integer> ids = new HashSet<>();
            for (JsonObject panel : Dashboards.panels(d)) {
                String where = file.getFileName() + " \"" + panel.get("title").getAsString() + "\"";
                assertTrue(ids.add(panel.get("id").getAsInt()), where + ": id " + panel.get("id") + " taken");
                JsonObject grid = panel.getAsJsonObject("gridPos");
                assertTrue(grid.get("x").getAsInt() + grid.get("w").getAsInt() <= 24, where + " is wider than the dashboard");
                if (Dashboards.isRow(panel)) {
                    continue;
                }
                assertEquals(DATASOURCE, panel.getAsJsonObject("datasource").get("uid").getAsString(), where);
                assertFalse(panel.getAsJsonArray("targets").isEmpty(), where + " queries nothing");
                for (JsonElement t : panel.getAsJsonArray("targets")) {
                    assertEquals(DATASOURCE, t.getAsJsonObject().getAsJsonObject("datasource").get("uid").getAsString(), where);
                    assertTrue(t.getAsJsonObject().has("expr"), where + ": a target without expr");
                }
            }
        }
    }

    @Test
    void everyPanelSaysAUnitTheLiveCheckKnows() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Path file : Dashboards.files()) {
            for (JsonObject panel : Dashboards.panels(Dashboards.read(file))) {
                String unit = Dashboards.unit(panel);
                if (!Dashboards.isRow(panel) && !Units.RANGES.containsKey(unit)) {
                    wrong.add(file.getFileName() + " \"" + panel.get("title").getAsString() + "\": unit " + unit);
                }
            }
        }
        assertTrue(wrong.isEmpty(), "panels without a unit of " + Units.RANGES.keySet() + ":\n" + String.join("\n", wrong));
    }

    /** A dashboard's own variables only ever choose among values: {@code label=~"$var"}. */
    @Test
    void templateVariablesAreOnlyRegexMatchers() throws Exception {
        Pattern variable = Pattern.compile("(.{0,3})\\$\\{?(\\w+)");
        for (Query q : Dashboards.queries()) {
            Matcher m = variable.matcher(q.expr());
            while (m.find()) {
                assertTrue(m.group(2).startsWith("__") || m.group(1).endsWith("=~\""), q + ": $" + m.group(2) + " outside a =~ matcher");
            }
        }
    }

    @Test
    void everyMetricTheDashboardsAndRulesReadIsInTheContract() throws Exception {
        String contract = Files.readString(Path.of("..", "docs", "metrics.md"));
        Set<String> named = new HashSet<>();
        List<String> prefixes = new ArrayList<>();
        Matcher m = Pattern.compile("`([a-z_]+)(\\*|\\{[^}`]*})?`").matcher(contract);
        while (m.find()) {
            if ("*".equals(m.group(2))) {
                prefixes.add(m.group(1));
            } else {
                named.add(m.group(1));
            }
        }
        Set<String> unknown = new TreeSet<>();
        List<Query> all = new ArrayList<>(Dashboards.queries());
        all.addAll(Rules.queries(true));
        for (Query q : all) {
            for (String metric : q.metrics()) {
                String base = metric.replaceFirst("_(count|sum|max)$", "");
                boolean known = named.contains(metric) || named.contains(base) || PROMETHEUS_OWN.contains(metric)
                        || metric.contains(":") || prefixes.stream().anyMatch(metric::startsWith);
                if (!known) {
                    unknown.add(metric + " (" + q.where() + " \"" + q.title() + "\")");
                }
            }
        }
        assertTrue(unknown.isEmpty(), "metrics docs/metrics.md does not name:\n" + String.join("\n", unknown));
    }

    /** Every panel's expression, as the live check runs it, is PromQL promtool parses (as a recording rule). */
    @Test
    void promtoolParsesEveryPanelsExpression(@TempDir Path dir) throws Exception {
        List<Query> queries = new ArrayList<>(Dashboards.queries());
        queries.addAll(Dashboards.variableQueries());
        StringBuilder rules = new StringBuilder("groups:\n  - name: panels\n    rules:\n");
        StringBuilder index = new StringBuilder();
        for (int i = 0; i < queries.size(); i++) {
            rules.append("      - record: panel_").append(i).append("\n        expr: '")
                    .append(queries.get(i).runnable().replace("'", "''")).append("'\n");
            index.append("panel_").append(i).append(": ").append(queries.get(i)).append('\n');
        }
        Path file = dir.resolve("panels.yaml");
        Files.writeString(file, rules);
        try {
            Promtool.run(dir, null, "check", "rules", file.toString());
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "\nwhere\n" + index, e);
        }
    }

    /** The checks the live test relies on catch what they are for. */
    @Test
    void metricNamesAndUnitChecksCatchWhatTheyShould() {
        assertEquals(Set.of("fabric_port_utilisation_ratio", "fabric_link_info", "fabric_emulation_dilation"),
                PromQl.metricNames("sum by (kind) (rate(fabric_port_utilisation_ratio{node=~\"$node\"}[$__rate_interval]) * on(node, port)"
                        + " group_left(kind) fabric_link_info{kind=~\"a|b\"}) * on() group_left() (fabric_emulation_dilation or on() vector(1e9))"));
        assertEquals("rate(x{kind=~\".*\"}[1m])", Dashboards.substitute("rate(x{kind=~\"${kind:regex}\"}[$__rate_interval])"));
        Instant now = Instant.parse("2026-11-25T00:00:00Z");
        Query share = new Query("f", "t", "x", "percentunit", Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY);
        assertNull(Units.outside(share, 1.0, now));
        assertNotNull(Units.outside(share, 1.01, now));
        assertNotNull(Units.outside(share, Double.NaN, now));
        assertNull(Units.outside(new Query("f", "t", "rate(x[1m])", "percentunit", 0, 1), 1.01, now), "rates get their slack");
        assertNotNull(Units.outside(new Query("f", "t", "x", "none", 0, 1), 1.5, now), "a panel's own max");
        assertNotNull(Units.outside(new Query("f", "t", "x", "s", Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY), -1, now));
        assertNotNull(Units.outside(new Query("f", "t", "x", "dateTimeFromNow", Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY),
                now.getEpochSecond(), now), "seconds where Grafana reads milliseconds");
        assertNotNull(Units.outside(new Query("f", "t", "x", "furlongs", 0, 1), 0.5, now));
    }

    @Test
    void theReadmeDescribesEveryDashboard() throws Exception {
        String readme = Files.readString(Dashboards.DIR.resolve("README.md"));
        for (Path file : Dashboards.files()) {
            assertTrue(readme.contains("`" + file.getFileName() + "`"), "README.md says nothing of " + file.getFileName());
            assertTrue(readme.contains(Dashboards.read(file).get("title").getAsString()), "README.md names " + file.getFileName() + "'s title");
        }
    }
}
