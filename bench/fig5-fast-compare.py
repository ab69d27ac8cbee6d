#!/usr/bin/env python3
"""The fast Figure 5 sweep (bench/qadaptive-figures.sh fig5-fast) against the from-empty one, and
what it cost (docs/benchmarks.md, "The Figure 5 sweep").

Usage: bench/fig5-fast-compare.py FAST.json.. [--ref REF.json..] [--noise NOISE.json..] [--cost-only]
  FAST.json   `emulator sweep` reports of the fast setting (one per pattern).
  --ref       the reports to compare with, the paper's method (every point from an empty network and
              the seed): default docs/data/qadaptive/fig5-{adv1,ur,adv4}.json.
  --noise     reports of the --ref setting with another --seed at some of the loads: at each point
              they have, the seed's difference from --ref is printed beside the fast setting's, the
              yardstick it is to be read against.
  --cost-only the cost alone, no comparison.

For each pattern, every (engine, load) point that FAST and --ref share: throughput, mean latency
(us) and mean hops of both and their differences (per cent; hops absolute), then per engine the
largest differences, carried points and saturated ones apart (a saturated point's latency is its
queues', the source queue's 20 packets included). FAST reports of runs with --until-precise add a
column: the window measured (us, after the warm-up), whether it ended precise (p) or at its cap, and
the 95% interval's half-width of the mean latency (per cent of it).

Cost: per sweep and engine the points' CPU-seconds (`cpuMillis`, the simulating threads' own), the
sweep's wall time (`wallMillis`), and the two-thread makespan replayed from the CPU-seconds as
`emulator sweep` schedules them: tasks longest first by configured duration x load (an engine's
warm-started points one task, their sum), each to the thread free first; the sweeps one after
another. Routing and JVM start are not in the replay (the reports' `routingMillis`: a second or
less a sweep). The machine is shared, and what runs beside a sweep slows its CPU-seconds too, so
the replay is given again with every point's packet-hops (a count: the same on any machine) at the
--ref run's rate, packet-hops per CPU-second over all its points.
"""
import glob, json, os, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
args = sys.argv[1:]
cost_only = "--cost-only" in args
args = [a for a in args if a != "--cost-only"]
groups = {"fast": [], "--ref": [], "--noise": []}
key = "fast"
for a in args:
    if a in groups:
        key = a
    else:
        groups[key].append(a)
if not groups["fast"]:
    sys.exit(__doc__)
if not groups["--ref"]:
    groups["--ref"] = [os.path.join(root, "docs/data/qadaptive/fig5-%s.json" % p) for p in ("adv1", "ur", "adv4")]


def load_all(paths):
    return [json.load(open(p)) for p in paths]


def index(reports):
    out = {}
    for d in reports:
        for e in d["engines"]:
            for p in e["points"]:
                out[(d["pattern"], e["engine"], round(p["load"], 6))] = p
    return out


fast = load_all(groups["fast"])
name = {"uniform": "UR", "group-shift": "ADV+1", "adv+4": "ADV+4"}


def rel(a, b):
    return None if a is None or b is None or b == 0 else 100.0 * (a / b - 1)


def pct(x):
    return "-" if x is None else "%+.1f%%" % x


