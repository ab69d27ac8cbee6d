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
    if [ -n "$(find "$root/$d/src" "$root/$d/pom.xml" -newer "$jar" -print -quit 2>/dev/null)" ]; then
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
  # the build may leave an up-to-date jar as it was (a change to tests only): it is current now
  touch "$jar"
fi
# A short-lived command (CDS=1, fabricctl) starts from a class-data archive of its own classes and
# runs with C1 only, the serial collector and no perf-data file: a daemon verb is over in a few
# tenths of a second, most of them loading and interpreting classes (docs/benchmarks.md). Offline
# routing (route --topology, torus-study) keeps the optimising compiler and the default collector:
# it computes, on both cores. The archive is written at the exit of the first daemon verb after
# each build, so it holds what those verbs load (an offline verb would train it on the wrong
# classes); its notes on classes it cannot hold (old class files, JFR events) are silenced.
if [ "${CDS:-0}" = 1 ]; then
  archive="${jar%.jar}.jsa"
  quick="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData"
  case " $* " in *" --topology "*|*" --topology="*|*" torus-study "*) quick="" ;; esac
  if [ -f "$archive" ] && [ "$archive" -nt "$jar" ]; then
    exec java -XX:SharedArchiveFile="$archive" -Xlog:cds*=off $quick ${JAVA_OPTS:-} -jar "$jar" "$@"
  fi
  # a daemon verb (route and topology without --topology) writes the archive; others only run
  daemon_verb=0
  case "${1:-}" in status|sweep|job|engine|tables|counters|route|topology) [ -n "$quick" ] && daemon_verb=1 ;; esac
  if [ "$daemon_verb" = 0 ]; then
    exec java $quick ${JAVA_OPTS:-} -jar "$jar" "$@"
  fi
  # written beside, then moved into place: two first runs at once cannot leave half an archive
  rc=0
  java -XX:ArchiveClassesAtExit="$archive.$$" -Xlog:cds*=off $quick ${JAVA_OPTS:-} -jar "$jar" "$@" || rc=$?
  if [ -s "$archive.$$" ]; then mv -f "$archive.$$" "$archive"; else rm -f "$archive.$$"; fi
  exit "$rc"
fi
exec java ${JAVA_OPTS:-} -jar "$jar" "$@"
