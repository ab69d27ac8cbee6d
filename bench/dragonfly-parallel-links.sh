#!/usr/bin/env bash
# A Dragonfly whose routers have several links to one group (issue 16): dragonfly:p=4,a=4,h=8,trunk=8
# (5 groups of 4 routers, 4 hosts each; trunk=8 cables 8 global links between every pair of groups,
# two on each router, so every router has two links to each other group), on the Q-adaptive paper's
# settings (4 GB/s links, 128-byte packets, 30/300 ns local/global cables, 20-packet input and output
# buffers, 5 VCs). Every Dragonfly algorithm, uniform and ADV+1 traffic at 0.3 and 0.6, 100 us (the
# first fifth warm-up), with two builds' emulator jars: before (a router sent everything to a group
# over its first link) and after (spread over all: by address hash for MIN and Valiant, least
# congested for the adaptive algorithms). AFTER's runs add --link-loads: per router and other group,
# the lesser of its two links' loads over the greater (1: even), mean and least over the routers.
# Usage (from any directory): bench/dragonfly-parallel-links.sh BEFORE.jar [AFTER.jar]
#   (AFTER defaults to this tree's emulator/target jar; build it first). Prints the Markdown table of
#   routing-engines/README.md, "Parallel links"; the reports go to $OUT (default /tmp/dragonfly-parallel-links).
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
before=$(readlink -f "$1")
after=$(readlink -f "${2:-$(ls emulator/target/emulator-*-all.jar | head -1)}")
out=${OUT:-/tmp/dragonfly-parallel-links}
mkdir -p "$out"
topology="dragonfly:p=4,a=4,h=8,trunk=8,local-latency=30ns,global-latency=300ns,host-latency=10ns"
for e in df-min df-valg df-valn df-ugalg df-ugaln df-par q-adaptive; do
  for p in uniform adv+1; do
    for l in 0.3 0.6; do
      common=(sim --topology "$topology" --engine "$e" --vls 5 --buffer 20 --output-buffer 20 --link-gbps 32
        --packet-bytes 128 --pattern "$p" --load "$l" --duration 100us --json)
      java -jar "$before" "${common[@]}" > "$out/$e-$p-$l-before.json"
      java -jar "$after" "${common[@]}" --link-loads > "$out/$e-$p-$l-after.json"
    done
  done
done
python3 - "$out" <<'PY'
import json, sys
d = sys.argv[1]
print("| engine | pattern | load | throughput before | after | latency (us) before | after | hops before | after | parallel links' balance after (mean, least) |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
for e in ("df-min", "df-valg", "df-valn", "df-ugalg", "df-ugaln", "df-par", "q-adaptive"):
    for p in ("uniform", "adv+1"):
        for l in ("0.3", "0.6"):
            b = json.load(open(f"{d}/{e}-{p}-{l}-before.json"))
            a = json.load(open(f"{d}/{e}-{p}-{l}-after.json"))
            ways = {}
            for x in a["linkLoads"]:
                group = x["to"].split("_")[0]
                if not x["from"].startswith(group + "_"):
                    ways.setdefault((x["from"], group), []).append(x["load"])
            ratios = [min(v) / max(v) for v in ways.values() if max(v) > 0.01]
            balance = f"{sum(ratios) / len(ratios):.2f}, {min(ratios):.2f}" if ratios else "-"
            lat = lambda r: "-" if r["latencyMeanNs"] is None else f"{r['latencyMeanNs'] / 1000:.2f}"
            hops = lambda r: "-" if r["meanHops"] is None else f"{r['meanHops']:.2f}"
            print(f"| {e} | {p} | {l} | {b['throughput']:.3f} | {a['throughput']:.3f} | {lat(b)} | {lat(a)} | "
                  f"{hops(b)} | {hops(a)} | {balance} |")
PY
