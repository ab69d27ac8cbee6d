#!/usr/bin/env python3
"""The Figure 5 sweep with --until-steady, compared and estimated from a sample (docs/benchmarks.md,
"The Figure 5 sweep").

Usage: bench/steady-estimate.py STEADY.json.. [--noise SEED2.json..]
  STEADY.json: `emulator sweep ... --until-steady` reports of some loads of the documented fig5
  sweeps (bench/qadaptive-figures.sh's options, round-robin arbitration); each point is compared with
  the documented point of docs/data/qadaptive/fig5-rr-*.json (the round-robin sweep with fixed
  warm-ups) at the same pattern, engine and load (seed 1). --noise: reports
  of the documented command with another seed (no --until-steady), compared the same way: the
  noise the differences are to be read against.

Then estimates the whole sweep with the option: per documented point, its CPU-seconds
(`cpuMillis` of the 2026-11-26 run) times the share of its simulation events the steady run
needs (events are simulated work, machine-independent: the sample's events over the documented
point's, interpolated linearly in load between the sampled loads of its engine and pattern, held
flat beyond them), replayed on two threads, points longest first (configured duration x load, as
`emulator sweep` starts them), the three sweeps one after another; at the documented ten loads
and at fifteen (each engine's CPU-seconds and share interpolated linearly in load).
"""
import glob, heapq, json, os, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
docs = {}
for path in glob.glob(os.path.join(root, "docs/data/qadaptive/fig5-rr-*.json")):
    d = json.load(open(path))
    docs[d["pattern"]] = d

args = sys.argv[1:]
noise = []
if "--noise" in args:
    i = args.index("--noise")
    args, noise = args[:i], args[i + 1:]


def points(paths):
    for path in paths:
        d = json.load(open(path))
        for e in d["engines"]:
            for p in e["points"]:
                yield d["pattern"], e["engine"], p


def documented(pattern, engine, load):
    for e in docs[pattern]["engines"]:
        if e["engine"] == engine:
            for p in e["points"]:
                if abs(p["load"] - load) < 1e-9:
                    return p
    return None


def rel(a, b):
    return float("nan") if a is None or b is None or b == 0 else 100.0 * (a / b - 1)


def compare(paths, title, steady):
    print("%s\n" % title)
    print("| pattern | engine | load | throughput | mean latency (us) | mean hops | %s |" % (
        "steady at (us) | events | CPU-s now / documented" if steady else "CPU-s"))
    print("|---|---|---|---|---|---|---|" + ("---|---|" if steady else ""))
    ratios = {}
    for pattern, engine, p in sorted(points(paths), key=lambda x: (x[0], x[1], x[2]["load"])):
        q = documented(pattern, engine, p["load"])
        lat = (p["latencyMeanNs"] or 0) / 1000
        cells = "%.3f (%+.1f%%) | %.2f (%+.1f%%) | %.2f (%+.2f) |" % (
            p["throughput"], rel(p["throughput"], q["throughput"]), lat, rel(p["latencyMeanNs"], q["latencyMeanNs"]),
            p["meanHops"] or 0, (p["meanHops"] or 0) - (q["meanHops"] or 0))
        if steady:
            share = p["events"] / q["events"]
            ratios.setdefault((pattern, engine), []).append((p["load"], share))
            cells += " %s | %.2f | %.1f / %.1f |" % ("%d" % (p["steadyAtNs"] // 1000) if p["steady"] else "no (cap %d)" % (
                p["warmupNs"] // 1000), share, p["cpuMillis"] / 1000, q["cpuMillis"] / 1000)
        else:
            cells += " %.1f |" % (p["cpuMillis"] / 1000)
        print("| %s | %s | %.2f%s | %s" % (pattern.replace("group-shift", "adv+1"), engine, p["load"],
                                           " (sat)" if q["saturated"] else "", cells))
    print()
    return ratios


def interpolate(xs, ys, x):
    if x <= xs[0]:
        return ys[0]
    if x >= xs[-1]:
        return ys[-1]
    for i in range(1, len(xs)):
        if x <= xs[i]:
            t = (x - xs[i - 1]) / (xs[i] - xs[i - 1])
            return ys[i - 1] + t * (ys[i] - ys[i - 1])


def makespan(jobs, threads=2):
    """jobs: (order key, seconds); longest key first onto the first free thread."""
    free = [0.0] * threads
    for _, s in sorted(jobs, key=lambda j: -j[0]):
        heapq.heappush(free, heapq.heappop(free) + s)
    return max(free)


ratios = compare(args, "With --until-steady against the documented points (seed 1):", True)
if noise:
    compare(noise, "Another seed of the documented command against the documented points (the noise):", False)

for n in (10, 15):
    total_before = total_after = cpu_before = cpu_after = 0.0
    for pattern, d in sorted(docs.items()):
        before, after = [], []
        for e in d["engines"]:
            loads = [p["load"] for p in e["points"]]
            cpu = [p["cpuMillis"] / 1000 for p in e["points"]]
            sample = sorted(ratios.get((pattern, e["engine"]), []))
            grid = loads if n == len(loads) else [loads[0] + (loads[-1] - loads[0]) * i / (n - 1) for i in range(n)]
            for load in grid:
                c = interpolate(loads, cpu, load)
                share = interpolate([s[0] for s in sample], [s[1] for s in sample], load) if sample else 1.0
                before.append((e["durationNs"] * load, c))
                after.append((e["durationNs"] * load, c * share))
        b, a = makespan(before), makespan(after)
        total_before += b
        total_after += a
        cpu_before += sum(s for _, s in before)
        cpu_after += sum(s for _, s in after)
        print("%2d loads, %-11s: %5.0f CPU-s -> %5.0f; on two threads %5.0f s -> %5.0f s" % (
            n, pattern, sum(s for _, s in before), sum(s for _, s in after), b, a))
    print("%2d loads, all three : %5.0f CPU-s -> %5.0f; on two threads %.1f min -> %.1f min\n" % (
        n, cpu_before, cpu_after, total_before / 60, total_after / 60))
