package org.fabriclab.manager.monitoring;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The Prometheus rule files of deploy/helm/fabriclab/rules and their unit tests
 * ({@code *-test.yaml}), and the expressions of the recording rules, read from the files as they
 * are written (one {@code - record:} or {@code - alert:} per rule, its {@code expr} on the same line
 * or folded below it); promtool checks the files themselves.
 */
final class Rules {
    static final Path DIR = Dashboards.CHART.resolve("rules");

    private static final Pattern RULE = Pattern.compile("\\s*- (record|alert): (\\S+)\\s*");
    private static final Pattern EXPR = Pattern.compile("(\\s*)expr: (.*)");
    /** The unit of a recorded series by the suffix its name ends in (Prometheus's naming: base units). */
    private static final Pattern UNIT_SUFFIX = Pattern.compile(".*_(ratio|seconds|bits_per_second|bytes_per_second)(:\\w*)?");

    private Rules() {
    }

    /** The rule files (not their tests). */
    static List<Path> ruleFiles() throws IOException {
        return yaml().stream().filter(p -> !p.getFileName().toString().endsWith("-test.yaml")).toList();
    }

    /** The rule files' unit tests. */
    static List<Path> testFiles() throws IOException {
        return yaml().stream().filter(p -> p.getFileName().toString().endsWith("-test.yaml")).toList();
    }

    private static List<Path> yaml() throws IOException {
        try (Stream<Path> s = Files.list(DIR)) {
            return s.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
    }

    /** Every rule's expression (alerts' too), its unit from the recorded name's suffix (alerts: none). */
    static List<Query> queries(boolean alerts) throws IOException {
        List<Query> queries = new ArrayList<>();
        for (Path file : ruleFiles()) {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                Matcher rule = RULE.matcher(lines.get(i));
                if (!rule.matches() || (rule.group(1).equals("alert") && !alerts)) {
                    continue;
                }
                int at = i + 1;
                Matcher expr = EXPR.matcher(lines.get(at));
                while (!expr.matches()) {
                    expr = EXPR.matcher(lines.get(++at));
                }
                StringBuilder text = new StringBuilder(expr.group(2).trim());
                if (text.toString().startsWith(">") || text.toString().startsWith("|")) {
                    text.setLength(0);
                    int indent = expr.group(1).length();
                    while (at + 1 < lines.size() && lines.get(at + 1).length() - lines.get(at + 1).stripLeading().length() > indent) {
                        text.append(text.isEmpty() ? "" : " ").append(lines.get(++at).trim());
                    }
                }
                String name = rule.group(2);
                Matcher unit = UNIT_SUFFIX.matcher(name);
                String grafanaUnit = !unit.matches() ? "none" : switch (unit.group(1)) {
                    case "ratio" -> "percentunit";
                    case "seconds" -> "s";
                    default -> "bps";
                };
                queries.add(new Query(file.getFileName().toString(), name, text.toString(), grafanaUnit,
                        Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY));
            }
        }
        return queries;
    }
}
