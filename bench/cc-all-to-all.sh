#!/usr/bin/env bash
# The RL-CC paper's all-to-all in the simulator: hosts 0..7 of one 100 Gb/s switch each send to the
# other seven (56 flows), each host offering the line rate (a seventh per flow), without congestion
# control, with DCQCN, Swift and RL-CC (the shipped policy); the many-to-one benchmark's buffers,
# 256-byte payloads, 2 ms, the last four fifths measured.
# Usage (from any directory): bench/cc-all-to-all.sh [DURATION]   (default 2ms)
# Writes docs/data/cc/all-to-all-8-CC.json and prints the Markdown table of docs/reproductions.md.
# TOPOLOGY (default fat-tree:k=32,levels=1) runs it on another fabric, PREFIX goes before the files' names
# (the 64-host tree's: TOPOLOGY=fat-tree:k=8,levels=2 PREFIX=fat-tree-64- bench/cc-all-to-all.sh).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
duration=${1:-2ms}
topology=${TOPOLOGY:-fat-tree:k=32,levels=1}
prefix=${PREFIX:-}
out=docs/data/cc
mkdir -p "$out"
for cc in none dcqcn swift rl-cc; do
  bin/emulator sim --topology "$topology" --engine minhop --all-to-all 8 --load 1 --duration "$duration" \
    --buffer 32 --output-buffer 1024 --cc "$cc" --json > "$out/${prefix}all-to-all-8-$cc.json"
done
python3 - "$out" "$prefix" <<'PY'
import json, sys
d, prefix = sys.argv[1], sys.argv[2]
print("| cc | goodput | unfairness (CoV) | in the network (us) | per flow (Gb/s, min..max) | flows below 1 Gb/s |")
print("|---|---:|---:|---:|---|---:|")
for cc in ("none", "dcqcn", "swift", "rl-cc"):
    r = json.load(open(f"{d}/{prefix}all-to-all-8-{cc}.json"))
    g = r["flowGbps"]
    print(f"| {cc} | {r['goodput']:.3f} | {r['flowCov']:.3f} | {r['networkLatencyMeanNs'] / 1000:.2f} | {min(g):.2f}..{max(g):.2f} | "
          f"{sum(1 for x in g if x < 1)} |")
PY
