#!/usr/bin/env python3
"""Application-aware routing's scaling factors, derived the paper's way from our own runs.

De Sensi et al. (SC'19, section 4.2) estimate the mode not in use from the one in use by two
scaling factors, lambda (latency) and sigma (stalls), "which we can derive by considering a median
case over several runs of different microbenchmarks in different allocations", and do not give
them. This script derives ours from the fixed-mode runs of the paper's Figure 8 as bench/noise.sh
fig8 stores them (docs/data/noise/fig8/*.json): for every benchmark, placement, message size,
company (alone, or beside the aggressor at 0.3 or 1) and seed run under both ADAPTIVE_0 (the
default) and ADAPTIVE_3 (the high bias),

  lambda = median over the runs of   high bias's mean network latency / default's
  sigma  = median over the runs where both modes stalled of   high bias's stall ns per flit / default's

The latency is the job's networkLatencyMeanNs (a packet's NIC send to its delivery); the NIC
counter AppAwareRouting reads is the round trip, the same plus the modelled response's no-load
time back, a constant per pair of hosts that moves a ratio towards 1 (with 250 ns added to both
modes lambda moves from 0.997 to 0.998, or from 0.882 to 0.915 with --all). By default only runs of messages of at least 4 KiB
count: the algorithm decides on every message from 4 KiB (its threshold), while below it the
messages go with the high bias and only every (4 KiB / size)-th is decided. --all counts every
run. Prints the factors, and the per-benchmark medians for the docs.

Usage: bench/appaware-factors.py [--all] [DIR]   (DIR: default docs/data/noise/fig8)
"""
import collections
import glob
import json
import os
import statistics
import sys


def size_bytes(message):
    units = {"KiB": 1024, "MiB": 1024 * 1024}
    for unit, factor in units.items():
        if message.endswith(unit):
            return int(message[:-len(unit)]) * factor
    return int(message)


def main(argv):
    every = "--all" in argv
    rest = [a for a in argv if a != "--all"]
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    directory = rest[0] if rest else os.path.join(root, "docs", "data", "noise", "fig8")
    files = sorted(glob.glob(os.path.join(directory, "*.json")))
    if not files:
        sys.exit(f"appaware-factors: no runs in {directory}: run bench/noise.sh fig8 first, or name the directory of its JSON files")
    runs = collections.defaultdict(dict)
    for path in files:
        for r in json.load(open(path)):
            if r["mode"] not in ("ADAPTIVE_0", "ADAPTIVE_3"):
                continue
            if not every and size_bytes(r["message"]) < 4096:
                continue
            job = r["jobs"][0]
            runs[(r["benchmark"], r["placement"], r["message"], r["company"], r["seed"])][r["mode"]] = job
    pairs = [(k, v["ADAPTIVE_3"], v["ADAPTIVE_0"]) for k, v in sorted(runs.items()) if len(v) == 2]
    if not pairs:
        sys.exit(f"appaware-factors: no run in {directory} has both ADAPTIVE_0 and ADAPTIVE_3")
    latency = [b["networkLatencyMeanNs"] / d["networkLatencyMeanNs"] for _, b, d in pairs]
    stalls = [b["stallNsPerFlit"] / d["stallNsPerFlit"] for _, b, d in pairs if b["stallNsPerFlit"] > 0 and d["stallNsPerFlit"] > 0]
    print(f"runs: {len(pairs)} pairs ({'every message size' if every else 'messages of 4 KiB and more'}), {len(stalls)} where both stalled")
    print(f"lambda (LATENCY_SCALE) = {statistics.median(latency):.3f}   (quartiles {statistics.quantiles(latency, n=4)[0]:.3f}"
          f" - {statistics.quantiles(latency, n=4)[2]:.3f}, range {min(latency):.3f} - {max(latency):.3f})")
    if stalls:
        print(f"sigma (STALL_SCALE)    = {statistics.median(stalls):.3f}   (quartiles {statistics.quantiles(stalls, n=4)[0]:.3f}"
              f" - {statistics.quantiles(stalls, n=4)[2]:.3f})")
    else:
        print("sigma (STALL_SCALE)    = -   (no run where both modes stalled)")
    print()
    print("| benchmark | placement | runs | high bias / default latency, median |")
    print("|---|---|---:|---:|")
    by = collections.defaultdict(list)
    for (k, b, d) in pairs:
        by[(k[0], k[1])].append(b["networkLatencyMeanNs"] / d["networkLatencyMeanNs"])
    for (bench, placement), ratios in by.items():
        print(f"| {bench} | {placement} | {len(ratios)} | {statistics.median(ratios):.3f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
