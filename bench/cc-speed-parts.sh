#!/usr/bin/env bash
# What NIC congestion control costs the simulator, taken apart (issue 19's speed target; docs/benchmarks.md,
# "Taken apart with `--cc ack-only`"): on the 1,000-host 10-ary 3-tree for 100 us, same-run SimAb ratios of
# packet-hops per CPU-second for ack-only/none (the ACKs' own traffic), swift/ack-only and rl-cc/ack-only
# (the control's work on the same events: ack-only's run is Swift's event for event), swift/none and
# rl-cc/none (the whole). The two sides run from two copies of one jar, each in its own class loader, so that
# each variant keeps its own JIT profile. Prints each pair's rounds and the median of the per-round ratios
# without the first (JIT warm-up) round.
# Usage (from any directory): bench/cc-speed-parts.sh [LOAD [ROUNDS [PATTERN]]]   (default 0.3, 12, uniform)
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
load=${1:-0.3}
rounds=${2:-12}
pattern=${3:-uniform}
bin/emulator --version >/dev/null
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp emulator/target/emulator-*-all.jar "$dir/a.jar"
cp "$dir/a.jar" "$dir/b.jar"
opts=(--topology fat-tree:k=10,levels=3 --load "$load" --duration 100us --pattern "$pattern")
pair() {
  local name=$1
  shift
  echo "== $name, load $load, $pattern, $(date -u +%H:%M:%S) UTC, load average $(cut -d' ' -f1 /proc/loadavg)"
  java bench/src/main/java/org/fabriclab/bench/tools/SimAb.java "$dir/a.jar" "$dir/b.jar" "$rounds" "${opts[@]}" "$@" \
    | grep -E '^round|^median' | tee "$dir/pair.log" | sed 's#'"$dir"'/##g'
  python3 - "$dir/pair.log" <<'PY'
import re, statistics, sys
r = []
for line in open(sys.argv[1]):
    m = re.match(r'round (\d+): \S+ ([0-9.]+) M, \S+ ([0-9.]+) M', line)
    if m and int(m.group(1)) > 0:
        r.append(float(m.group(3)) / float(m.group(2)))
if r:
    print(f"   per-round ratios without round 0: median {statistics.median(r):.3f}, from {min(r):.3f} to {max(r):.3f} ({len(r)} rounds)")
PY
}
pair "ack-only / none" -- --cc ack-only
pair "swift / ack-only" -- --cc swift -- --cc ack-only
pair "rl-cc / ack-only" -- --cc rl-cc -- --cc ack-only
pair "swift / none" -- --cc swift
pair "rl-cc / none" -- --cc rl-cc
