#!/usr/bin/env bash
# Wall time of `fabricctl status` against a running daemon, cold and warm, beside the floor of the
# same machine at the same moment (`java -version`: a JVM that starts and exits). Starts its own
# daemon (the README's main job: fat-tree:k=4,levels=3 with its default traffic, on ports picked
# free), then runs ROUNDS rounds, each variant once per round in turn so that the machine's load
# falls on all alike, and prints each variant's runs and median in seconds.
#   floor       java -version
#   cold        bin/fabricctl status with the jar and its class-data archive dropped from the page
#               cache first (posix_fadvise DONTNEED on those two files only): the first run after a
#               build that the disk must serve
#   warm        bin/fabricctl status
#   no-archive  the jar in a fresh JVM with the launcher's flags but no archive (a JDK the archive
#               was not made for)
# With OLD.jar (a build from before, e.g. `git stash; ./mvnw -DskipTests -pl fabricctl -am package`
# and a copy of fabricctl/target/fabricctl-*-all.jar), also old-cold and old-warm: that jar as the
# launcher ran it then (C1; the first run after a build dumped a dynamic archive at exit, the
# following runs started from it).
# Usage: bench/cli-start.sh [ROUNDS] [OLD.jar]     TRAFFIC=none for a quiet daemon.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
rounds="${1:-7}"
old="${2:-}"
work="$(mktemp -d)"
trap 'kill "$daemon" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

"$root/bin/fabricctl" --version >/dev/null   # builds the jar and its archive if they are stale
jar="$(ls "$root"/fabricctl/target/fabricctl-*-all.jar)"
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
# drops these files' pages from the page cache (theirs only)
uncache() {
  python3 -c 'import os, sys
for f in sys.argv[1:]:
    if os.path.exists(f):
        fd = os.open(f, os.O_RDONLY); os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED); os.close(fd)' "$@"
}
declare -A runs
variants="floor cold warm no-archive"
[ -n "$old" ] && variants="$variants old-cold old-warm"
status=(status --server "localhost:$port")
for r in $(seq "$rounds"); do
  for v in $variants; do
    case "$v" in
      floor) t=$(took java -version) ;;
      cold) uncache "$jar" "${jar%.jar}.jsa"; t=$(took "$root/bin/fabricctl" "${status[@]}") ;;
      warm) t=$(took "$root/bin/fabricctl" "${status[@]}") ;;
      no-archive) t=$(took java -XX:TieredStopAtLevel=1 -jar "$jar" "${status[@]}") ;;
      old-cold) rm -f "$work/old.jsa"; uncache "$old"
        t=$(took java -XX:ArchiveClassesAtExit="$work/old.jsa" -Xlog:cds*=off -XX:TieredStopAtLevel=1 -jar "$old" "${status[@]}") ;;
      old-warm) t=$(took java -XX:SharedArchiveFile="$work/old.jsa" -Xlog:cds*=off -XX:TieredStopAtLevel=1 -jar "$old" "${status[@]}") ;;
    esac
    runs[$v]="${runs[$v]:-} $t"
  done
done
echo "# $(date -u +%FT%TZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(java -version 2>&1 | head -1), daemon traffic ${TRAFFIC:-uniform}"
for v in $variants; do
  median=$(echo ${runs[$v]} | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}')
  echo "$v median $median s; runs:${runs[$v]}"
done
