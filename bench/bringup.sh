#!/usr/bin/env bash
# Bring-up of emulated fabrics in one JVM: time to build the fabric (agents, hosts, links) and the
# first heavy sweep's parts, from fabric-manager's log. Each run a fresh JVM; REPS runs per fabric.
# Usage (from any directory): bench/bringup.sh [REPS] > bringup.log
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
reps="${1:-3}"
state="$(mktemp -d)"
for topo in fat-tree:k=6,levels=3 torus:8x8x8,hosts=2 fat-tree:k=18,levels=3; do
  for r in $(seq "$reps"); do
    rm -f "$state/guid2lid"
    JAVA_OPTS="${JAVA_OPTS:--Xmx12g}" "$root/bin/fabric-manager" --emulate "$topo" --traffic none --exit-after 1s \
      --state-dir "$state" --admin-port 0 --metrics-port 0 --sweep-interval 0 --perf-interval 60s 2>&1 \
      | grep -E "emulated fabric up|heavy sweep done" | sed "s|^|$topo run $r: |"
  done
done
