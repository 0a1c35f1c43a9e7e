#!/usr/bin/env bash
# Golden files of the bundled scenario: the JSON report and the text table of `analyze`, and the
# daemon's /metrics after its first cycle, compared line by line with tests/golden/default/. What
# changes from run to run (wall-clock times, durations, the version) reads "<varies>", and the
# samples of each /metrics family are sorted (queries answer in any order). A difference fails
# with the diff. An intended change is taken with --update, and its diff reviewed with the code.
# Args: [--update] DAGADVISOR_BINARY
set -euo pipefail
UPDATE=""
if [ "${1:-}" = --update ]; then
  UPDATE=1
  shift
fi
DAGADVISOR=$(realpath "$1")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
GOLDEN=$ROOT/tests/golden/default
source "$ROOT/tests/integration/prometheus_harness.sh"
cd "$ROOT" # the reports name the snapshot by the path they were given
SCENARIO=config/scenarios/default

json_report() {
  "$DAGADVISOR" analyze --snapshot "$SCENARIO" --output json | jq '
    .analysis_seconds = "<varies>" | .data_age_seconds = "<varies>" | .generated_at = "<varies>"
    | .detectors[].seconds = "<varies>"
    | .recommendations[] |= (.first_seen = "<varies>" | .last_seen = "<varies>")
    | if .prediction then .prediction.seconds = "<varies>" else . end'
}

text_report() {
  "$DAGADVISOR" analyze --snapshot "$SCENARIO" |
    sed -E 's/generated [0-9TZ:-]+ in [0-9.]+ ?[a-z]+/generated <varies> in <varies>/'
}

# The exposition with each family's samples sorted, and the values that vary replaced.
normalise_metrics() {
  awk '
    function flush() { close("sort") }
    /^# HELP / { flush() }
    /^#/ { print; next }
    {
      name = $1; sub(/\{.*/, "", name)
      if (name ~ /^dagadvisor_(last_successful_cycle_timestamp_seconds|data_age_seconds|detector_duration_seconds|cycle_duration_seconds_(bucket|sum))$/)
        $NF = "<varies>"
      if (name == "dagadvisor_build_info") gsub(/version="[^"]*"/, "version=\"<varies>\"")
      print | "sort"
    }
    END { flush() }'
}

metrics() {
  local port daemon
  port=$(free_port)
  "$DAGADVISOR" serve --snapshot "$SCENARIO" --listen "127.0.0.1:$port" --interval 1h \
    >"$WORK_DIR/daemon.log" 2>&1 &
  daemon=$!
  if ! wait_http_ok "http://127.0.0.1:$port/readyz" 30; then
    kill "$daemon" 2>/dev/null || true
    cat "$WORK_DIR/daemon.log" >&2
    fail "the daemon never became ready"
  fi
  curl -fsS --max-time 10 "http://127.0.0.1:$port/metrics" | normalise_metrics
  expect_clean_sigterm "$daemon" "$WORK_DIR/daemon.log" >/dev/null
}

status=0
for output in report.json report.txt metrics.txt; do
  case $output in
    report.json) json_report >"$WORK_DIR/$output" ;;
    report.txt) text_report >"$WORK_DIR/$output" ;;
    metrics.txt) metrics >"$WORK_DIR/$output" ;;
  esac
  if [ -n "$UPDATE" ]; then
    mkdir -p "$GOLDEN"
    cp "$WORK_DIR/$output" "$GOLDEN/$output"
    echo "updated: tests/golden/default/$output"
  elif diff -u "$GOLDEN/$output" "$WORK_DIR/$output" >"$WORK_DIR/$output.diff"; then
    echo "ok: $output as tests/golden/default/$output"
  else
    head -100 "$WORK_DIR/$output.diff" >&2
    echo "FAIL: $output differs from tests/golden/default/$output (above, the first 100 lines;" \
      "an intended change: tests/golden/golden_test.sh --update build/src/dagadvisor)" >&2
    status=1
  fi
done
exit $status
