#!/usr/bin/env bash
# Routing time and peak heap of minhop and updn on the fabrics of docs/benchmarks.md: each run a
# fresh JVM, REPS repetitions, cold (no warm-up) and warm (--warmup-runs 5); one JSON report per run.
# Usage (from any directory): JAVA_OPTS=-Xmx8g bench/routing.sh [REPS] > results.jsonl
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
reps="${1:-3}"
for topo in rlft:leaves=36,spines=18,hosts=18 fat-tree:k=18,levels=3 torus:10x10x10,hosts=2; do
  for engine in minhop updn; do
    for warmup in 0 5; do
      for r in $(seq "$reps"); do
        "$root/bin/fabricctl" route --topology "$topo" --engine "$engine" --warmup-runs "$warmup" --json
      done
    done
  done
done
