package org.fabriclab.manager.monitoring;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Just enough of PromQL's lexis to list the metric names an expression reads (to hold them to
 * docs/metrics.md and to name the ones a branch does not export yet); promtool and Prometheus
 * parse the expressions for real.
 */
final class PromQl {
    /** Quoted strings, label matchers in braces, ranges and durations in brackets: no metric name in them. */
    private static final Pattern NOT_NAMES = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"|\\{[^}]*}|\\[[^]]*]");
    /** The label lists of by, without, on, ignoring, group_left and group_right. */
    private static final Pattern LABEL_LISTS = Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
            "group_left", "group_right", "inf", "nan");

    private PromQl() {
    }

    /** The metric names {@code expr} selects (not functions, keywords, labels or template variables). */
    static Set<String> metricNames(String expr) {
        String bare = LABEL_LISTS.matcher(NOT_NAMES.matcher(expr).replaceAll(" ")).replaceAll(" ")
                .replaceAll("\\$\\{[^}]*}|\\$\\w+", " ");
        Set<String> names = new TreeSet<>();
        Matcher m = IDENTIFIER.matcher(bare);
        while (m.find()) {
            String word = m.group();
            boolean call = bare.substring(m.end()).stripLeading().startsWith("(");
            boolean partOfNumber = m.start() > 0 && Character.isDigit(bare.charAt(m.start() - 1)); // the e of 1e9
            if (!call && !partOfNumber && !KEYWORDS.contains(word.toLowerCase())) {
                names.add(word);
            }
        }
        return names;
    }
}
