#!/usr/bin/env bash
# Application-aware routing's noise study in the simulator (De Sensi et al., "Mitigating Network
# Noise on Dragonfly Networks through Application-Aware Routing", SC'19), with emulator sim --job:
#  (a) modes: one job alone (108 hosts = 6 groups, contiguous, as the paper's 1,024 nodes spanned
#      6 groups) by pattern (all-to-all, allreduce-ring, halo3d) and message size (256 B, 4 KiB,
#      64 KiB) at loads 0.2 (latency-bound) and 0.5 (bandwidth-bound: all-to-all saturates), under
#      each fixed routing mode and application-aware routing;
#  (b) noise: a victim job (72 hosts, all-to-all, 4 KiB messages, load 0.4) alone and beside an
#      aggressor on the other 270 hosts (random destinations, 4 KiB messages, load 0.3 or 1), the victim
#      placed contiguous (4 groups), interleaved (every group) or random, under ADAPTIVE_0,
#      ADAPTIVE_3 and app-aware, over seeds (the placement and every draw change with the seed);
#  (c) the aggressor's mode: the interleaved victim (ADAPTIVE_0 and ADAPTIVE_3) beside the aggressor
#      under ADAPTIVE_0 or ADAPTIVE_3: does an aggressor routed mostly minimally make less noise?
# The fabric: a balanced 342-host Dragonfly (p=3, a=6, h=3: 19 groups of 6 routers, one global link
# between every two groups; 30 ns local and 300 ns global cables), 100 Gb/s links, PAR
# (progressive adaptive routing, as Aries routes), 5 lanes of 32 packets, 256-byte payloads;
# DURATION simulated, the first fifth warm-up. A run takes 2 to 5 seconds.
# Usage (from any directory): bench/noise.sh [DURATION] [SEEDS] [MODES]
#   (defaults: 200us, "1 2 3", "ADAPTIVE_0 ADAPTIVE_1 ADAPTIVE_3 MIN_HASH app-aware"; about 10 minutes)
#   or: bench/noise.sh tables   (the tables again, from the JSON files)
#   NOISE_PARTS="modes victim aggressor" (the default) runs those parts; the others' tables are read back.
# Writes docs/data/noise/modes.json, victim.json and aggressor.json (every run's command line and
# job reports) and prints the Markdown tables of docs/reproductions.md. The runs made are merged into
# the files: a run replaces the file's run of the same part, pattern, load, size, placement, mode,
# company and seed, the others are kept (so "bench/noise.sh 200us '1 2 3' app-aware" re-measures
# application-aware routing alone); (b) runs the modes given of ADAPTIVE_0, ADAPTIVE_3, app-aware.
#
# bench/noise.sh fig8 [DURATION] [SEEDS] [MODES] (or bench/noise.sh fig8 tables): the paper's Figure 8,
# its closed-loop microbenchmarks by routing mode, on the 72-host Dragonfly (p=2, a=4, h=2: 9 groups
# of 4 routers with 2 hosts and 2 global links each, one global link between every two groups; the
# same cables, engine and buffers as above): ping-pong (2 ranks in groups 0 and 1; 256 B, 4 KiB,
# 64 KiB), barrier (16 ranks, 1-packet messages), broadcast and alltoall (16 ranks; 256 B, 4 KiB,
# 32 KiB), allreduce (16 ranks; each ring step's message 256 B, 1 KiB, 4 KiB: vectors of 4, 16 and
# 64 KiB), halo3d (pattern=halo3d-loop, 16 ranks on a 2 x 2 x 4 grid; faces of 256 B, 4 KiB, 32 KiB;
# twice the duration) and sweep3d (16 ranks on a 4 x 4 grid; a block's face 256 B, 4 KiB, 16 KiB;
# four times the duration); alltoall and allreduce with --source-queue 4096 and three times the duration; the 16 ranks interleaved (every group) or contiguous
# (groups 0 and 1), each alone and beside an aggressor on every other host (random destinations,
# 4 KiB messages, ADAPTIVE_0, load 0.3 or 1), under each mode and seed. 1,575 runs of 1 to 4
# CPU-seconds: about an hour on one core. FIG8_BENCHMARKS="alltoall" (say) runs only those and
# reads the others' JSON back (those never run are left out); FIG8_AGGRESSOR_LOADS="1" runs beside those
# aggressor loads only (default "0.3 1"). Writes
# docs/data/noise/fig8/{ping-pong,barrier,broadcast,alltoall,allreduce,halo3d,sweep3d}.json, merged as
# above (the runs made replace those of the same placement, size, mode, company and seed; the others
# are kept, and the runs are kept in the order placement, size, mode, company, seed), and prints the tables of
# docs/reproductions.md, "Closed-loop microbenchmarks by mode" (the second, app-aware's runs apart).
#
# bench/noise.sh live [WINDOW] [REPEATS] [MODES] (or bench/noise.sh live tables): Figure 8's ping-pong
# (4 KiB, 2 ranks in groups 0 and 1) and barrier (16 interleaved ranks) on the live plane, the same
# fabric and engine in one JVM (fabric-manager --emulate: emulator up's embedded fabric and the
# manager whose /metrics has the jobs' series), real time (--time-dilation 1), 100 Gb/s, each alone
# and beside an open-loop aggressor on the other hosts (random, 4 KiB, ADAPTIVE_0, at each of
# LIVE_AGGRESSOR_LOADS of the link rate, default "0.00001 0.0001": 1 and 10 Mb/s a host, about 3,300
# and 33,000 frames a second in all, what two shared cores' event loops can or cannot carry), under
# each mode (default ADAPTIVE_0 ADAPTIVE_3), REPEATS times (default 3), the runs of a repeat
# interleaved. A run waits LIVE_WARMUP seconds (default 6: the JIT) after the job's first
# iteration, then reads fabric_job_iterations_total and fabric_job_iteration_seconds_total at both
# ends of WINDOW seconds (default 8) of wall time; 20 to 26 s a run, 36 runs: 12 to 16 minutes.
# LIVE_COMPANIES="alone 0.0001" (say) runs only those (an aggressor by its load) and reads the
# others' runs back from the JSON. Writes
# docs/data/noise/live/{ping-pong,barrier}.json and prints the table of docs/reproductions.md
# beside the simulated Figure 8's ratio (docs/data/noise/fig8).
set -euo pipefail
root="$(dirname "$(readlink -f "$0")")/.."
cd "$root"
target=noise
if [ "${1:-}" = fig8 ] || [ "${1:-}" = live ]; then
  target=$1
  shift
