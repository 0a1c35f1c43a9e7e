#!/usr/bin/env bash
# Re-records the bundled default scenario (config/scenarios/default/) from the simulator's seed
# scenario, through a real Prometheus: simulate → OpenMetrics → promtool blocks → Prometheus →
# `dagadvisor snapshot record` at the ground truth's suggested analysis time.
# Usage: scripts/record-default-scenario.sh [BUILD_DIR]   (after a build)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
OUT=$ROOT/config/scenarios/default
source "$ROOT/tests/integration/prometheus_harness.sh"

"$BUILD/tools/simulator/dagadvisor-sim" generate --scenario "$ROOT/config/scenarios/seed.yaml" \
  --out "$WORK_DIR/sim" >/dev/null
start_prometheus_with_openmetrics "$WORK_DIR/sim/metrics.om"
AT=$(jq -r .suggested_analysis_time "$WORK_DIR/sim/ground_truth.json")
"$BUILD/src/dagadvisor" snapshot record --prometheus "$PROM_URL" --at "$AT" --out "$WORK_DIR/snapshot"
rm -rf "$OUT"
mv "$WORK_DIR/snapshot" "$OUT"
# The planted truth, without the per-task timeline (kept small enough to read).
jq 'del(.runs[].tasks)' "$WORK_DIR/sim/ground_truth.json" >"$OUT/ground_truth.json"
echo "recorded $OUT at $AT"
