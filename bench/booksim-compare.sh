#!/usr/bin/env bash
# Side by side with BookSim2 on the Q-adaptive paper's 1,056-node Dragonfly (docs/benchmarks.md,
# "Dragonfly simulation against BookSim2"). BookSim is a peer, not part of this repository: its
# scripts (install.sh, run_booksim.sh) stay in the shared peers directory, BOOKSIM_PEER, by default
# shared/peers/booksim beside the repository (../shared/peers/booksim from its root).
#
#   bench/booksim-compare.sh saturation [booksim|ours|both]
#       MIN and UGAL under uniform and ADV+1 traffic at the loads below, one JSON object per line
#       on standard output: BookSim's run_booksim.sh report per point (run in its throughput mode,
#       so that an overloaded point reports what the network accepted instead of giving up), then
#       ours, {"router":"io"|"iq","sweep":REPORT} per router and pattern: `emulator sweep` of
#       df-min, df-ugalg and df-ugaln with the paper's parameters on the paper's input-output queued
#       router (io: 20-packet output buffers per VC) and on an input-queued one (iq: no output
#       buffers, closer to BookSim's router). A BookSim point takes 10 s to 20 minutes of one core
#       here (an overloaded one the longest): about 1.5 hours in all; ours about 30 minutes on two
#       cores.
#   bench/booksim-compare.sh summary < FILE.jsonl
#       the saturation run's lines side by side: per routing and traffic, the throughput at each load
#       (BookSim's; ours, io and iq: df-min beside MIN, df-ugalg and df-ugaln beside UGAL), then
#       each curve's saturation throughput (the most it carried) and the highest load it carried
#       within 5% (emulator sweep's rule for a point not saturated).
#   bench/booksim-compare.sh speed [ROUNDS]
#       packet-hops per second, BookSim's `run_booksim.sh -l 0.5` against `emulator sim` on the
#       same system (uniform, 0.5, q-adaptive), alternating in ROUNDS rounds (default 5): BookSim,
#       ours in a fresh JVM (cold) and ours in one long-lived JVM (warm); medians and ratios
#       (bench's SimVsPeer tool).
#
# Loads: BOOKSIM_GRID (BookSim's points: lines of routing, traffic, loads), OURS_UR / OURS_ADV (our
# sweeps' loads, space-separated); OURS_ROUTERS (io, iq or both, the default) our routers.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
peer="${BOOKSIM_PEER:-$root/../shared/peers/booksim}"
if [ ! -x "$peer/run_booksim.sh" ] || [ ! -x "$peer/install.sh" ]; then
  echo "booksim-compare.sh: BookSim's peer scripts (install.sh, run_booksim.sh) are not in $peer;" \
       "set BOOKSIM_PEER to the directory that holds them (shared/peers/booksim)" >&2
  exit 2
fi
mode="${1:-}"
# near the knees: a BookSim point costs minutes, an overloaded one the most
booksim_grid="${BOOKSIM_GRID:-min uniform 0.5 0.6 0.7 0.9
ugal uniform 0.5 0.6 0.7 0.9
min bad_dragon 0.02 0.03 0.05 0.2
ugal bad_dragon 0.1 0.15 0.2 0.3}"
ours_ur="${OURS_UR:-0.5 0.6 0.7 0.8 0.9 1.0}"
ours_routers="${OURS_ROUTERS:-io iq}"
ours_adv="${OURS_ADV:-0.02 0.03 0.05 0.1 0.15 0.2 0.3 0.4 0.5 0.6}"
# the Q-adaptive paper's 1,056-node setting (emulator/README.md): 4 GB/s links, 128-byte packets,
# 20-packet buffers per VC at the inputs and outputs (SST/Merlin's input-output queued router)
paper=(--topology paper:qadaptive-1056 --vls 5 --buffer 20 --link-gbps 32 --packet-bytes 128)

booksim_points() {
  local routing traffic loads load
  while read -r routing traffic loads; do
    for load in $loads; do
      echo "booksim-compare.sh: BookSim $routing $traffic $load" >&2
      "$peer/run_booksim.sh" -k 4 -r "$routing" -t "$traffic" -l "$load" -- sim_type=throughput
    done
  done <<<"$booksim_grid"
}