fi
if [ "$target" = live ]; then
  duration=${1:-8}
  seeds=${2:-3}
  modes=${3:-ADAPTIVE_0 ADAPTIVE_3}
else
  duration=${1:-200us}
  seeds=${2:-1 2 3}
  modes=${3:-ADAPTIVE_0 ADAPTIVE_1 ADAPTIVE_3 MIN_HASH app-aware}
fi
out=docs/data/noise
mkdir -p "$out"
jar=none
if [ "$duration" != tables ]; then
  # one copy of the jar for the whole run: a build meanwhile must not change it under the runs
  if [ "$target" = live ]; then
    bin/fabric-manager --version > /dev/null
    jar="$(mktemp -d)/fabric-manager.jar"
    cp fabric-manager/target/fabric-manager-*-all.jar "$jar"
  else
    bin/emulator --version > /dev/null
    jar="$(mktemp -d)/emulator.jar"
    cp emulator/target/emulator-*-all.jar "$jar"
  fi
fi
python3 - "$out" "$duration" "$seeds" "$modes" "$jar" "${NOISE_PARTS:-modes victim aggressor}" "$target" <<'PY'
import json, os, statistics, subprocess, sys
out, duration, seeds, modes, jar = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split(), sys.argv[5]
parts = sys.argv[6].split() if duration != "tables" else []
target = sys.argv[7]
options = ["--engine", "df-par", "--vls", "5", "--buffer", "32", "--duration", duration]
cables = "local-latency=30ns,global-latency=300ns"
fabric = ["--topology", "dragonfly:p=3,a=6,h=3," + cables, *options]

def sim(jobs, seed=1, fabric=fabric):
    args = ["sim", *fabric, "--seed", str(seed), "--json"]
    for j in jobs:
        args += ["--job", j]
    r = json.loads(subprocess.run(["java", "-jar", jar, *args], check=True, capture_output=True, text=True).stdout)
    return {"command": "emulator " + " ".join(args), "nonMinimalShare": r.get("nonMinimalShare"), "jobs": r["jobs"]}

