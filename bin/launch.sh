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
exec java ${JAVA_OPTS:-} -jar "$jar" "$@"
