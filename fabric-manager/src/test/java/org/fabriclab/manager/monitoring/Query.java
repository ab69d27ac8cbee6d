package org.fabriclab.manager.monitoring;

import java.util.Set;

/**
 * One PromQL expression something shows or records, with the unit it is shown in: a panel's
 * target (its template variables still in it) or a recording rule.
 *
 * @param where the file it comes from
 * @param title the panel's title, or the recorded series' name
 * @param expr the expression as written
 * @param unit a Grafana unit id, one of {@link Units#RANGES}
 * @param min the lowest value the panel declares (fieldConfig.defaults.min), else -infinity
 * @param max the highest value the panel declares, else +infinity
 */
record Query(String where, String title, String expr, String unit, double min, double max) {
    /** The expression with Grafana's template variables replaced as the live check runs it. */
    String runnable() {
        return Dashboards.substitute(expr);
    }

    /** The metric names the expression reads. */
    Set<String> metrics() {
        return PromQl.metricNames(expr);
    }

    @Override
    public String toString() {
        return where + " \"" + title + "\" [" + unit + "]: " + expr;
    }
}