def us(ns):
    return "-" if ns is None else f"{ns / 1000:.2f}"

mode_order = ["ADAPTIVE_0", "ADAPTIVE_1", "ADAPTIVE_2", "ADAPTIVE_3", "MIN_HASH", "NMIN_HASH", "IN_ORDER", "app-aware"]

def mode_rank(m):
    return mode_order.index(m) if m in mode_order else len(mode_order)

def company_rank(c):
    return (0, 0.0) if c == "alone" else (1, float(c.split()[1]))

def merged(path, fresh, key, order):
    """The runs in JSON file path (if any) with those of the same key as a fresh run replaced by it, the others kept,
    all in the order order gives: a run of some modes, loads or seeds leaves the file's other runs as they were."""
    old = json.load(open(path)) if os.path.exists(path) else []
    replaced = {key(r) for r in fresh}
    return sorted([r for r in old if key(r) not in replaced] + fresh, key=order)

patterns, messages, loads = ("all-to-all", "allreduce-ring", "halo3d"), ("256", "4KiB", "64KiB"), ("0.2", "0.5")
aggressor_loads = ("0.3", "1")

def fig8():
    """The paper's Figure 8: closed-loop microbenchmarks by mode, alone and beside an aggressor."""
    small = ["--topology", "dragonfly:p=2,a=4,h=2," + cables, *options]
    hosts = 72
    # benchmark: its ranks, placements and message sizes ("" for barrier: 1-packet messages)
    benchmarks = {"ping-pong": (2, ("interleaved",), ("256", "4KiB", "64KiB")),
                  "barrier": (16, ("interleaved", "contiguous"), ("",)),
                  "broadcast": (16, ("interleaved", "contiguous"), ("256", "4KiB", "32KiB")),
                  "alltoall": (16, ("interleaved", "contiguous"), ("256", "4KiB", "32KiB")),
                  # allreduce's message is each step's: a ring step carries a sixteenth of the vector
                  "allreduce": (16, ("interleaved", "contiguous"), ("256", "1KiB", "4KiB")),
                  # halo3d's message is a face, sweep3d's a block's face (ember's sizes: the emulator README, "Jobs")
                  "halo3d": (16, ("interleaved", "contiguous"), ("256", "4KiB", "32KiB")),
                  "sweep3d": (16, ("interleaved", "contiguous"), ("256", "4KiB", "16KiB"))}
    # the job's pattern where it is not the benchmark's name: the open-loop halo3d keeps that one
    pattern = {"halo3d": "halo3d-loop"}
    # an alltoall rank may queue two all-to-alls' steps, 2 x 15 messages (32 KiB: 3,840 packets); and
    # an all-to-all of 32 KiB takes about 100 us: three times the run for a few iterations each
    # (allreduce: a predecessor up to 15 steps ahead, 16 messages; and 30 steps an iteration)
    extra = {"alltoall": ["--source-queue", "4096"], "allreduce": ["--source-queue", "4096"]}
    # (halo3d: a 32 KiB iteration takes about 35 us beside the full aggressor; sweep3d: a 16 KiB one over 100 us)
    longer = {"alltoall": 3, "allreduce": 3, "halo3d": 2, "sweep3d": 4}
    only = os.environ.get("FIG8_BENCHMARKS", " ".join(benchmarks)).split()
    companies = ["alone"] + ["aggressor " + load for load in os.environ.get("FIG8_AGGRESSOR_LOADS", " ".join(aggressor_loads)).split()]

    def stretched(args, times):
        """The options with the run's --duration times as long (a number and a unit, e.g. 200us)."""
        if times == 1:
            return args
        number = duration.rstrip("unms")
        return [f"{int(number) * times}{duration[len(number):]}" if a == duration else a for a in args]
    os.makedirs(f"{out}/fig8", exist_ok=True)
    runs = {}
    for name, (ranks, placements, sizes) in benchmarks.items():
        if duration == "tables" or name not in only:
            if os.path.exists(f"{out}/fig8/{name}.json"):  # a benchmark never run has no rows
                runs[name] = json.load(open(f"{out}/fig8/{name}.json"))
            continue
        fresh = []
        for placement in placements:
            for message in sizes:
                for mode in modes:
                    for company in companies:
                        for seed in seeds:
                            job = f"name={name},hosts={ranks},placement={placement},pattern={pattern.get(name, name)},mode={mode}" \
                                  + (f",message={message}" if message else "")
                            jobs = [job] if company == "alone" else [
                                job, f"name=aggressor,hosts={hosts - ranks},placement=contiguous,pattern=random,"
                                     f"load={company.split()[1]},mode=ADAPTIVE_0,message=4KiB"]
                            fresh.append({"benchmark": name, "placement": placement, "message": message or "256",
                                          "mode": mode, "company": company, "seed": int(seed),
                                          **sim(jobs, int(seed), stretched(small, longer.get(name, 1)) + extra.get(name, []))})
        # merged into the benchmark's runs: those of the placements, sizes, modes, companies and seeds run now replaced
        runs[name] = merged(f"{out}/fig8/{name}.json", fresh,
                            lambda r: (r["placement"], r["message"], r["mode"], r["company"], r["seed"]),
                            lambda r: (placements.index(r["placement"]), sizes.index(r["message"]) if r["message"] in sizes else 0,
                                       mode_rank(r["mode"]), company_rank(r["company"]), r["seed"]))
        json.dump(runs[name], open(f"{out}/fig8/{name}.json", "w"), indent=1)
    shown = list(dict.fromkeys(r["mode"] for rs in runs.values() for r in rs))
    fixed = [m for m in shown if m != "app-aware"]
    print("Time per iteration, mean / p99 (us), each the mean over the seeds; under it: the spread of the mean over the"
          " seeds ((max - min) / mean), the non-minimal share of the benchmark's packets (app-aware: and the share of its"
          " bytes sent with its default, ADAPTIVE_0 or for alltoall ADAPTIVE_1, ad). n: iterations per run under ADAPTIVE_0. Best fixed: the lowest mean.")
    print()
    print("| benchmark | message | ranks | aggressor | n | " + " | ".join(shown)
          + " | best fixed | ADAPTIVE_3 / ADAPTIVE_0 | app-aware / ADAPTIVE_0 | app-aware / best fixed |")
    print("|---|---:|---|---:|---:|" + "---:|" * len(shown) + "---|---:|---:|---:|")
    rows = []
    for name, rs in runs.items():
        for placement, message, company in dict.fromkeys((r["placement"], r["message"], r["company"]) for r in rs):
            got = {m: [r["jobs"][0] for r in rs if (r["placement"], r["message"], r["company"], r["mode"])
                       == (placement, message, company, m)] for m in shown}
            if any(j["iterationMeanNs"] is None for js in got.values() for j in js):
                sys.exit(f"{name} {message} {placement} {company}: a run completed no iteration (simulate longer)")
            # a benchmark run under fewer modes (halo3d, sweep3d) has none of the others': "-"
            mean = {m: statistics.mean(j["iterationMeanNs"] for j in js) for m, js in got.items() if js}
            def cell(m):
                js = got[m]
                if not js:
                    return "-"
                each = [j["iterationMeanNs"] for j in js]
                ad = [j.get("adaptiveShare") for j in js]
                extra = "" if m != "app-aware" else ", ad -" if None in ad else f", ad {statistics.mean(ad):.2f}"
                return (f"{us(mean[m])} / {us(statistics.mean(j['iterationP99Ns'] for j in js))}<br>"
                        f"{(max(each) - min(each)) / mean[m]:.0%}, nm {statistics.mean(j['nonMinimalShare'] for j in js):.2f}{extra}")
            # a row some mode has no runs in (a benchmark run under fewer modes, seeds or loads) says "-" for it
            best = min((m for m in fixed if m in mean), key=lambda m: mean[m], default=None)

            def ratio(a, b):
                return f"{mean[a] / mean[b]:.2f}" if a in mean and b in mean else "-"
            ratios = [ratio("ADAPTIVE_3", "ADAPTIVE_0"), ratio("app-aware", "ADAPTIVE_0"), ratio("app-aware", best)]
            n = f"{statistics.mean(j['iterations'] for j in got['ADAPTIVE_0']):.0f}" if got.get("ADAPTIVE_0") else "-"
            hosts = next(js[0]["hosts"] for js in got.values() if js)
            print(f"| {name} | {message} | {hosts} {placement} | "
                  f"{'-' if company == 'alone' else company.split()[1]} | {n} | " + " | ".join(cell(m) for m in shown)
                  + f" | {best or '-'} | " + " | ".join(ratios) + " |")
            rows.append((name, placement, message, company, mean, best))
    # application-aware routing's runs apart: what it chose (ad) and how it compares
    if "app-aware" not in shown:
        return
    print()
    print("app-aware beside the fixed modes above: time per iteration, mean / p99 (us), means over the seeds; ad, nm;"
          " its mean over ADAPTIVE_0's and the best fixed mode's.")
    print()
    print("| benchmark | message | ranks | aggressor | app-aware mean / p99 (us) | ad | nm | / ADAPTIVE_0 | / best fixed (which) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---|")
    for name, placement, message, company, mean, best in rows:
        js = [r["jobs"][0] for r in runs[name]
              if (r["placement"], r["message"], r["company"], r["mode"]) == (placement, message, company, "app-aware")]
        if not js:
            continue
        a = statistics.mean(j["iterationMeanNs"] for j in js)
        print(f"| {name} | {message} | {js[0]['hosts']} {placement} | {'-' if company == 'alone' else company.split()[1]} | "
              f"{us(a)} / {us(statistics.mean(j['iterationP99Ns'] for j in js))} | "
              f"{statistics.mean(j['adaptiveShare'] for j in js):.2f} | {statistics.mean(j['nonMinimalShare'] for j in js):.2f} | "
              + (f"{a / mean['ADAPTIVE_0']:.2f}" if "ADAPTIVE_0" in mean else "-") + " | "
              + (f"{a / mean[best]:.2f} ({best})" if best else "-") + " |")

