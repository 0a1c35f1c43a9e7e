#!/usr/bin/env bash
# What a full read and a steady-state incremental read cost a real Prometheus (issue #18):
# backfills a scenario written over a long window (default: a tenth of the reference cluster
# over one hour of scrapes, see below), then reads it with the incremental reader — one full
# read, then window reads 60 s apart, as the daemon's default interval — and reports per read
# the Prometheus process's CPU seconds and RSS growth (from /proc), the bytes, series and
# Prometheus' own eval time and samples (stats=all), with --costs one line per query; then the
# same for the daemon's periodic resync (a full read that keeps the usage), and a comparison run
# checks every read against a fresh full read of the same moment.
# Usage: [USAGE_RULES=1] [STALENESS_MARKERS=1] [NO_GZIP=1] scripts/bench-incremental.sh [SCENARIO_YAML]
#          [WORK_DIR] [BUILD_DIR]
# USAGE_RULES=1 first records the mixin's rules over the written window (promtool, every 5 min)
# and reads usage from them (sources.prometheus.usage_from_recording_rules).
# STALENESS_MARKERS=1 tells live pods by an instant selection (sources.prometheus.
# staleness_markers): what it costs, since a backfill has no markers (recently deleted pods
# then count as live, on both sides of the comparison run).
# NO_GZIP=1 asks for plain answers (sources.prometheus.gzip: false).
# The default scenario is config/scenarios/scale.yaml cut to a tenth (500 nodes, 15,000 pods)
# and written from simulated 2 h to 3 h: the reference `scale` scenario writes only 2 minutes,
# in which every pod of the lookback is alive, so no window could be smaller than the lookback.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${2:-/tmp/dagadvisor-bench-incremental}
BUILD=${3:-build}
mkdir -p "$WORK"
SCENARIO=${1:-$WORK/scale-tenth-hour.yaml}
if [ -z "${1:-}" ]; then
  sed -e 's/^name: scale$/name: scale-tenth-hour/' -e 's/count: 3000,/count: 300,/' \
      -e 's/count: 1200,/count: 120,/' -e 's/count: 800,/count: 80,/' \
      -e 's/replicas: 2000/replicas: 200/' -e 's/every: 24, count: 750/every: 240, count: 75/' \
      -e 's/window_start: 10800/window_start: 7200/' -e 's/window_end: 10920/window_end: 10800/' \
      config/scenarios/scale.yaml >"$SCENARIO"
fi
cmake --build "$BUILD" --target incremental_equals_full dagadvisor-sim >/dev/null
CHECK=$ROOT/$BUILD/tests/integration/incremental_equals_full
SIM=$ROOT/$BUILD/tools/simulator/dagadvisor-sim
[ -f "$WORK/sim/metrics.om" ] || "$SIM" generate --scenario "$SCENARIO" --out "$WORK/sim"

source tests/integration/prometheus_harness.sh
SECONDS=0
start_prometheus_with_openmetrics "$WORK/sim/metrics.om"
echo "== backfilled $(du -sh "$WORK/sim/metrics.om" | cut -f1) of OpenMetrics; Prometheus ready in ${SECONDS} s"
end=$(jq '.window.end' "$WORK/sim/ground_truth.json")
FLAGS=()
if [ -n "${USAGE_RULES:-}" ]; then
  SECONDS=0
  backfill_recording_rules alerts/dagadvisor.rules.yml "$(jq '.window.start' "$WORK/sim/ground_truth.json")" "$end" 5m
  echo "== recorded the mixin's rules in ${SECONDS} s; usage read from them"
  FLAGS=(--usage-from-rules)
fi
[ -z "${STALENESS_MARKERS:-}" ] || FLAGS+=(--staleness-markers)
[ -z "${NO_GZIP:-}" ] || FLAGS+=(--no-gzip)
t0=$((end - 600))
times=("$t0")
for k in 1 2 3 4 5; do times+=($((t0 + 60 * k))); done
echo "== incremental reader alone: a full read, then 5 window reads 60 s apart (lookback 6 h," \
  "margin 6 min, usage every 15 min)"
"$CHECK" --costs --no-compare --prometheus-pid "$PROM_PID" "${FLAGS[@]}" "$PROM_URL" 21600 360 900 "${times[@]}"
echo "== the daemon's hourly resync: a full read 20 min earlier, then a resync's full read at the" \
  "same time as above (usage kept: read less than usage_refresh ago) and a window"
"$CHECK" --costs --no-compare --resync 600 --prometheus-pid "$PROM_PID" "${FLAGS[@]}" "$PROM_URL" \
  21600 360 7200 $((t0 - 1200)) "$t0" $((t0 + 60)) | grep -E '^prometheus|^t='
echo "== the same reads, each compared with a fresh full read of the same moment"
"$CHECK" "${FLAGS[@]}" "$PROM_URL" 21600 360 900 "${times[@]}" | grep -E '^t=|window_reads'
