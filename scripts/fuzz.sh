#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz, clang, build dir build-fuzz) and runs each one on its
# seed corpus for SECONDS (default 120), one after the other on one core, then prints the
# executions per target. A crash, leak, UB or broken check stops that target, leaves the input
# in build-fuzz/artifacts/ and makes the script exit 1 after the others ran.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets by parser name, e.g. gzip exposition)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
SECONDS_EACH=${1:-120}
shift || true
BUILD=build-fuzz
"$ROOT/scripts/fuzz-build.sh" "$BUILD"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for exe in "$BUILD"/tests/fuzz/*_fuzz; do
    name=$(basename "$exe")
    targets+=("${name%_fuzz}")
  done
fi
mkdir -p "$BUILD/artifacts" "$BUILD/logs"
failed=0
summary=()
for t in "${targets[@]}"; do
  log="$BUILD/logs/$t.log"
  echo "== fuzz $t for ${SECONDS_EACH}s"
  rc=0
  "$BUILD/tests/fuzz/${t}_fuzz" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$BUILD/artifacts/$t-" \
    "$BUILD/tests/fuzz/corpus/$t" >"$log" 2>&1 || rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  corpus=$(ls "$BUILD/tests/fuzz/corpus/$t" | wc -l)
  result=ok
  if [ "$rc" -ne 0 ]; then
    result="FAILED (rc $rc, see $log)"
    failed=1
  fi
  summary+=("$(printf '%-20s %12s execs  %6s corpus files  %s' "$t" "${execs:-?}" "$corpus" "$result")")
done
echo "== executions per target (${SECONDS_EACH}s each)"
printf '%s\n' "${summary[@]}"
exit "$failed"