def live():
    """Figure 8's ping-pong and barrier on the live plane, alone and beside an aggressor, by mode, over repeats."""
    import re, shutil, signal, socket, tempfile, time, urllib.request
    window, repeats = (float(duration), int(seeds[0])) if duration != "tables" else (0, 0)
    warmup = float(os.environ.get("LIVE_WARMUP", "6"))
    aggressor_loads = os.environ.get("LIVE_AGGRESSOR_LOADS", "0.00001 0.0001").split()
    hosts = 72
    benchmarks = {"ping-pong": (2, "4KiB"), "barrier": (16, "")}
    fabric_args = ["--emulate", "dragonfly:p=2,a=4,h=2," + cables, "--engine", "df-par", "--vls", "5", "--buffer", "32",
                   "--time-dilation", "1", "--perf-interval", "500ms"]
    series = re.compile(r'^(fabric_job_\w+)\{job="(\w[\w-]*)"\} (\S+)$', re.M)

    def scrape(port):
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
        return {(m[1], m[2]): float(m[3]) for m in series.finditer(text)}

    def run(name, ranks, message, mode, company):
        job = f"name={name},hosts={ranks},placement=interleaved,pattern={name},mode={mode}" + (f",message={message}" if message else "")
        jobs = [job] if company == "alone" else [
            job, f"name=aggressor,hosts={hosts - ranks},placement=contiguous,pattern=random,load={company.split()[1]},"
                 f"mode=ADAPTIVE_0,message=4KiB"]
        with socket.socket() as s:  # a free port for the metrics
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        state = tempfile.mkdtemp()
        args = [*fabric_args, "--metrics-port", str(port), "--admin-port", "0", "--state-dir", state,
                "--exit-after", f"{int(warmup + window + 60)}s"]
        for j in jobs:
            args += ["--job", j]
        load = os.getloadavg()[0]
        p = subprocess.Popen(["java", "-jar", jar, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + 60
            while True:  # the job's first iteration: the fabric is up, routed and the loop runs
                time.sleep(0.5)
                if p.poll() is not None or time.time() > deadline:
                    sys.exit(f"{name} {mode} {company}: no iteration within 60 s (exit {p.poll()}): fabric-manager {' '.join(args)}")
                try:
                    if scrape(port).get(("fabric_job_iterations_total", name), 0) > 0:
                        break
                except OSError:
                    pass
            time.sleep(warmup)
            t0, a = time.time(), scrape(port)
            time.sleep(window)
            t1, b = time.time(), scrape(port)
        finally:
            p.send_signal(signal.SIGTERM)
            p.wait(60)
            shutil.rmtree(state, ignore_errors=True)

        def d(metric, job=name):
            return b.get((metric, job), 0) - a.get((metric, job), 0)
        iterations = d("fabric_job_iterations_total")
        packets = d("fabric_job_packets_total")
        return {"benchmark": name, "message": message or "1 packet", "mode": mode, "company": company,
                "ranks": ranks, "command": "fabric-manager " + " ".join("DIR" if x == state else x for x in args),
                "loadAverage": load, "windowSeconds": round(t1 - t0, 3), "iterations": iterations,
                "iterationMeanNs": d("fabric_job_iteration_seconds_total") / iterations * 1e9 if iterations else None,
                "nonMinimalShare": d("fabric_job_nonminimal_packets_total") / packets if packets else None,
                "aggressorMessages": d("fabric_job_messages_total", "aggressor") if company != "alone" else None}

    companies = ["alone"] + ["aggressor " + load for load in aggressor_loads]
    only = ["aggressor " + c if c != "alone" else c for c in os.environ.get("LIVE_COMPANIES", "alone " + " ".join(aggressor_loads)).split()]
    os.makedirs(f"{out}/live", exist_ok=True)
    runs = {}
    if duration == "tables":
        runs = {name: json.load(open(f"{out}/live/{name}.json")) for name in benchmarks}
    else:
        runs = {name: [] if set(companies) <= set(only) else
                [r for r in json.load(open(f"{out}/live/{name}.json")) if r["company"] not in only] for name in benchmarks}
        for repeat in range(repeats):  # a repeat's runs side by side in time: the machine's load drifts between repeats
            for name, (ranks, message) in benchmarks.items():
                for company in (c for c in companies if c in only):
                    for mode in modes:
                        r = run(name, ranks, message, mode, company)
                        runs[name].append({**r, "repeat": repeat})
                        print(f"{name} {mode} {company} #{repeat}: {r['iterations']:.0f} iterations, "
                              f"{us(r['iterationMeanNs'])} us", file=sys.stderr, flush=True)
                json.dump(runs[name], open(f"{out}/live/{name}.json", "w"), indent=1)
    shown = list(dict.fromkeys(r["mode"] for rs in runs.values() for r in rs))
    print("Live plane, real time: time per iteration (us), the mean over the repeats of each run's window mean, and"
          " the range over the repeats; iterations per second of wall time; nm: the benchmark's non-minimal share."
          " Simulated: Figure 8's ADAPTIVE_3 / ADAPTIVE_0 (docs/data/noise/fig8; beside an aggressor: its at 0.3 of the link rate).")
    print()
    print("| benchmark | message | ranks | aggressor | " + " | ".join(shown) + " | live ADAPTIVE_3 / ADAPTIVE_0 | simulated |")
    print("|---|---:|---|---|" + "---:|" * len(shown) + "---:|---:|")
    for name, rs in runs.items():
        sim_runs = json.load(open(f"{out}/fig8/{name}.json"))
        for company in sorted(dict.fromkeys(r["company"] for r in rs), key=lambda c: (c != "alone", c)):
            got = {m: [r for r in rs if r["company"] == company and r["mode"] == m] for m in shown}
            mean = {m: statistics.mean(r["iterationMeanNs"] for r in got[m]) for m in shown}

            def cell(m):
                each = [r["iterationMeanNs"] for r in got[m]]
                rate = statistics.mean(r["iterations"] / r["windowSeconds"] for r in got[m])
                return (f"{us(mean[m])} ({us(min(each))}..{us(max(each))})<br>{rate:,.0f}/s, "
                        f"nm {statistics.mean(r['nonMinimalShare'] for r in got[m]):.2f}")
            sim_company = "alone" if company == "alone" else "aggressor 0.3"
            message = "4KiB" if name == "ping-pong" else "256"
            sim = {m: statistics.mean(r["jobs"][0]["iterationMeanNs"] for r in sim_runs if (r["placement"], r["message"], r["company"], r["mode"])
                                      == ("interleaved", message, sim_company, m)) for m in ("ADAPTIVE_0", "ADAPTIVE_3")}
            ratio = f"{mean['ADAPTIVE_3'] / mean['ADAPTIVE_0']:.2f}" if {"ADAPTIVE_0", "ADAPTIVE_3"} <= set(mean) else "-"
            print(f"| {name} | {got[shown[0]][0]['message']} | {got[shown[0]][0]['ranks']} interleaved | "
                  f"{'-' if company == 'alone' else company.split()[1]} | " + " | ".join(cell(m) for m in shown)
                  + f" | {ratio} | {sim['ADAPTIVE_3'] / sim['ADAPTIVE_0']:.2f} |")

if target == "fig8":
    fig8()
    sys.exit(0)
if target == "live":
    live()
    sys.exit(0)

# (a) one job alone: the best mode by pattern and message size
run = "modes" in parts
fresh = []
for load in loads if run else ():
    for pattern in patterns:
        for message in messages:
            for mode in modes:
                r = sim([f"name=app,hosts=108,placement=contiguous,pattern={pattern},load={load},mode={mode},message={message}"])
                fresh.append({"load": load, "pattern": pattern, "message": message, "mode": mode, **r})
# merged: the runs of the modes run now replace theirs, the others' are kept
runs = merged(f"{out}/modes.json", fresh, lambda r: (r["load"], r["pattern"], r["message"], r["mode"]),
              lambda r: (loads.index(r["load"]), patterns.index(r["pattern"]), messages.index(r["message"]), mode_rank(r["mode"])))
if run:
    json.dump(runs, open(f"{out}/modes.json", "w"), indent=1)
modes = list(dict.fromkeys(r["mode"] for r in runs))
print("Message completion time, mean / p99 (us); under each: accepted load, non-minimal share of the packets"
      " (app-aware: and the share of bytes it sent with ADAPTIVE_0). Best fixed: the most accepted (within 0.01), then the"
      " lowest mean.")
print()
print("| load | pattern | message | " + " | ".join(modes) + " | best fixed (mean) |")
print("|---:|---|---:|" + "---:|" * len(modes) + "---|")
for load, pattern, message in ((l, p, m) for l in loads for p in patterns for m in messages):
        row = {r["mode"]: r["jobs"][0] for r in runs if r["load"] == load and r["pattern"] == pattern and r["message"] == message}
        fixed = [m for m in modes if m != "app-aware"]
        most = max(row[m]["throughput"] for m in fixed)
        best = min((m for m in fixed if row[m]["throughput"] >= most - 0.01), key=lambda m: row[m]["messageMeanNs"] or float("inf"))
        def cell(m):
            j = row[m]
            extra = f", ad {j['adaptiveShare']:.2f}" if j.get("adaptiveShare") is not None else ""
            return f"{us(j['messageMeanNs'])} / {us(j['messageP99Ns'])}<br>{j['throughput']:.2f}, nm {j['nonMinimalShare']:.2f}{extra}"
        print(f"| {load} | {pattern} | {message} | " + " | ".join(cell(m) for m in modes) + f" | {best} |")

# (b) a victim alone and beside an aggressor, by placement and mode, over seeds
victim_modes = [m for m in ("ADAPTIVE_0", "ADAPTIVE_3", "app-aware") if m in sys.argv[4].split()]
placements = ("contiguous", "interleaved", "random")
run = "victim" in parts
victim_runs = []
for placement in placements if run else ():
    for mode in victim_modes:
        for seed in seeds:
            victim = f"name=victim,hosts=72,placement={placement},pattern=all-to-all,load=0.4,mode={mode},message=4KiB"
            victim_runs.append({"placement": placement, "mode": mode, "seed": int(seed), "company": "alone", **sim([victim], int(seed))})
            for load in aggressor_loads:
                aggressor = f"name=aggressor,hosts=270,placement=contiguous,pattern=random,load={load},mode=ADAPTIVE_0,message=4KiB"
                victim_runs.append({"placement": placement, "mode": mode, "seed": int(seed), "company": "aggressor " + load,
                                    **sim([victim, aggressor], int(seed))})
victim_runs = merged(f"{out}/victim.json", victim_runs, lambda r: (r["placement"], r["mode"], r["seed"], r["company"]),
                     lambda r: (placements.index(r["placement"]), mode_rank(r["mode"]), r["seed"], company_rank(r["company"])))
if run:
    json.dump(victim_runs, open(f"{out}/victim.json", "w"), indent=1)
print()
print("Victim's message completion time, mean / p99 (us), means over the seeds; slowdown against alone; the spread of the"
      " victim's mean message time over the seeds (min..max us); the victim's accepted load (of 0.40 offered) and"
      " non-minimal share of its packets.")
print()
print("| victim placement | victim mode | aggressor load | message mean / p99 (us) | slowdown (mean, p99) | "
      "spread over seeds (us) | victim accepted | victim non-minimal |")
print("|---|---|---:|---:|---:|---:|---:|---:|")
victim_modes = list(dict.fromkeys(r["mode"] for r in victim_runs))
for placement in ("contiguous", "interleaved", "random"):
    for mode in victim_modes:
        def pick(company):
            return [r["jobs"][0] for r in victim_runs if r["placement"] == placement and r["mode"] == mode and r["company"] == company]
        alone = pick("alone")
        am = statistics.mean(j["messageMeanNs"] for j in alone)
        ap = statistics.mean(j["messageP99Ns"] for j in alone)
        for company in ["alone"] + ["aggressor " + load for load in aggressor_loads]:
            got = pick(company)
            nm = statistics.mean(j["messageMeanNs"] for j in got)
            npp = statistics.mean(j["messageP99Ns"] for j in got)
            spread = [j["messageMeanNs"] for j in got]
            print(f"| {placement} | {mode} | {'-' if company == 'alone' else company.split()[1]} | {us(nm)} / {us(npp)} | "
                  f"{nm / am:.2f}x, {npp / ap:.2f}x | {us(min(spread))}..{us(max(spread))} | "
                  f"{statistics.mean(j['throughput'] for j in got):.3f} | {statistics.mean(j['nonMinimalShare'] for j in got):.2f} |")
# (c) the aggressor's mode beside an interleaved victim
run = "aggressor" in parts
mode_runs = []
for vmode in ("ADAPTIVE_0", "ADAPTIVE_3") if run else ():
    for amode in ("ADAPTIVE_0", "ADAPTIVE_3"):
        for load in aggressor_loads:
            for seed in seeds:
                victim = f"name=victim,hosts=72,placement=interleaved,pattern=all-to-all,load=0.4,mode={vmode},message=4KiB"
                aggressor = f"name=aggressor,hosts=270,placement=contiguous,pattern=random,load={load},mode={amode},message=4KiB"
                mode_runs.append({"victimMode": vmode, "aggressorMode": amode, "aggressorLoad": load, "seed": int(seed),
                                  **sim([victim, aggressor], int(seed))})
mode_runs = merged(f"{out}/aggressor.json", mode_runs, lambda r: (r["victimMode"], r["aggressorMode"], r["aggressorLoad"], r["seed"]),
                   lambda r: (mode_rank(r["victimMode"]), mode_rank(r["aggressorMode"]), float(r["aggressorLoad"]), r["seed"]))
if run:
    json.dump(mode_runs, open(f"{out}/aggressor.json", "w"), indent=1)
print()
print("The interleaved victim beside the aggressor by the aggressor's mode (means over the seeds; slowdown against the victim alone"
      " in the table above); the aggressor's accepted load and non-minimal share.")
print()
print("| victim mode | aggressor load | aggressor mode | victim message mean / p99 (us) | victim slowdown (mean, p99) | "
      "aggressor accepted | aggressor non-minimal |")
print("|---|---:|---|---:|---:|---:|---:|")
for vmode in ("ADAPTIVE_0", "ADAPTIVE_3"):
    alone = [r["jobs"][0] for r in victim_runs if r["placement"] == "interleaved" and r["mode"] == vmode and r["company"] == "alone"]
    am = statistics.mean(j["messageMeanNs"] for j in alone)
    ap = statistics.mean(j["messageP99Ns"] for j in alone)
    for load in aggressor_loads:
        for amode in ("ADAPTIVE_0", "ADAPTIVE_3"):
            got = [r for r in mode_runs if r["victimMode"] == vmode and r["aggressorMode"] == amode and r["aggressorLoad"] == load]
            v = [r["jobs"][0] for r in got]
            a = [r["jobs"][1] for r in got]
            nm = statistics.mean(j["messageMeanNs"] for j in v)
            npp = statistics.mean(j["messageP99Ns"] for j in v)
            print(f"| {vmode} | {load} | {amode} | {us(nm)} / {us(npp)} | {nm / am:.2f}x, {npp / ap:.2f}x | "
                  f"{statistics.mean(j['throughput'] for j in a):.3f} | {statistics.mean(j['nonMinimalShare'] for j in a):.2f} |")
PY
