#!/usr/bin/env bash
# The RL-CC paper's long-short (recovery) benchmark in the simulator: on one 100 Gb/s switch, a long
# flow from host 1 to host 0 runs the whole time; at a quarter of the run N short flows of 64 KiB
# (hosts 2..N+1 to host 0) start together; N = 4, 16; without congestion control, with DCQCN, Swift
# and RL-CC (the shipped policy). The many-to-one benchmark's buffers (32-packet inputs, 1,024
# packets of output buffer per port and lane), 256-byte payloads, 2 ms, every flow offered at the
# line rate. Usage (from any directory): bench/cc-long-short.sh [DURATION]   (default 2ms)
# Writes docs/data/cc/long-short-N-CC.json and prints the Markdown table of docs/reproductions.md.
# TOPOLOGY (default fat-tree:k=32,levels=1) runs it on another fabric, PREFIX goes before the files' names
# (the 64-host tree's: TOPOLOGY=fat-tree:k=8,levels=2 PREFIX=fat-tree-64- bench/cc-long-short.sh).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
duration=${1:-2ms}
topology=${TOPOLOGY:-fat-tree:k=32,levels=1}
prefix=${PREFIX:-}
out=docs/data/cc
mkdir -p "$out"
for n in 4 16; do
  for cc in none dcqcn swift rl-cc; do
    bin/emulator sim --topology "$topology" --engine minhop --long-short "$n" --short-bytes 65536 --load 1 \
      --duration "$duration" --buffer 32 --output-buffer 1024 --cc "$cc" --json > "$out/${prefix}long-short-$n-$cc.json"
  done
done
python3 - "$out" "$prefix" <<'PY'
import json, sys
d, prefix = sys.argv[1], sys.argv[2]
print("| short flows | cc | long flow before (Gb/s) | during | recovery (us) | at the end | short FCT mean (us) | normalised FCT mean | p99 | in the network (us) |")
print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for n in (4, 16):
    for cc in ("none", "dcqcn", "swift", "rl-cc"):
        r = json.load(open(f"{d}/{prefix}long-short-{n}-{cc}.json"))
        rec = "not in the run" if r["longRecoveryNs"] is None else f"{r['longRecoveryNs'] / 1000:.0f}"
        s = r["longGbpsSeries"]
        end = sum(s[-len(s) // 4:]) / (len(s) // 4)  # the last quarter of the run
        fct = sum(r["shortCompletionNs"]) / len(r["shortCompletionNs"]) / 1000
        print(f"| {n} | {cc} | {r['longGbpsBefore']:.1f} | {r['longGbpsDuring']:.1f} | {rec} | {end:.1f} | {fct:.0f} | "
              f"{r['shortNormalizedMean']:.2f} | {r['shortNormalizedP99']:.2f} | {r['networkLatencyMeanNs'] / 1000:.2f} |")
PY
