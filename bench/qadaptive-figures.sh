#!/usr/bin/env bash
# Reproduces the Q-adaptive paper's evaluation (Kang et al., HPDC '21) in the simulator:
#   fig5  Figure 5: latency, throughput and hops against offered load, six algorithms, UR, ADV+1, ADV+4
#         (Figure 6's tail latencies are the same runs' p95/p99 at 0.8 UR and 0.45 ADV)
#   fig5-steady (not in all) fig5 with steady-state detection (--until-steady): each point's warm-up
#         ends when its last ten 10 us windows' mean latency and throughput lie within 5% of their
#         mean and, over the run's last half, their least-squares drift within 2% (--steady-drift),
#         the fixed warm-up being the cap, and the same 100 us are measured after it; writes
#         fig5-steady-*.json and their plots beside fig5's (docs/benchmarks.md, "The Figure 5 sweep").
#         The documented fig5-*.json were run with the band alone, before the drift test:
#         QADAPTIVE_SIM_ARGS="--steady-drift 0" reproduces them
#   fig5-fast (not in all) issue 16's whole Figure 5 sweep on 2 cores, its target 20 minutes (on the quiet
#         machine 22 min 27 s by the global loop, 20 min 28 s and 22 min 41 s by the windowed one, the
#         machine's speed drifting: docs/benchmarks.md, "On the windowed loop"; at ten loads, 17.5): fifteen loads a pattern (the documented ten and five more about saturation), every
#         point from an empty network and the seed as the paper's, --until-steady in 2 us windows for the
#         engines that learn nothing (Q-adaptive's 10 us, as fig5-steady's), the JVM on transparent huge
#         pages as bin/emulator runs it; writes fig5-fast-*.json and their plots. Not the documented
#         figures: a knee point whose transient outlasts 20 us can move by a few per cent.
#         bench/fig5-fast-compare.py compares them with the from-empty fig5-*.json and replays their
#         cost (docs/benchmarks.md, "The Figure 5 sweep"). Its run of 2026-11-27 16:29, before the drift test
#         (the band alone: QADAPTIVE_SIM_ARGS="--steady-drift 0"), is fast-sample/fig5-fast-band-*.json.
#         Each point's measured window ends once its estimates are precise (--until-precise, default 0.01:
#         95% intervals by batch means; docs/benchmarks.md, "A measurement that ends when precise"), and the
#         files are then fig5-precise-*.json; QADAPTIVE_PRECISE=REL another precision, QADAPTIVE_PRECISE=off
#         the whole window as before (fig5-fast-*.json, the documented run of 2026-11-27 17:53).
#         Its sweeps run by the windowed event loop (--scheduler windowed; emulator/README.md, "Experimental:
#         the windowed scheduler"), whose reports are another seed's of the same points (docs/benchmarks.md,
#         "Q-adaptive's ADV+4 knees by seed"), and the files are fig5-precise-windowed-*.json
#         (fig5-fast-windowed-*.json with QADAPTIVE_PRECISE=off); QADAPTIVE_SCHEDULER=global runs them by the
#         global loop, every documented run's, into fig5-precise-*.json (fig5-fast-*.json)
#   fig5-qfixed (not in all) Q-adaptive's points of fig5 with the paper's fixed warm-up (900 us from an empty
#         network, then 1 ms's last 100 us measured; no --until-steady); writes fig5-qfixed-*.json and their plots,
#         which docs/reproductions.md's Figure 5 tables compare with the paper and fig5-fast-compare.py uses as
#         Q-adaptive's reference
#   fig7  Figure 7: Q-adaptive's latency over time from an empty network (table: fig7-rr-*.json, the
#         same with round-robin arbitration, apart)
#   2550  Section 6: the 2,550-node system, UR and ADV+1 (q_thld1 0.05, q_thld2 0.4 as the paper)
#   seeds issue 17's experiment: Q-adaptive's latency over time from an empty network under ADV+1
#         at 0.45 and UR at 0.8 from each seed (minimal, hops, zero, and a snapshot the minimal run
#         saved at its end under the same pattern), then each pattern from the other's snapshot (a
#         pattern change met with the tables learnt for the old one); with round-robin arbitration,
#         as its documented runs (2026-11-26), unless QADAPTIVE_SIM_ARGS names one
#   table the runs' JSON as the Markdown tables of docs/reproductions.md (runs nothing)
#   adv4links (not in all) where ADV+4 at 0.4 loads the links, Q-adaptive against VALn and PAR: each
#         run twice, to the end and to 100 us before it (the same seed: the same run up to there),
#         so the difference of the two --link-loads is the last 100 us alone; prints the mean load
#         and the links at 0.95 or more of global links, of local links to the next router of the
#         group (router x to x+1: where ADV+4's traffic through an intermediate group goes minimally)
#         and of the other local links (docs/reproductions.md, "ADV+4: where the load goes")
#   adv4remainder (not in all) ADV+4's gap to VALn at 0.45 and 0.5: the seeds' spread (seeds 1 to 3) and the
#         learning time (Q-adaptive for 2 ms; its whole curve with the fixed warm-up against --until-steady);
#         docs/data/qadaptive/adv4-remainder/, which table prints too (docs/reproductions.md, "Figure 5, ADV+4")
# Usage (from any directory): bench/qadaptive-figures.sh [fig5|fig5-steady|fig5-fast|fig5-qfixed|fig7|2550|seeds|all|table|adv4links|adv4remainder] [THREADS]
# QADAPTIVE_NAME names one figure's files instead, so that a variant does not overwrite the documented
# runs: fig5's, fig5-steady's and fig5-fast's docs/data/qadaptive/NAME-{adv1,ur,adv4}.json, fig7's NAME-*.json and
# docs/img/qadaptive-NAME.svg, 2550's NAME-{ur,adv1}.json (refused with all).
# QADAPTIVE_SIM_ARGS adds emulator sim options to every run; unset, the runs are the documented ones.
# Its --arbitration replaces the paper's lru (the CLI refuses an option given twice), e.g. the
# round-robin comparison: QADAPTIVE_NAME=fig5-rr QADAPTIVE_SIM_ARGS="--arbitration round-robin" ... fig5 2
# Writes docs/data/qadaptive/*.json and docs/img/qadaptive-*.svg (fig7: one plot of the six runs);
# docs/reproductions.md reads them.
# The paper's setting: 4 GB/s links (32 Gbps), 128-byte packets, 20-packet buffers per VC, 30 ns
# local and 300 ns global cables (paper:qadaptive-* carry them), 5 VCs, input-output queued routers
# (SST/Merlin's: --output-buffer 20) whose crossbar serves the least recently served input buffer first
# (--arbitration lru: SST/Merlin's merlin.xbar_arb_lru, which the paper's configuration names; the
# simulator's default is round-robin), hosts held back by their NIC (--source-queue 20). Q-adaptive
# learns from an empty network for 900 us before the 100 us measured; the others settle in tens of
# microseconds and are measured over 100 us after 200 us.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
what="${1:-all}"
threads="${2:-$(nproc)}"
data="$root/docs/data/qadaptive"
img="$root/docs/img"
remainder_table() { # adv4remainder's tables from docs/data/qadaptive/adv4-remainder/ (nothing if it is not there)
  [[ -d $data/adv4-remainder ]] || return 0
  python3 - "$data" <<'PY'
import json, os, sys
data = sys.argv[1]
rem = os.path.join(data, "adv4-remainder")
load = lambda name: json.load(open(os.path.join(rem, name)))
def points(d):
    return {(e["engine"], p["load"]): p for e in d["engines"] for p in e["points"]}
def window(series, a_us):  # throughput and mean latency (us) of the packets delivered in [a, a + 100 us)
    w = [b for b in series if a_us * 1000 <= b["startNs"] < (a_us + 100) * 1000]
    n = sum(b["packetsDelivered"] for b in w)
    return sum(b["throughput"] for b in w) / len(w), sum(b["latencyMeanNs"] * b["packetsDelivered"] for b in w) / n / 1000
engines = ("df-valn", "df-par", "q-adaptive")
steady = {1: points(json.load(open(os.path.join(data, "fig5-adv4.json"))))}
fixed = {}
for seed in (1, 2, 3):
    if seed > 1:
        steady[seed] = points(load("steady-seed%d.json" % seed))
    fixed[seed] = points(load("fixed-seed%d.json" % seed))
print("#### adv4-remainder: ADV+4 at 0.45 and 0.5 from three seeds (throughput / mean latency us; Q-adaptive's warm-up end)\n")
print("| seed | load | df-valn, steady / fixed | df-par, steady / fixed | q-adaptive, steady (ended at) |")
print("|---|---|---|---|---|")
for seed in (1, 2, 3):
    for l in (0.45, 0.5):
        cells = ["%.3f / %.3f" % (steady[seed][(e, l)]["throughput"], fixed[seed][(e, l)]["throughput"]) for e in engines[:2]]
        q = steady[seed][("q-adaptive", l)]
        cells.append("%.3f / %.2f (%d us)" % (q["throughput"], q["latencyMeanNs"] / 1000, q["warmupNs"] // 1000))
        print("| %d | %.2f | %s |" % (seed, l, " | ".join(cells)))
print("\nQ-adaptive from an empty network for 2 ms (series of 10 us): throughput / mean latency (us, by delivery) per 100 us\n")
marks = (500, 600, 700, 800, 900, 1400, 1900)
print("| run | " + " | ".join("%d us" % m for m in marks) + " |")
print("|---|" + "---|" * len(marks))
for name, label in (("q-2ms-seed1-0.5", "ADV+4 0.5, seed 1"), ("q-2ms-seed2-0.5", "ADV+4 0.5, seed 2"), ("q-2ms-seed3-0.5", "ADV+4 0.5, seed 3"),
                    ("q-2ms-seed1-0.45", "ADV+4 0.45, seed 1"), ("q-2ms-adv1-0.5", "ADV+1 0.5, seed 1"),
                    ("valn-2ms-0.5", "VALn, ADV+4 0.5, seed 1"), ("par-2ms-0.5", "PAR, ADV+4 0.5, seed 1")):
    s = load(name + ".json")["series"]
    print("| %s | %s |" % (label, " | ".join("%.3f / %.2f" % window(s, m) for m in marks)))
print("\nSteady: the documented Figure 5's options (--until-steady; seed 1 is fig5-adv4.json); fixed: the fixed warm-ups.\n")
for pattern in ("adv4", "adv1"):
    d = load("q-fixed-%s.json" % pattern)
    doc = points(json.load(open(os.path.join(data, "fig5-%s.json" % pattern))))
    print("#### q-fixed-%s: Q-adaptive with the fixed 900 us warm-up against the documented --until-steady\n" % pattern)
    print("| load | fixed: throughput / mean / p95 / p99 (us) / hops | steady (ended at) |")
    print("|---|---|---|")
    for p in d["engines"][0]["points"]:
        s = doc[("q-adaptive", p["load"])]
        print("| %.2f | %.3f / %.2f / %.2f / %.2f / %.2f%s | %.3f / %.2f / %.2f / %.2f / %.2f (%d us) |" % (
            p["load"], p["throughput"], p["latencyMeanNs"] / 1000, p["latencyP95Ns"] / 1000, p["latencyP99Ns"] / 1000, p["meanHops"],
            " (sat)" if p["saturated"] else "", s["throughput"], s["latencyMeanNs"] / 1000, s["latencyP95Ns"] / 1000,
            s["latencyP99Ns"] / 1000, s["meanHops"], s["warmupNs"] // 1000))
    print()
PY
}
if [[ $what == table ]]; then
  # per sweep: each engine's throughput (of the hosts' rate), mean latency (us) and mean hops at
  # every load, its saturation throughput (the most it carried), and the tail (mean, p95, p99, us)
  # at the paper's Figure 6 load (0.8 UR, 0.45 ADV); per series (fig7): latency per 10 us window
  python3 - "$data" <<'PY'
import glob, json, os, sys
data = sys.argv[1]
for path in sorted(glob.glob(os.path.join(data, "*.json"))):
    name = os.path.basename(path)[:-5]
    d = json.load(open(path))
    if "engines" not in d:
        continue
    engines = d["engines"]
    print("#### %s (%s, %s hosts)\n" % (name, d["topology"], d["hosts"]))
    print("| load | " + " | ".join(e["engine"] for e in engines) + " |")
    print("|---|" + "---|" * len(engines))
    for i, load in enumerate(d["loads"]):
        cells = []
        for e in engines:
            p = e["points"][i]
            cells.append("%.3f / %.2f / %.2f%s" % (p["throughput"], p["latencyMeanNs"] / 1000, p["meanHops"],
                                                   " (sat)" if p["saturated"] else ""))
        print("| %.2f | %s |" % (load, " | ".join(cells)))
    print("| **most carried** | " + " | ".join("**%.3f**" % max(p["throughput"] for p in e["points"]) for e in engines) + " |")
    tail = 0.8 if d["pattern"] == "uniform" else 0.45
    if tail in d["loads"]:
        i = d["loads"].index(tail)
        print("| tail at %.2f: mean / p95 / p99 us | " % tail + " | ".join(
            "%.2f / %.2f / %.2f" % (e["points"][i]["latencyMeanNs"] / 1000, e["points"][i]["latencyP95Ns"] / 1000,
                                    e["points"][i]["latencyP99Ns"] / 1000) for e in engines) + " |")
    drops = sum(p["packetsDropped"] for e in engines for p in e["points"])
    print("\nCells: throughput / mean latency (us) / mean hops; (sat): saturated. Packets dropped in all: %d.\n" % drops)
for prefix, title in (("fig7", "Q-adaptive's mean latency (us) over time from an empty network"),
                      ("fig7-rr", "the same with round-robin arbitration"),
                      ("seeds", "Q-adaptive's mean latency (us) over time from each seed (round-robin arbitration)")):
  runs = [p for p in sorted(glob.glob(os.path.join(data, prefix + "-*.json")))
          if not os.path.basename(p)[len(prefix) + 1:].startswith("rr-")]  # fig7's, not fig7-rr's
  if runs:
    print("#### %s: %s\n" % (prefix, title))
    marks = [0, 50000, 100000, 200000, 500000, 900000]
    print("| run | " + " | ".join("%d us" % (m // 1000) for m in marks) + " | last 100 us | settled by |")
    print("|---|" + "---|" * (len(marks) + 2))
    for path in runs:
        d = json.load(open(path))
        if prefix == "seeds":
            d["pattern"] = os.path.basename(path)[len("seeds-"):-len(".json")] + ":"
        s = [b for b in d["series"] if b["packetsDelivered"] > 0]
        final = sum(b["latencyMeanNs"] * b["packetsDelivered"] for b in s[-10:]) / sum(b["packetsDelivered"] for b in s[-10:])
        at = {b["startNs"]: b["latencyMeanNs"] for b in s}
        settled = next(b["startNs"] for i, b in enumerate(s) if all(abs(c["latencyMeanNs"] - final) <= 0.1 * final for c in s[i:]))
        print("| %s %.2f | %s | %.2f | %d us |" % (d["pattern"].replace("group-shift", "adv+1"), d["offeredLoad"], " | ".join(
            "%.2f" % (at[m] / 1000) if m in at else "-" for m in marks), final / 1000, settled // 1000))
    print("\nSettled by: the start of the first 10 us window after which every window's mean latency stays within 10% of the last 100 us's.\n")
PY
  remainder_table
  exit 0
fi
if [[ $what == all && -n ${QADAPTIVE_NAME:-} ]]; then
  echo "qadaptive-figures.sh: QADAPTIVE_NAME names one figure's files; give fig5, fig5-steady, fig7 or 2550, not all" >&2
  exit 2
fi
mkdir -p "$data" "$img"
# one copy of the emulator for the whole run: a build meanwhile must not change it under a running sweep
"$root/bin/emulator" --version >/dev/null
jar="$(mktemp -d)/emulator.jar"
cp "$root"/emulator/target/emulator-*-all.jar "$jar"
emulator() { java -jar "$jar" "$@"; }
read -r -a extra <<< "${QADAPTIVE_SIM_ARGS:-}"
with_arbitration() { # NAME: the paper's options with that crossbar arbitration, unless QADAPTIVE_SIM_ARGS names one
  opts=(--vls 5 --buffer 20 --output-buffer 20 --link-gbps 32 --packet-bytes 128 --source-queue 20)
  [[ " ${extra[*]} " == *" --arbitration"[=\ ]* ]] || opts+=(--arbitration "$1")
  opts+=("${extra[@]}")
}
with_arbitration lru; paper=("${opts[@]}")
with_arbitration round-robin; paper_rr=("${opts[@]}")
engines=df-min,df-valn,df-ugalg,df-ugaln,df-par,q-adaptive
long=(--duration 300us --warmup 200us --engine-duration q-adaptive=1ms --engine-warmup q-adaptive=900us)

plot_series() { # PREFIX OUT.svg: each docs/data/qadaptive/PREFIX-*.json's latency over time, one line each
  python3 - "$data" "$1" "$2" <<'PY'
import glob, json, os, sys
paths = [p for p in sorted(glob.glob(os.path.join(sys.argv[1], sys.argv[2] + "-*.json")))
         if not os.path.basename(p)[len(sys.argv[2]) + 1:].startswith("rr-")]  # fig7's, not fig7-rr's
runs = [json.load(open(p)) for p in paths]
for p, r in zip(paths, runs):
    r["label"] = os.path.basename(p)[len(sys.argv[2]) + 1:-5] if not sys.argv[2].startswith("fig7") else "%s %.2f" % (r["pattern"].replace("group-shift", "adv+1"), r["offeredLoad"])
w, h, left, bottom = 640, 360, 60, 40
tmax = max(b["startNs"] for r in runs for b in r["series"]) or 1
lmax = max(b["latencyMeanNs"] for r in runs for b in r["series"] if b["packetsDelivered"]) or 1
colours = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
x = lambda t: left + (w - left - 10) * t / tmax
y = lambda l: h - bottom - (h - bottom - 10) * l / lmax
out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">' % (w, h),
       '<rect width="100%" height="100%" fill="white"/>',
       '<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (left, h - bottom, w - 10, h - bottom),
       '<line x1="%d" y1="10" x2="%d" y2="%d" stroke="black"/>' % (left, left, h - bottom),
       '<text x="%d" y="%d" text-anchor="middle">time from an empty network (us)</text>' % ((w + left) // 2, h - 5),
       '<text x="12" y="%d" transform="rotate(-90 12 %d)" text-anchor="middle">mean latency (us)</text>' % (h // 2, h // 2)]
for i in range(6):
    t = tmax * i / 5
    out.append('<text x="%.1f" y="%d" text-anchor="middle">%d</text>' % (x(t), h - bottom + 14, t / 1000))
    l = lmax * i / 5
    out.append('<text x="%d" y="%.1f" text-anchor="end">%.1f</text>' % (left - 4, y(l) + 4, l / 1000))
for k, r in enumerate(runs):
    pts = " ".join("%.1f,%.1f" % (x(b["startNs"]), y(b["latencyMeanNs"])) for b in r["series"] if b["packetsDelivered"])
    c = colours[k % len(colours)]
    out.append('<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>' % (c, pts))
    out.append('<text x="%d" y="%d" fill="%s">%s</text>' % (w - 150, 24 + 14 * k, c, r["label"]))
out.append("</svg>")
open(sys.argv[3], "w").write("\n".join(out) + "\n")
PY
}

sweep() { # NAME TOPOLOGY PATTERN LOADS [extra...]
  local name=$1 topo=$2 pattern=$3 loads=$4; shift 4
  emulator sweep --topology "$topo" --engines "$engines" --pattern "$pattern" --loads "$loads" \
    "${paper[@]}" "${long[@]}" --threads "$threads" --out "$data/$name.json" --svg "$img/qadaptive-$name.svg" "$@" >/dev/null
}

if [[ $what == fig5 || $what == all || $what == fig5-steady ]]; then
  name=fig5 steady=()
  if [[ $what == fig5-steady ]]; then
    name=fig5-steady steady=(--until-steady)
  fi
  name="${QADAPTIVE_NAME:-$name}"
  sweep $name-adv1 paper:qadaptive-1056 adv+1 0.05:0.5:0.05 "${steady[@]}"
  sweep $name-ur paper:qadaptive-1056 uniform 0.1:1.0:0.1 "${steady[@]}"
  sweep $name-adv4 paper:qadaptive-1056 adv+4 0.05:0.5:0.05 "${steady[@]}"
fi
if [[ $what == fig5-qfixed ]]; then
  # Q-adaptive's Figure 5 points as the paper measures them: each from an empty network, 900 us of learning, then
  # the 100 us measured (no --until-steady: issue 16 found it ends the learning early at saturated ADV+4 points)
  name="${QADAPTIVE_NAME:-fig5-qfixed}"
  engines=q-adaptive
  sweep $name-adv1 paper:qadaptive-1056 adv+1 0.05:0.5:0.05
  sweep $name-ur paper:qadaptive-1056 uniform 0.1:1.0:0.1
  sweep $name-adv4 paper:qadaptive-1056 adv+4 0.05:0.5:0.05
fi
if [[ $what == fig5-fast ]]; then
  precise="${QADAPTIVE_PRECISE:-0.01}"
  case "${QADAPTIVE_SCHEDULER:-windowed}" in
    global) scheduler=() windowed="" ;;
    windowed) scheduler=(--scheduler windowed) windowed=-windowed ;;
    *) echo "qadaptive-figures.sh: QADAPTIVE_SCHEDULER=$QADAPTIVE_SCHEDULER is not a scheduler: windowed (the default) or global" >&2
       exit 2 ;;
  esac
  if [[ $precise == off ]]; then
    name="${QADAPTIVE_NAME:-fig5-fast$windowed}" precise=()
  else
    name="${QADAPTIVE_NAME:-fig5-precise$windowed}" precise=(--until-precise "$precise")
  fi
  if grep -qs '\[always\]\|\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled; then
    emulator() { java -XX:+UseTransparentHugePages -jar "$jar" "$@"; }
  fi
  fast=(--until-steady --steady-window 2us --engine-steady-window q-adaptive=10us "${precise[@]}" "${scheduler[@]}")
  adv=0.05,0.1,0.15,0.2,0.25,0.275,0.3,0.325,0.35,0.375,0.4,0.425,0.45,0.475,0.5
  sweep $name-adv1 paper:qadaptive-1056 adv+1 $adv "${fast[@]}"
  sweep $name-ur paper:qadaptive-1056 uniform 0.1,0.2,0.3,0.4,0.45,0.5,0.55,0.6,0.7,0.75,0.8,0.85,0.9,0.95,1.0 "${fast[@]}"
  sweep $name-adv4 paper:qadaptive-1056 adv+4 $adv "${fast[@]}"
fi
if [[ $what == fig7 || $what == all ]]; then
  for run in "uniform 0.4" "uniform 0.8" "adv+1 0.2" "adv+1 0.4" "adv+4 0.2" "adv+4 0.4"; do
    set -- $run
    emulator sim --topology paper:qadaptive-1056 --engine q-adaptive --pattern "$1" --load "$2" "${paper[@]}" \
      --duration 1ms --warmup 900us --series 10us --json > "$data/${QADAPTIVE_NAME:-fig7}-${1/+/}-$2.json"
  done
  plot_series "${QADAPTIVE_NAME:-fig7}" "$img/qadaptive-${QADAPTIVE_NAME:-fig7}.svg"
fi
if [[ $what == seeds || $what == all ]]; then
  series=(--engine q-adaptive --duration 1ms --warmup 900us --series 10us --json)
  qts="$(mktemp -d)"   # the learnt tables, 1.5 MB each, kept only for this run
  for run in "adv1 adv+1 0.45" "ur uniform 0.8"; do
    set -- $run
    emulator sim --topology paper:qadaptive-1056 --pattern "$2" --load "$3" "${paper_rr[@]}" "${series[@]}" \
      --qtable-seed minimal --save-qtables "$qts/$1-learnt.qts" > "$data/seeds-$1-minimal.json"
    for seed in hops zero; do
      emulator sim --topology paper:qadaptive-1056 --pattern "$2" --load "$3" "${paper_rr[@]}" "${series[@]}" \
        --qtable-seed "$seed" > "$data/seeds-$1-$seed.json"
    done
    emulator sim --topology paper:qadaptive-1056 --pattern "$2" --load "$3" "${paper_rr[@]}" "${series[@]}" \
      --qtable-seed "snapshot:$qts/$1-learnt.qts" > "$data/seeds-$1-snapshot.json"
  done
  # a pattern change: each pattern met with the tables learnt under the other
  emulator sim --topology paper:qadaptive-1056 --pattern adv+1 --load 0.45 "${paper_rr[@]}" "${series[@]}" \
    --qtable-seed "snapshot:$qts/ur-learnt.qts" > "$data/seeds-adv1-from-ur.json"
  emulator sim --topology paper:qadaptive-1056 --pattern uniform --load 0.8 "${paper_rr[@]}" "${series[@]}" \
    --qtable-seed "snapshot:$qts/adv1-learnt.qts" > "$data/seeds-ur-from-adv1.json"
  rm -r "$qts"
  plot_series seeds-adv1 "$img/qadaptive-seeds-adv1.svg"
  plot_series seeds-ur "$img/qadaptive-seeds-ur.svg"
fi
if [[ $what == 2550 || $what == all ]]; then
  engines2550=(--engine-param q_thld1=0.05 --engine-param q_thld2=0.4)
  sweep "${QADAPTIVE_NAME:-2550}-ur" paper:qadaptive-2550 uniform 0.8 "${engines2550[@]}"
  sweep "${QADAPTIVE_NAME:-2550}-adv1" paper:qadaptive-2550 adv+1 0.45 "${engines2550[@]}"
fi
if [[ $what == adv4remainder ]]; then
  # ADV+4's remainder against VALn, the seeds' spread and the learning time: Figure 5's options (--until-steady)
  # from seeds 2 and 3 (seed 1 is fig5-adv4.json), VALn and PAR with the fixed warm-ups, Q-adaptive from an empty
  # network for 2 ms with a series (the same seed's first 1 ms is a 1 ms run's, so its windows give both), and
  # Q-adaptive's whole ADV+4 and ADV+1 curves with the fixed 900 us warm-up; into docs/data/qadaptive/adv4-remainder/
  rem="$data/adv4-remainder"
  mkdir -p "$rem"
  trio=(--topology paper:qadaptive-1056 --pattern adv+4 --loads 0.45,0.5 "${paper[@]}" --threads "$threads")
  for seed in 2 3; do
    emulator sweep --engines df-valn,df-par,q-adaptive "${trio[@]}" "${long[@]}" --until-steady --seed $seed \
      --out "$rem/steady-seed$seed.json" >/dev/null
  done
  for seed in 1 2 3; do
    emulator sweep --engines df-valn,df-par "${trio[@]}" --duration 300us --warmup 200us --seed $seed \
      --out "$rem/fixed-seed$seed.json" >/dev/null
  done
  for run in "q-adaptive adv+4 0.5 1 q-2ms-seed1-0.5" "q-adaptive adv+4 0.5 2 q-2ms-seed2-0.5" \
             "q-adaptive adv+4 0.5 3 q-2ms-seed3-0.5" "q-adaptive adv+4 0.45 1 q-2ms-seed1-0.45" \
             "q-adaptive adv+1 0.5 1 q-2ms-adv1-0.5" "df-valn adv+4 0.5 1 valn-2ms-0.5" "df-par adv+4 0.5 1 par-2ms-0.5"; do
    set -- $run
    emulator sim --topology paper:qadaptive-1056 --engine $1 --pattern $2 --load $3 "${paper[@]}" --duration 2ms \
      --warmup 1900us --series 10us --seed $4 --json > "$rem/$5.json"
  done
  for run in "adv4 adv+4" "adv1 adv+1"; do
    set -- $run
    emulator sweep --topology paper:qadaptive-1056 --engines q-adaptive --pattern $2 --loads 0.05:0.5:0.05 "${paper[@]}" \
      "${long[@]}" --threads "$threads" --out "$rem/q-fixed-$1.json" >/dev/null
  done
  remainder_table
fi
if [[ $what == adv4links ]]; then
  links="$(mktemp -d)"
  for run in "q-adaptive 1ms 900us 900us 800us" "df-valn 300us 200us 200us 100us" "df-par 300us 200us 200us 100us"; do
    set -- $run
    for end in "$2 $3 full" "$4 $5 cut"; do
      set -- $1 $end
      emulator sim --topology paper:qadaptive-1056 --engine "$1" --pattern adv+4 --load 0.4 "${paper[@]}" \
        --duration "$2" --warmup "$3" --link-loads --json > "$links/$1-$4.json"
    done
  done
  python3 - "$links" <<'PY'
import json, os, re, sys
def router(name):
    g, s = re.match(r"G(\d+)_S(\d+)", name).groups()
    return int(g), int(s)
for engine in ("q-adaptive", "df-valn", "df-par"):
    full, cut = (json.load(open(os.path.join(sys.argv[1], "%s-%s.json" % (engine, k)))) for k in ("full", "cut"))
    t_full, t_cut = full["simulatedNs"], cut["simulatedNs"]
    before = {(l["from"], l["port"]): l["load"] for l in cut["linkLoads"]}
    classes = {"global": [], "local to the next router": [], "other local": []}
    routers = 1 + max(router(l["from"])[1] for l in full["linkLoads"])
    for l in full["linkLoads"]:
        last = (l["load"] * t_full - before[(l["from"], l["port"])] * t_cut) / (t_full - t_cut)
        (ga, ra), (gb, rb) = router(l["from"]), router(l["to"])
        key = "global" if ga != gb else "local to the next router" if rb == (ra + 1) % routers else "other local"
        classes[key].append(last)
    print("%s: throughput %.3f, mean hops %.2f; link loads over the last %d us:" % (engine, full["throughput"], full["meanHops"],
                                                                                    (t_full - t_cut) // 1000))
    for key, loads in classes.items():
        print("  %-25s %4d links, mean %.3f, %3d at 0.95 or more" % (key, len(loads), sum(loads) / len(loads),
                                                                       sum(1 for x in loads if x >= 0.95)))
PY
  rm -r "$links"
fi
