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
fi
# A short-lived command (CDS=1, fabricctl) starts from a class-data archive of its own classes,
# written by its first run after each build, and a daemon verb compiles with C1 only: most of its
# time is loading and interpreting some four thousand classes, not its work (docs/benchmarks.md).
# Offline routing (route --topology, torus-study) keeps the optimising compiler: it computes. The
# archive's notes on classes it cannot hold (old class files, JFR events) are silenced.
if [ "${CDS:-0}" = 1 ]; then
  archive="${jar%.jar}.jsa"
  jit="-XX:TieredStopAtLevel=1"
  case " $* " in *" --topology "*|*" --topology="*|" torus-study "*) jit="" ;; esac
  if [ -f "$archive" ] && [ "$archive" -nt "$jar" ]; then
    exec java -XX:SharedArchiveFile="$archive" -Xlog:cds*=off $jit ${JAVA_OPTS:-} -jar "$jar" "$@"
  fi
  # written beside, then moved into place: two first runs at once cannot leave half an archive
  rc=0
  java -XX:ArchiveClassesAtExit="$archive.$$" -Xlog:cds*=off $jit ${JAVA_OPTS:-} -jar "$jar" "$@" || rc=$?
  if [ -s "$archive.$$" ]; then mv -f "$archive.$$" "$archive"; else rm -f "$archive.$$"; fi
  exit "$rc"
fi
exec java ${JAVA_OPTS:-} -jar "$jar" "$@"
