#!/usr/bin/env bash
# One analysis cycle of the reference cluster (SPEC §6: 5,000 nodes, 150,000 pods) from a recorded
# snapshot. Generates the `scale` scenario, backfills a real Prometheus with it, records a snapshot
# at the scenario's analysis time, then times
#   - `analyze --snapshot` three times: a fresh process, so every page is touched for the first time;
#   - `serve --snapshot` for 30 s: the daemon's steady cycles (stage times from its debug log).
# The snapshot is kept in WORK_DIR and re-recorded only when the query texts change.
# Usage: scripts/bench-cycle.sh [WORK_DIR]   (first run ~8 min and ~7 GB RAM for the backfill)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
WORK=${1:-/tmp/dagadvisor-bench-cycle}
BUILD=build-release
mkdir -p "$WORK"
# As in the container image: glibc backs large allocations with transparent huge pages.
export GLIBC_TUNABLES=${GLIBC_TUNABLES-glibc.malloc.hugetlb=1}

scripts/setup.sh >/dev/null
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDAGADVISOR_BUILD_TESTS=OFF >/dev/null
cmake --build "$BUILD" --target dagadvisor dagadvisor-sim
DAGADVISOR=$ROOT/$BUILD/src/dagadvisor
SIM=$ROOT/$BUILD/tools/simulator/dagadvisor-sim

snapshot_current() {
  [ -f "$WORK/snap/manifest.json" ] &&
    "$DAGADVISOR" analyze --snapshot "$WORK/snap" -o json >/dev/null 2>"$WORK/check.log"
}

if ! snapshot_current; then
  [ -f "$WORK/sim/metrics.om" ] || "$SIM" generate --scenario config/scenarios/scale.yaml --out "$WORK/sim"
  (
    source tests/integration/prometheus_harness.sh
    start_prometheus_with_openmetrics "$WORK/sim/metrics.om"
    rm -rf "$WORK/snap"
    "$DAGADVISOR" snapshot record --prometheus "$PROM_URL" \
      --at "$(jq -r .suggested_analysis_time "$WORK/sim/ground_truth.json")" --out "$WORK/snap"
  )
fi
echo "snapshot: $(du -sh "$WORK/snap" | cut -f1), $(jq '.queries | length' "$WORK/snap/manifest.json") queries"

echo "== analyze --snapshot (fresh process; wall, CPU, peak RSS)"
for _ in 1 2 3; do
  /usr/bin/time -f "%e s wall, %U s user, %S s sys, %M kB peak" \
    "$DAGADVISOR" analyze --snapshot "$WORK/snap" -o json --log-level debug 2>&1 >/dev/null |
    grep -E "cycle stages|wall" | sed -E 's/.*msg="cycle stages \(ms\)"/  stages (ms):/; s/^[0-9]/  &/'
done

echo "== serve --snapshot (steady cycles, every 2 s for 30 s)"
"$DAGADVISOR" serve --snapshot "$WORK/snap" --interval 2s --listen 127.0.0.1:0 --log-level debug \
  2>"$WORK/serve.log" >/dev/null &
PID=$!
sleep 30
grep VmHWM "/proc/$PID/status" | sed 's/^/  /'
kill "$PID"
wait "$PID" || true
grep "cycle stages" "$WORK/serve.log" | sed -E 's/.*msg="cycle stages \(ms\)"/  stages (ms):/'
