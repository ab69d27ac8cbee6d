/**
 * Tests of what watches the daemon from outside: the Grafana dashboards and the Prometheus rules
 * under {@code deploy/helm/fabriclab/}, read as files, checked by Debian's {@code promtool}, and
 * run against a real {@code prometheus} scraping a running daemon ({@link
 * org.fabriclab.manager.monitoring.DashboardsIT}). The names they read are docs/metrics.md's.
 */
package org.fabriclab.manager.monitoring;