ours_points() {
  local router pattern loads
  for router in $ours_routers; do
    for pattern in uniform adv+1; do
      if [ "$pattern" = uniform ]; then loads="$ours_ur"; else loads="$ours_adv"; fi
      # io: the paper's input-output queued router; iq: input buffers only, as BookSim's router
      if [ "$router" = io ]; then out=20; else out=0; fi
      printf '{"router":"%s","sweep":' "$router"
      "$root/bin/emulator" sweep "${paper[@]}" --output-buffer "$out" --engines df-min,df-ugalg,df-ugaln --pattern "$pattern" \
        --loads "$(echo $loads | tr ' ' ',')" --duration 200us --json | tr -d '\n'
      echo '}'
    done
  done
}

case "$mode" in
  saturation)
    side="${2:-both}"
    case "$side" in booksim|ours|both) ;; *) echo "booksim-compare.sh: saturation takes booksim, ours or both, not '$side'" >&2; exit 2;; esac
    [ "$side" = ours ] || booksim_points
    [ "$side" = booksim ] || ours_points
    ;;
  summary)
    exec python3 -c '
import json, sys
booksim, ours = {}, {}
for line in sys.stdin:
    if not line.strip():
        continue
    r = json.loads(line)
    if "simulator" in r:
        pattern = "adv+1" if r["traffic"] == "bad_dragon" else r["traffic"]
        booksim.setdefault((r["routing"], pattern), {})[r["offeredLoad"]] = r["throughput"]
    else:
        sweep, suffix = r["sweep"], "" if r["router"] == "io" else " iq"
        pattern = "adv+1" if sweep["pattern"] == "group-shift" else sweep["pattern"]  # adv+1 reports itself as group-shift
        for e in sweep["engines"]:
            for p in e["points"]:
                ours.setdefault((e["engine"] + suffix, pattern), {})[p["load"]] = p["throughput"]
def knee(curve):
    carried = [l for l, t in curve.items() if t is not None and t >= 0.95 * l]
    return max(carried) if carried else None
def cell(x):
    return "-" if x is None else "%.3f" % x
for routing, engines in (("min", ["df-min", "df-min iq"]), ("ugal", ["df-ugalg", "df-ugaln", "df-ugalg iq", "df-ugaln iq"])):
    for pattern in ("uniform", "adv+1"):
        curves = [("booksim " + routing, booksim.get((routing, pattern), {}))] + [(e, ours.get((e, pattern), {})) for e in engines]
        loads = sorted(set(l for _, c in curves for l in c))
        print("%s, %s: load | %s" % (routing.upper(), pattern, " | ".join(n for n, _ in curves)))
        for l in loads:
            print("  %.2f | %s" % (l, " | ".join(cell(c.get(l)) for _, c in curves)))
        print("  saturation throughput | %s" % " | ".join(cell(max([t for t in c.values() if t is not None], default=None)) for _, c in curves))
        print("  carried up to | %s" % " | ".join(cell(knee(c)) for _, c in curves))
'
    ;;
  speed)
    rounds="${2:-5}"
    [[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "booksim-compare.sh: ROUNDS must be a positive number, not '$rounds'" >&2; exit 2; }
    version="$(sed -n 's:^  <version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | head -n 1)"
    "$root/bin/emulator" --version >/dev/null   # builds the emulator's jar if it is stale
    tools="$root/bench/target/benchmarks.jar"
    [ -f "$tools" ] || (cd "$root" && ./mvnw -q -B -ntp -DskipTests -pl bench -am package >&2)
    "$peer/install.sh" >/dev/null   # built once, before the rounds
    # the emulator launcher's JVM options (bin/launch.sh), for ours warm in this JVM and cold in a fresh one
    huge=""
    grep -qs '\[always\]\|\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled && huge="-XX:+UseTransparentHugePages"
    exec java $huge ${JAVA_OPTS:-} -cp "$tools" org.fabriclab.bench.tools.SimVsPeer \
      "$root/emulator/target/emulator-$version-all.jar" "$rounds" "$peer/run_booksim.sh" -l 0.5 -- \
      sim "${paper[@]}" --output-buffer 20 --engine q-adaptive --pattern uniform --load 0.5 --duration 200us
    ;;
  *)
    sed -n '/^#!/d; /^#/!q; s/^# \{0,1\}//p' "$0" >&2
    exit 2
    ;;
esac
