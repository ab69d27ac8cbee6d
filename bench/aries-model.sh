#!/usr/bin/env bash
# The application-aware routing paper's performance model checked against the simulator (De Sensi
# et al., SC'19, section 2.4, Equation 2): a message of p packets and f flits takes about
# L + f (s + 1) NIC cycles, L the packet latency and s the stall cycles per flit that the NIC
# counters give. The paper validated it on a ping-pong over 40 allocations (79% correlation over
# message sizes from 128 B to 16 MiB). Here: a two-host job exchanging messages (allreduce-ring of
# two ranks: each sends to the other) at load 0.2 of its links, placed at random by the seed, beside
# an aggressor of 200 random hosts sending 4 KiB messages to random ranks at load 0, 0.3 or 0.6 (so
# that the latency and the stalls vary); message sizes 256 B, 4 KiB, 64 KiB; seeds 1..SEEDS. Each
# run's job report gives the measured mean message time (creation to the last packet's delivery)
# and modelMessageNs = L + p t + f s (L the job's packets' network latency, t a frame's time on the
# link, s its hosts' credit waits per request flit). Prints, per message size, the Pearson
# correlation between model and measurement over the runs and the mean relative error.
# The fabric and engine are bench/noise.sh's (342-host Dragonfly, PAR, 100 Gb/s, 5 lanes of 32).
# Usage (from any directory): bench/aries-model.sh [DURATION] [SEEDS]   (defaults: 200us, 5; ~3 min)
# Writes docs/data/noise/model.json.
set -euo pipefail
cd "$(dirname "$(readlink -f "$0")")/.."
duration=${1:-200us}
seeds=${2:-5}
bin/emulator --version > /dev/null
jar="$(mktemp -d)/emulator.jar"
cp emulator/target/emulator-*-all.jar "$jar"
python3 - "$duration" "$seeds" "$jar" <<'PY'
import json, statistics, subprocess, sys
duration, seeds, jar = sys.argv[1], int(sys.argv[2]), sys.argv[3]
base = ["java", "-XX:+UseTransparentHugePages", "-jar", jar, "sim", "--topology",
        "dragonfly:p=3,a=6,h=3,local-latency=30ns,global-latency=300ns", "--engine", "df-par", "--vls", "5",
        "--buffer", "32", "--duration", duration, "--json"]
runs = []
for size in (256, 4096, 65536):
    for noise in (0, 0.3, 0.6):
        for seed in range(1, seeds + 1):
            cmd = base + ["--seed", str(seed), "--job",
                          f"name=pp,hosts=2,placement=random,pattern=allreduce-ring,load=0.2,message={size}"]
            if noise > 0:
                cmd += ["--job", f"name=noise,hosts=200,placement=random,pattern=random,load={noise},message=4096"]
            report = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
            pp = report["jobs"][0]
            runs.append({"messageBytes": size, "noiseLoad": noise, "seed": seed, "command": " ".join(cmd[4:]),
                         "messagesCompleted": pp["messagesCompleted"], "messageMeanNs": pp["messageMeanNs"],
                         "modelMessageNs": pp["modelMessageNs"], "networkLatencyMeanNs": pp["networkLatencyMeanNs"],
                         "stallNsPerFlit": pp["stallNsPerFlit"]})
json.dump(runs, open("docs/data/noise/model.json", "w"), indent=1)
print("| message | runs | measured mean (us), min..max | model (us), min..max | Pearson r | mean relative error |")
print("|---:|---:|---|---|---:|---:|")
for size in (256, 4096, 65536):
    rs = [r for r in runs if r["messageBytes"] == size and r["messagesCompleted"] > 0]
    m = [r["messageMeanNs"] / 1000 for r in rs]
    e = [r["modelMessageNs"] / 1000 for r in rs]
    corr = statistics.correlation(m, e) if len(rs) > 2 and statistics.pstdev(m) > 0 and statistics.pstdev(e) > 0 else float("nan")
    err = statistics.mean(abs(a - b) / a for a, b in zip(m, e))
    print(f"| {size} B | {len(rs)} | {statistics.mean(m):.2f}, {min(m):.2f}..{max(m):.2f} | {statistics.mean(e):.2f}, {min(e):.2f}..{max(e):.2f} "
          f"| {corr:.2f} | {err * 100:.0f}% |")
PY