def compare():
    ref = index(load_all(groups["--ref"]))
    noise = index(load_all(groups["--noise"]))
    for d in fast:
        pattern = d["pattern"]
        precise = "untilPrecise" in d["options"]
        print("#### %s: these runs against the from-empty ones\n" % name.get(pattern, pattern))
        print("| engine | load | throughput these / from empty | diff | seed 2 diff | latency (us) these / from empty | diff | seed 2 diff "
              "| hops these / from empty | diff | seed 2 diff |" + (" measured (us), latency 95% CI |" if precise else ""))
        print("|---|---|---|---|---|---|---|---|---|---|---|" + ("---|" if precise else ""))
        worst = {}
        for e in d["engines"]:
            for p in e["points"]:
                k = (pattern, e["engine"], round(p["load"], 6))
                r = ref.get(k)
                if r is None:
                    continue
                n = noise.get(k)
                lat = lambda q: None if q is None or q["latencyMeanNs"] is None else q["latencyMeanNs"] / 1000
                hops = lambda q: None if q is None else q["meanHops"]
                dt, dl = rel(p["throughput"], r["throughput"]), rel(lat(p), lat(r))
                dh = None if hops(p) is None or hops(r) is None else hops(p) - hops(r)
                nt = None if n is None else rel(n["throughput"], r["throughput"])
                nl = None if n is None else rel(lat(n), lat(r))
                nh = None if n is None or hops(n) is None or hops(r) is None else hops(n) - hops(r)
                sat = r["saturated"] or p["saturated"]
                ci = ""
                if precise:
                    half = p["latencyMeanCi95Ns"]
                    # the warm-up used: a point's own with --until-steady, else its engine's configured one
                    ci = " %.0f%s, %s |" % ((p["simulatedNs"] - p.get("warmupNs", e["warmupNs"])) / 1000, " p" if p["precise"] else "",
                                            "-" if half is None or not p["latencyMeanNs"] else "%.2f%%" % (100 * half / p["latencyMeanNs"]))
                print("| %s | %.3g | %.3f / %.3f%s | %s | %s | %.2f / %.2f | %s | %s | %.2f / %.2f | %+.2f | %s |%s" % (
                    e["engine"], p["load"], p["throughput"], r["throughput"], " (sat)" if sat else "", pct(dt), pct(nt),
                    lat(p) or float("nan"), lat(r) or float("nan"), pct(dl), pct(nl), hops(p) or float("nan"), hops(r) or float("nan"),
                    dh if dh is not None else float("nan"), "-" if nh is None else "%+.2f" % nh, ci))
                w = worst.setdefault((e["engine"], sat), [0, 0, 0, 0])
                w[0] = max(w[0], abs(dt or 0))
                w[1] = max(w[1], abs(dl or 0))
                w[2] = max(w[2], abs(dh or 0))
                w[3] += 1
        print("\nLargest differences, these runs against the from-empty ones (points compared):\n")
        print("| engine | carried: throughput / latency / hops | saturated: throughput / latency / hops |")
        print("|---|---|---|")
        for e in d["engines"]:
            cells = []
            for sat in (False, True):
                w = worst.get((e["engine"], sat))
                cells.append("-" if w is None else "%.1f%% / %.1f%% / %.2f (%d)" % (w[0], w[1], w[2], w[3]))
            print("| %s | %s | %s |" % (e["engine"], cells[0], cells[1]))
        print()


def replay(d, threads=2, rate=None):
    """The makespan on {threads} threads of the points' CPU-seconds, or with {rate} of their packet-hops at that rate."""
    tasks = []
    for e in d["engines"]:
        pts = e["points"]
        works = [e["durationNs"] * p["load"] for p in pts]
        cpus = [p["cpuMillis"] / 1000 if rate is None else p["packetHops"] / rate for p in pts]
        if e.get("warmStart"):
            tasks.append((sum(works), sum(cpus)))
        else:
            tasks.extend(zip(works, cpus))
    tasks.sort(key=lambda t: -t[0])  # Python's sort is stable: equals in the grid's order, as the sweep's
    free = [0.0] * threads
    for _, cpu in tasks:
        i = free.index(min(free))
        free[i] += cpu
    return max(free)


def hops_per_cpu_second(reports):
    return sum(p["packetHops"] for d in reports for e in d["engines"] for p in e["points"]) / sum(
        p["cpuMillis"] / 1000 for d in reports for e in d["engines"] for p in e["points"])


def cost():
    # the machine is shared: CPU-seconds depend on what ran beside; packet-hops do not. So the replay
    # again with every point's packet-hops at the --ref run's rate (its packet-hops over its CPU-seconds)
    rate = hops_per_cpu_second(load_all(groups["--ref"]))
    totals = [0, 0, 0, 0, 0]
    print("| sweep | points | CPU-s by engine | CPU-s | replayed on 2 threads (s) | wall (s) | packet-hops (G) "
          "| replayed at the reference's rate (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for d in fast:
        by = {e["engine"]: sum(p["cpuMillis"] for p in e["points"]) / 1000 for e in d["engines"]}
        cpu = sum(by.values())
        r = replay(d)
        hops = sum(p["packetHops"] for e in d["engines"] for p in e["points"])
        at = replay(d, rate=rate)
        n = sum(len(e["points"]) for e in d["engines"])
        print("| %s | %d | %s | %.0f | %.0f | %.0f | %.2f | %.0f |" % (name.get(d["pattern"], d["pattern"]), n,
              ", ".join("%s %.0f" % kv for kv in by.items()), cpu, r, d["wallMillis"] / 1000, hops / 1e9, at))
        for i, v in enumerate((cpu, r, d["wallMillis"] / 1000, hops, at)):
            totals[i] += v
    cpu, r, wall, hops, at = totals
    print("| all | | | %.0f (%.1f min) | %.0f (%.1f min) | %.0f (%.1f min) | %.2f | %.0f (%.1f min) |\n" % (
        cpu, cpu / 60, r, r / 60, wall, wall / 60, hops / 1e9, at, at / 60))
    print("Packet-hops per CPU-second: these runs %.3f M, the reference's %.3f M.\n" % (hops_per_cpu_second(fast) / 1e6, rate / 1e6))


if not cost_only:
    compare()
cost()
