#!/usr/bin/env bash
# The RL-CC paper's many-to-one in the simulator (Fuhrer et al., "Implementing Reinforcement Learning
# Datacenter Congestion Control in NVIDIA NICs"): N hosts of one 100 Gb/s switch send to one host at
# the line rate, N = 2, 4, 16, without congestion control, with DCQCN, with Swift and with RL-CC (the shipped policy). The switch has
# 1,024 packets of output buffer per port and lane (a shared-buffer switch's room for a queue; the
# input-queued default holds 8 packets a port and would hide the queue in the senders' NICs) and
# 32-packet input buffers. 256-byte payloads (293-byte frames), 10 ms, the last four fifths measured.
# Usage (from any directory): bench/cc-many-to-one.sh [DURATION]   (default 10ms)
# Writes docs/data/cc/many-to-one-N-CC.json and prints the Markdown table of docs/reproductions.md.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
duration=${1:-10ms}
out=docs/data/cc
mkdir -p "$out"
for n in 2 4 16; do
  for cc in none dcqcn swift rl-cc; do
    bin/emulator sim --topology fat-tree:k=32,levels=1 --engine minhop --many-to-one "$n" --load 1 --duration "$duration" \
      --buffer 32 --output-buffer 1024 --cc "$cc" --json > "$out/many-to-one-$n-$cc.json"
  done
done
python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
print("| flows | cc | goodput | unfairness (CoV) | mean packet latency in the network (us) | from creation (us) | per flow (Gb/s, min..max) |")
print("|---:|---|---:|---:|---:|---:|---|")
for n in (2, 4, 16):
    for cc in ("none", "dcqcn", "swift", "rl-cc"):
        r = json.load(open(f"{d}/many-to-one-{n}-{cc}.json"))
        g = r["flowGbps"]
        print(f"| {n} | {cc} | {r['goodput']:.3f} | {r['flowCov']:.3f} | {r['networkLatencyMeanNs'] / 1000:.2f} | "
              f"{r['latencyMeanNs'] / 1000:.0f} | {min(g):.2f}..{max(g):.2f} |")
PY
