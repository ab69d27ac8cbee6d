package org.fabriclab.manager.monitoring;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The Grafana dashboards of deploy/helm/fabriclab/dashboards, read as their JSON says: their
 * panels (those inside rows too), the expression of every panel target with the unit the panel
 * shows, and Grafana's template variables replaced as the tests run them.
 */
final class Dashboards {
    /** The chart's directory, from the module's (where Maven runs the tests). */
    static final Path CHART = Path.of("..", "deploy", "helm", "fabriclab");
    static final Path DIR = CHART.resolve("dashboards");

    /**
     * Grafana's built-in variables, as the live check runs them: rates over a minute (60 scrapes at
     * its 1 s interval), the dashboard's range an hour (as long as a check can have run).
     */
    private static final Map<String, String> BUILT_IN = Map.of(
            "__rate_interval", "1m", "__interval", "15s", "__range", "1h");

    /** A query variable's definition, the one form the dashboards use. */
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\((.+),\\s*(\\w+)\\)");

    private Dashboards() {
    }

    /** Every dashboard file, sorted by name. */
    static List<Path> files() throws IOException {
        try (Stream<Path> s = Files.list(DIR)) {
            return s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
    }

    static JsonObject read(Path file) {
        try {
            return JsonParser.parseString(Files.readString(file)).getAsJsonObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            throw new IllegalStateException(file + " is not JSON: " + e.getMessage(), e);
        }
    }

    /** Every panel of a dashboard, rows and the panels inside collapsed rows included, in order. */
    static List<JsonObject> panels(JsonObject dashboard) {
        List<JsonObject> all = new ArrayList<>();
        for (JsonElement e : dashboard.getAsJsonArray("panels")) {
            JsonObject panel = e.getAsJsonObject();
            all.add(panel);
            if (panel.has("panels")) {
                panel.getAsJsonArray("panels").forEach(inner -> all.add(inner.getAsJsonObject()));
            }
        }
        return all;
    }

    static boolean isRow(JsonObject panel) {
        return panel.get("type").getAsString().equals("row");
    }

    /** The panel's unit (fieldConfig.defaults.unit), or null if it says none. */
    static String unit(JsonObject panel) {
        JsonObject defaults = defaults(panel);
        return defaults != null && defaults.has("unit") ? defaults.get("unit").getAsString() : null;
    }

    private static JsonObject defaults(JsonObject panel) {
        return panel.has("fieldConfig") && panel.getAsJsonObject("fieldConfig").has("defaults")
                ? panel.getAsJsonObject("fieldConfig").getAsJsonObject("defaults") : null;
    }

    private static double bound(JsonObject panel, String name, double otherwise) {
        JsonObject defaults = defaults(panel);
        return defaults != null && defaults.has(name) ? defaults.get(name).getAsDouble() : otherwise;
    }

    /** The expression of every target of every panel of every dashboard, with its panel's unit. */
    static List<Query> queries() throws IOException {
        List<Query> queries = new ArrayList<>();
        for (Path file : files()) {
            for (JsonObject panel : panels(read(file))) {
                if (isRow(panel) || !panel.has("targets")) {
                    continue;
                }
                for (JsonElement t : panel.getAsJsonArray("targets")) {
                    JsonObject target = t.getAsJsonObject();
                    if (target.has("expr")) {
                        queries.add(new Query(file.getFileName().toString(), panel.get("title").getAsString(), target.get("expr").getAsString(),
                                unit(panel), bound(panel, "min", Double.NEGATIVE_INFINITY), bound(panel, "max", Double.POSITIVE_INFINITY)));
                    }
                }
            }
        }
        return queries;
    }

    /** The queries of the panels inside the row titled {@code rowTitle} (of any dashboard). */
    static List<Query> queriesOfRow(String rowTitle) throws IOException {
        List<String> titles = new ArrayList<>();
        for (Path file : files()) {
            for (JsonElement e : read(file).getAsJsonArray("panels")) {
                JsonObject panel = e.getAsJsonObject();
                if (isRow(panel) && panel.get("title").getAsString().equals(rowTitle) && panel.has("panels")) {
                    panel.getAsJsonArray("panels").forEach(inner -> titles.add(inner.getAsJsonObject().get("title").getAsString()));
                }
            }
        }
        return queries().stream().filter(q -> titles.contains(q.title())).toList();
    }

    /**
     * The query variables' {@code label_values(METRIC, LABEL)}, as the PromQL a Grafana data source
     * runs for them ({@code group by (LABEL) (METRIC)}), so the live check sees that each offers values.
     */
    static List<Query> variableQueries() throws IOException {
        List<Query> queries = new ArrayList<>();
        for (Path file : files()) {
            for (JsonElement v : read(file).getAsJsonObject("templating").getAsJsonArray("list")) {
                JsonObject variable = v.getAsJsonObject();
                if (variable.get("type").getAsString().equals("query")) {
                    String definition = variable.get("definition").getAsString();
                    Matcher m = LABEL_VALUES.matcher(definition);
                    if (!m.matches()) {
                        throw new IllegalStateException(file + ": variable " + variable.get("name") + " is not label_values(METRIC, LABEL): " + definition);
                    }
                    queries.add(new Query(file.getFileName().toString(), "variable $" + variable.get("name").getAsString(),
                            "group by (" + m.group(2) + ") (" + m.group(1) + ")", "none", 1, 1));
                }
            }
        }
        return queries;
    }

    /**
     * {@code expr} as Prometheus can run it: Grafana's built-in variables by {@link #BUILT_IN}, and
     * the dashboard's own ({@code $kind}, {@code ${kind}}, {@code ${kind:regex}}) by {@code .*},
     * every value (they are only ever used in {@code =~} matchers).
     */
    static String substitute(String expr) {
        String s = expr;
        for (Map.Entry<String, String> e : BUILT_IN.entrySet()) {
            s = s.replace("${" + e.getKey() + "}", e.getValue()).replace("$" + e.getKey(), e.getValue());
        }
        return s.replaceAll("\\$\\{\\w+(:\\w+)?}|\\$\\w+", ".*");
    }
}
