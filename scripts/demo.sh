#!/usr/bin/env bash
# Sets up, builds, prints the analysis of the bundled default scenario (the seed's story:
# GPU nodes held by log collectors and small services while GPU training tasks pend), then
# serves it: API, /metrics and health checks on 127.0.0.1:9731 until Ctrl-C.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
"$ROOT/scripts/setup.sh"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" --target dagadvisor
SCENARIO=config/scenarios/default
LISTEN=${DAGADVISOR_LISTEN:-127.0.0.1:9731}

./build/src/dagadvisor analyze --snapshot "$SCENARIO"
cat <<INFO

dagadvisor is now serving the same analysis (Ctrl-C to stop):
  http://$LISTEN/api/v1/recommendations   recommendations with evidence and YAML patches
  http://$LISTEN/api/v1/dags              workflow runs, critical paths, efficiency
  http://$LISTEN/metrics                  its Prometheus metrics
  http://$LISTEN/readyz                   ready / stale, with the reason
Try:
  curl -s http://$LISTEN/api/v1/recommendations | jq '.recommendations[] | {title, impact}'

INFO
exec ./build/src/dagadvisor serve --snapshot "$SCENARIO" --listen "$LISTEN"
