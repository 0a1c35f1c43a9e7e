#!/usr/bin/env bash
# ThreadSanitizer pass over the code that runs threads: builds (build dir build-tsan,
# -DDAGADVISOR_SANITIZE=thread) the unit tests of common (cancellation), sources (HTTP client
# and loopback servers), ingestion (the parallel fetch), server (workers, read deadlines, the
# published-analysis store) and app (analysis cycles), plus the daemon, and runs those unit
# tests and the e2e tests of the daemon loop (cycles, SIGTERM/reload cancellation, slow
# clients). Any TSan report fails the pass; reports are kept in build-tsan/tsan-reports/.
# Not part of scripts/test.sh: it rebuilds every stage once more (see README "Tests").
# Usage: scripts/tsan.sh [JOBS]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
"$ROOT/scripts/setup.sh"
JOBS=${1:-$(nproc)}
BUILD=build-tsan
UNITS=(unit_common unit_sources unit_ingestion unit_server unit_app)
E2E='^e2e\.(daemon_default_scenario|daemon_operations|stop_deadline|slow_clients)$'

start=$(date +%s)
echo "== build $BUILD (ThreadSanitizer)"
cmake -S . -B "$BUILD" -G Ninja -DDAGADVISOR_WERROR=ON -DDAGADVISOR_SANITIZE=thread \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" >/dev/null
cmake --build "$BUILD" -j"$JOBS" --target "${UNITS[@]}" dagadvisor
built=$(date +%s)

REPORTS="$ROOT/$BUILD/tsan-reports"
rm -rf "$REPORTS" && mkdir -p "$REPORTS"
# Reports go to files (one per process), so races in the daemon that e2e scripts run are seen
# even where a script ignores the daemon's exit code. second_deadlock_stack names both locks.
# tests/tsan.supp: races inside uninstrumented system libraries (fontconfig under graphviz).
export TSAN_OPTIONS="log_path=$REPORTS/tsan second_deadlock_stack=1 history_size=4"
TSAN_OPTIONS+=" suppressions=$ROOT/tests/tsan.supp"
failed=0
for unit in "${UNITS[@]}"; do
  echo "== $unit"
  (cd "$BUILD/tests/unit" && "./$unit" --reporter compact) || failed=1
done
echo "== e2e tests of the daemon loop"
(cd "$BUILD" && ctest -R "$E2E" --output-on-failure --timeout 300) || failed=1
end=$(date +%s)

reports=$(find "$REPORTS" -type f | wc -l)
echo "== ThreadSanitizer: build $((built - start)) s, tests $((end - built)) s, $reports report file(s)"
if [ "$reports" -ne 0 ]; then
  grep -h -A3 '^WARNING: ThreadSanitizer' "$REPORTS"/* | head -60
  failed=1
fi
[ "$failed" -eq 0 ] && echo "== tsan passed" || echo "== tsan FAILED"
exit "$failed"
