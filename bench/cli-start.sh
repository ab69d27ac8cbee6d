#!/usr/bin/env bash
# Wall time of `fabricctl status` against a running daemon, cold and warm, beside the floor of the
# same machine at the same moment (`java -version`: a JVM that starts and exits). Starts its own
# daemon (the README's main job: fat-tree:k=4,levels=3 with its default traffic, on ports picked
# free), then runs ROUNDS rounds, each variant once per round in turn so that the machine's load
# falls on all alike, and prints each variant's runs and median in seconds.
#   warm   bin/fabricctl status, its class-data archive written
#   cold   bin/fabricctl status, first run after a build (no archive: this run writes it)
#   fresh  the jar in a fresh JVM with the launcher's flags, no archive, none written
#   floor  java -version
# With OLD.jar (a build from before, e.g. `git stash; ./mvnw -DskipTests -pl fabricctl -am package`
# and a copy of fabricctl/target/fabricctl-*-all.jar), also old-warm and old-cold: that jar as the
# launcher ran it then (C1, its own archive, written by its first run).
# Usage: bench/cli-start.sh [ROUNDS] [OLD.jar]     TRAFFIC=none for a quiet daemon.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-7}"
old="${2:-}"
work="$(mktemp -d)"
trap 'kill "$daemon" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

"$root/bin/fabricctl" --version >/dev/null   # builds the jar if it is stale
jar="$(ls "$root"/fabricctl/target/fabricctl-*-all.jar)"
archive="${jar%.jar}.jsa"
"$root/bin/fabric-manager" --emulate fat-tree:k=4,levels=3 --traffic "${TRAFFIC:-uniform}" --admin-port 0 --metrics-port 0 \
  --state-dir "$work" >"$work/daemon.log" 2>&1 &
daemon=$!
until port="$(sed -n 's/.*admin gRPC on port \([0-9]*\).*/\1/p' "$work/daemon.log")" && [ -n "$port" ]; do
  kill -0 "$daemon" 2>/dev/null || { cat "$work/daemon.log" >&2; exit 3; }
  sleep 0.2
done
until "$root/bin/fabricctl" status --server "localhost:$port" 2>/dev/null | grep -q "^state  *UP"; do sleep 0.5; done

# seconds taken by one run of the command
took() {
  local s e
  s=$(date +%s%N)
  "$@" >/dev/null 2>&1 || { echo "failed: $*" >&2; exit 3; }
  e=$(date +%s%N)
  echo "$(( (e - s) / 1000000 ))" | awk '{printf "%.3f", $1 / 1000}'
}
quick="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData"
declare -A runs
variants="floor fresh cold warm"
[ -n "$old" ] && variants="$variants old-cold old-warm"
for r in $(seq "$rounds"); do
  for v in $variants; do
    case "$v" in
      floor) t=$(took java -version) ;;
      fresh) t=$(took java $quick -jar "$jar" status --server "localhost:$port") ;;
      cold) rm -f "$archive"; t=$(took "$root/bin/fabricctl" status --server "localhost:$port") ;;
      warm) t=$(took "$root/bin/fabricctl" status --server "localhost:$port") ;;
      old-cold) rm -f "$work/old.jsa"
        t=$(took java -XX:ArchiveClassesAtExit="$work/old.jsa" -Xlog:cds*=off -XX:TieredStopAtLevel=1 -jar "$old" status --server "localhost:$port") ;;
      old-warm) t=$(took java -XX:SharedArchiveFile="$work/old.jsa" -Xlog:cds*=off -XX:TieredStopAtLevel=1 -jar "$old" status --server "localhost:$port") ;;
    esac
    runs[$v]="${runs[$v]:-} $t"
  done
done
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1), daemon traffic ${TRAFFIC:-uniform}"
for v in $variants; do
  median=$(echo ${runs[$v]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
  echo "$v median $median s; runs:${runs[$v]}"
done
