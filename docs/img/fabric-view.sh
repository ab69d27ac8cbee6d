#!/usr/bin/env bash
# Takes docs/img/fabric-view.png, the README's screenshot of the fabric view: headless chromium's
# --screenshot of the page a running main job serves, one leaf up-link selected.
#   bin/fabric-manager --emulate fat-tree:k=4,levels=3     # the README's main job, in another terminal
#   docs/img/fabric-view.sh [METRICS_PORT]                 # default 9464
set -euo pipefail
port=${1:-9464}
out="$(cd "$(dirname "$0")" && pwd)/fabric-view.png"
home=$(mktemp -d)
trap 'rm -rf "$home"' EXIT
# the perf manager has polled (utilisation known) once /api/load counts polled ports
for _ in $(seq 120); do
  curl -sf "http://localhost:$port/api/load" | grep -q '"polled":[1-9]' && break
  sleep 1
done
HOME=$home XDG_CONFIG_HOME=$home/config chromium --headless --no-sandbox --disable-gpu --no-first-run \
  --user-data-dir="$home/profile" --window-size=1600,900 --hide-scrollbars --virtual-time-budget=5000 \
  --screenshot="$out" "http://localhost:$port/#link=L1_0_0_0:5" 2>/dev/null
echo "wrote $out"
