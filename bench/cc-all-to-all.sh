#!/usr/bin/env bash
# The RL-CC paper's all-to-all in the simulator: hosts 0..N-1 (N=8 by default) of one 100 Gb/s switch
# each send to the other N-1, each host offering the line rate (a seventh per flow at N=8), without
# congestion control, with DCQCN, Swift and RL-CC (the shipped policy); the many-to-one benchmark's
# buffers, 256-byte payloads, 2 ms, the last four fifths measured.
# Usage (from any directory): bench/cc-all-to-all.sh [DURATION]   (default 2ms)
# Writes docs/data/cc/all-to-all-N-CC.json and prints the Markdown table of docs/reproductions.md.
# TOPOLOGY (default fat-tree:k=32,levels=1) runs it on another fabric, PREFIX goes before the files' names
# (the 64-host tree's: TOPOLOGY=fat-tree:k=8,levels=2 PREFIX=fat-tree-64- bench/cc-all-to-all.sh).
# HOSTS=N sets N. MESSAGE=BYTES sends every flow in messages of BYTES (emulator sim --message):
# Poisson at LOAD (default 1) of each host's link, or with GAP=TIME one every TIME, all flows in step;
# each flow's source queue then holds SOURCE_QUEUE_PER_FLOW packets (default 1024). The files are
# then named all-to-all-N-mBYTES[-gGAP][-lLOAD]-CC.json and the table adds the messages' completion.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
duration=${1:-2ms}
topology=${TOPOLOGY:-fat-tree:k=32,levels=1}
prefix=${PREFIX:-}
hosts=${HOSTS:-8}
message=${MESSAGE:-}
gap=${GAP:-}
load=${LOAD:-1}
out=docs/data/cc
mkdir -p "$out"
name="all-to-all-$hosts"
extra=()
if [[ -n "$message" ]]; then
  name="$name-m$message"
  extra+=(--message "$message" --source-queue $(( (hosts - 1) * ${SOURCE_QUEUE_PER_FLOW:-1024} )))
  if [[ -n "$gap" ]]; then
    name="$name-g$gap"
    extra+=(--message-gap "$gap")
  fi
fi
if [[ -z "$gap" ]]; then
  [[ "$load" == 1 ]] || name="$name-l$load"
  extra+=(--load "$load")
fi
for cc in none dcqcn swift rl-cc; do
  bin/emulator sim --topology "$topology" --engine minhop --all-to-all "$hosts" --duration "$duration" \
    --buffer 32 --output-buffer 1024 --cc "$cc" "${extra[@]}" --json > "$out/${prefix}$name-$cc.json"
done
python3 - "$out" "$prefix$name" <<'PY'
import json, sys
d, name = sys.argv[1], sys.argv[2]
runs = {cc: json.load(open(f"{d}/{name}-{cc}.json")) for cc in ("none", "dcqcn", "swift", "rl-cc")}
messages = "messageBytes" in runs["none"]
head = "| cc | goodput | unfairness (CoV) | in the network (us) | per flow (Gb/s, min..max) | flows below 1 Gb/s |"
if messages:
    head += " packets refused | message mean (us) | p99 (us) | normalised mean | p99 | ECN marks | CNPs |"
print(head)
print("|---|" + "---:|" * (head.count("|") - 2))
for cc, r in runs.items():
    g = r["flowGbps"]
    row = (f"| {cc} | {r['goodput']:.3f} | {r['flowCov']:.3f} | {r['networkLatencyMeanNs'] / 1000:.2f} | {min(g):.2f}..{max(g):.2f} | "
           f"{sum(1 for x in g if x < 1)} |")
    if messages:
        row += (f" {r['packetsRefused']} | {r['messageMeanNs'] / 1000:.1f} | "
                f"{r['messageP99Ns'] / 1000:.1f} | {r['messageNormalizedMean']:.2f} | {r['messageNormalizedP99']:.2f} | "
                f"{r['ecnMarked']} | {r['cnpsReceived']} |")
    print(row)
PY
