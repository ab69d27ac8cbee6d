#!/usr/bin/env bash
# Shared by the launchers in bin/: runs MODULE's shaded jar, building it first when it is missing
# or older than the sources it is made from. Sourced with MODULE and DEPS (space-separated
# module directories the jar is built from) set.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# the project's version, from the root POM (the first <version> at the project's own level)
version="$(sed -n 's:^  <version>\(.*\)</version>.*:\1:p' "$root/pom.xml" | head -n 1)"
[ -n "$version" ] || { echo "$(basename "$0"): cannot read the project's <version> from $root/pom.xml" >&2; exit 3; }
jar="$root/$MODULE/target/$MODULE-$version-all.jar"
stale=""
if [ ! -f "$jar" ]; then
  stale="missing"
else
  for d in $DEPS; do
    if [ -n "$(find "$root/$d/src/main" "$root/$d/pom.xml" -newer "$jar" -print -quit 2>/dev/null)" ]; then
      stale="older than the sources in $d"; break
    fi
  done
  [ -z "$stale" ] && [ "$root/pom.xml" -nt "$jar" ] && stale="older than pom.xml"
fi
if [ -n "$stale" ]; then
  echo "$(basename "$0"): building $MODULE ($MODULE/target/*.jar is $stale): ./mvnw -q -DskipTests -pl $MODULE -am package" >&2
  # the wrapper, not a system mvn: the build needs Maven 3.9.6+ (the enforcer says so)
  (cd "$root" && ./mvnw -q -B -ntp -DskipTests -pl "$MODULE" -am package >&2) || {
    echo "$(basename "$0"): the build failed; run './mvnw -DskipTests -pl $MODULE -am package' in $root to see why" >&2
    exit 3
  }
fi
# A short-lived command (CDS=1, fabricctl) starts from the class-data archive its build writes
# beside the jar (fabricctl/pom.xml says how) and runs with C1 only: a daemon verb is over in a few
# tenths of a second, most of them loading and interpreting classes (docs/benchmarks.md; the serial
# collector and -XX:-UsePerfData were tried and saved nothing measurable). Offline routing (route
# --topology, torus-study) keeps the optimising compiler: it computes. An archive older than the
# jar, or one this JVM cannot use (another JDK), is passed over: the command runs without it.
if [ "${CDS:-0}" = 1 ]; then
  archive="${jar%.jar}.jsa"
  quick="-XX:TieredStopAtLevel=1"
  case " $* " in *" --topology "*|*" --topology="*|*" torus-study "*) quick="" ;; esac
  share=""
  if [ -f "$archive" ] && ! [ "$jar" -nt "$archive" ]; then share="-XX:SharedArchiveFile=$archive -Xlog:cds*=off"; fi
  exec java $share $quick ${JAVA_OPTS:-} -jar "$jar" "$@"
fi
# A simulator (HUGE_PAGES=1: the emulator) reaches its state all over the heap, a few cache lines
# here and there per event (a packet's header, its router's queues, the event queue): on 2 MB pages
# the TLB covers what 4 KB pages make it miss, about a tenth fewer CPU-seconds on the 1,056-node
# Dragonfly (docs/benchmarks.md). Only where the kernel gives transparent huge pages on request (or
# always): elsewhere the flag would print a warning.
huge=""
if [ "${HUGE_PAGES:-0}" = 1 ] && grep -qs '\[always\]\|\[madvise\]' /sys/kernel/mm/transparent_hugepage/enabled; then
  huge="-XX:+UseTransparentHugePages"
fi
exec java $huge ${JAVA_OPTS:-} -jar "$jar" "$@"
