#!/usr/bin/env bash
# The /metrics budget of docs/benchmarks.md: the perf manager polls a big fabric (default the
# 18-ary 3-tree, 972 switches and 5,832 hosts) fed synthetic counters through the real code path,
# and /metrics is scraped over HTTP after each poll: poll time, size, lines, serving time.
# Usage (from any directory): bench/metrics-budget.sh [SPEC] [--polls N] [--flows-per-host F] [--top-flows K]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="$(sed -n 's:^  <version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | head -n 1)"
jar="$root/fabric-manager/target/fabric-manager-$version-all.jar"
if [ ! -f "$jar" ]; then
  (cd "$root" && ./mvnw -q -B -ntp -DskipTests -pl fabric-manager -am package >&2)
fi
exec java ${JAVA_OPTS:-} -cp "$jar" org.fabriclab.manager.MetricsBudget "$@"
