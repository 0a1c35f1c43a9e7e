# Sourced by integration tests: a real metrics backend on a free loopback port, over samples
# backfilled from an OpenMetrics file, stopped and deleted when the test exits.
# Usage: start_prometheus_with_openmetrics FILE [PROMTOOL_FLAG…]  → sets PROM_URL, PROM_PID,
# WORK_DIR (the flags go to `promtool tsdb create-blocks-from openmetrics`);
# backfill_recording_rules adds what a rule file would have recorded.
#
# DAGADVISOR_TEST_BACKEND chooses the backend (docs/testing.md, "Backends"):
#   prometheus2 (the default)  Debian's prometheus and promtool (2.42) on PATH;
#   prometheus3                prometheus3 and promtool3 (3.16) of testbed/backends;
#   victoriametrics            victoria-metrics (single-node, v1.151) of testbed/backends: no TSDB
#                              to backfill, the same samples go through its import API.
# The built ones are looked for in DAGADVISOR_TESTBED_BIN (testbed/backends/build.sh's output).

set -euo pipefail

WORK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/dagadvisor-it.XXXXXX")
PROM_PID=""
cleanup() {
  if [ -n "$PROM_PID" ] && kill -0 "$PROM_PID" 2>/dev/null; then
    kill "$PROM_PID" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$PROM_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$PROM_PID" 2>/dev/null || true
  fi
  [ -n "${KEEP_WORK_DIR:-}" ] || rm -rf "$WORK_DIR"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

TEST_BACKEND=${DAGADVISOR_TEST_BACKEND:-prometheus2}
backend_binary() {  # backend_binary NAME: the path of a binary testbed/backends built
  local path="${DAGADVISOR_TESTBED_BIN:-}/$1"
  [ -n "${DAGADVISOR_TESTBED_BIN:-}" ] && [ -x "$path" ] ||
    fail "backend $TEST_BACKEND: no $1 in DAGADVISOR_TESTBED_BIN='${DAGADVISOR_TESTBED_BIN:-}' (run testbed/build.sh)"
  echo "$path"
}
case "$TEST_BACKEND" in
  prometheus2) PROMETHEUS=prometheus; PROMTOOL=promtool ;;
  prometheus3) PROMETHEUS=$(backend_binary prometheus3); PROMTOOL=$(backend_binary promtool3) ;;
  # promtool 3 still evaluates the recording rules (on VictoriaMetrics, through its query API).
  victoriametrics) VICTORIA_METRICS=$(backend_binary victoria-metrics); PROMTOOL=$(backend_binary promtool3) ;;
  *) fail "DAGADVISOR_TEST_BACKEND=$TEST_BACKEND: expected prometheus2, prometheus3 or victoriametrics" ;;
esac

# free_port: a port nobody listens on, outside the ephemeral range.
source "$(dirname "${BASH_SOURCE[0]}")/../support/ports.sh"

# Polls URL until it answers 200, for at most $2 seconds.
wait_http_ok() {
  local url=$1 limit=${2:-30} i
  for i in $(seq 1 $((limit * 10))); do
    if curl -fsS -o /dev/null --max-time 1 "$url" 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  return 1
}

# Sends SIGTERM to a daemon started in this shell; it must exit 0 within 2 s (LOG shown if not).
# The limit guards against a stop that waits for in-flight queries (a 30 s timeout) or the
# Kubernetes grace period (30 s); it is a third of that, so that a loaded machine (ASan's start-up
# and exit take about 1 s at a load of 8) cannot decide the test. The measured time is printed.
SIGTERM_LIMIT_MS=10000
expect_clean_sigterm() {
  local pid=$1 log=$2 start rc elapsed_ms
  start=$(date +%s%N)
  kill -TERM "$pid"
  set +e
  wait "$pid"
  rc=$?
  set -e
  elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
  [ "$rc" -eq 0 ] || { cat "$log" >&2; fail "SIGTERM: exit code $rc"; }
  [ "$elapsed_ms" -lt "$SIGTERM_LIMIT_MS" ] ||
    fail "SIGTERM: took ${elapsed_ms} ms (limit $SIGTERM_LIMIT_MS)"
  echo "ok: SIGTERM → exit 0 after ${elapsed_ms} ms"
}

# A text-format scrape (FILE) as OpenMetrics samples at $T1, for backfilling; with FROM_ZERO = 1
# each series also gets a 0 at T1-60, so that counters and histograms have a rate.
to_openmetrics() {  # to_openmetrics FILE FROM_ZERO
  awk -v t0=$((T1 - 60)) -v t1=$T1 -v zero="$2" '/^#/ { next } NF >= 2 {
    value = $NF; $NF = ""; series = $0; sub(/ +$/, "", series)
    if (zero) print series, 0, t0
    print series, value, t1 }' "$1"
}

# Backfills a kube-state-metrics and a kube-scheduler scrape at T1 (counters and histograms
# from 0 at T1-60, so that rates have two points) and starts Prometheus on them.
# Usage: start_prometheus_with_scrapes KSM_SCRAPE SCHEDULER_SCRAPE  → also sets T1
start_prometheus_with_scrapes() {
  T1=1795824000
  { to_openmetrics "$2" 1; to_openmetrics "$1" 0; echo "# EOF"; } >"$WORK_DIR/real.om"
  start_prometheus_with_openmetrics "$WORK_DIR/real.om"
}

start_prometheus_with_openmetrics() {
  local om=$1
  shift
  mkdir -p "$WORK_DIR/data"
  if [ "$TEST_BACKEND" = victoriametrics ]; then
    VM_SAMPLES=0 VM_MIN_T="" VM_MAX_T=0
    start_prometheus_on_data
    import_into_victoriametrics "$om"
    return
  fi
  "$PROMTOOL" tsdb create-blocks-from openmetrics "$@" "$om" "$WORK_DIR/data" >"$WORK_DIR/promtool.log" 2>&1 \
    || { cat "$WORK_DIR/promtool.log" >&2; fail "promtool could not backfill $om"; }
  start_prometheus_on_data
}

# Evaluates the recording rules of RULE_FILE from START to END (unix seconds) every INTERVAL on
# the running Prometheus, as Prometheus would have recorded them (`promtool tsdb
# create-blocks-from rules`), and restarts Prometheus with the recorded blocks added.
backfill_recording_rules() {  # backfill_recording_rules RULE_FILE START END INTERVAL
  "$PROMTOOL" tsdb create-blocks-from rules --url "$PROM_URL" --start "$2" --end "$3" \
    --eval-interval "$4" --output-dir "$WORK_DIR/rules-data" "$1" >"$WORK_DIR/promtool-rules.log" 2>&1 \
    || { cat "$WORK_DIR/promtool-rules.log" >&2; fail "promtool could not backfill the rules of $1"; }
  if [ "$TEST_BACKEND" = victoriametrics ]; then
    # VictoriaMetrics reads no TSDB blocks: the recorded samples go through its import API too
    # (promtool opens the blocks as a database, which needs a write-ahead log, here empty).
    mkdir -p "$WORK_DIR/rules-data/wal"
    "$PROMTOOL" tsdb dump-openmetrics "$WORK_DIR/rules-data" >"$WORK_DIR/rules.om" \
      2>"$WORK_DIR/promtool-dump.log" || { cat "$WORK_DIR/promtool-dump.log" >&2; fail "promtool could not dump the recorded rules"; }
    import_into_victoriametrics "$WORK_DIR/rules.om"
    return
  fi
  kill "$PROM_PID"; wait "$PROM_PID" 2>/dev/null || true; PROM_PID=""
  mv "$WORK_DIR"/rules-data/* "$WORK_DIR/data/"
  start_prometheus_on_data
}

# Starts the backend on the data in $WORK_DIR/data (a TSDB for Prometheus).
start_prometheus_on_data() {
  local port; port=$(free_port)
  PROM_URL="http://127.0.0.1:$port"
  if [ "$TEST_BACKEND" = victoriametrics ]; then
    # A retention that keeps backfilled samples of any age (the default, a month, would drop
    # them as the calendar moves on). -search.disableCache: VictoriaMetrics caches the results of
    # range queries over past times, which a backfill after a query (the recorded rules) would
    # not invalidate; the flag's own help names ingesting historical data as its use.
    "$VICTORIA_METRICS" -storageDataPath="$WORK_DIR/data" -retentionPeriod=100y \
      -httpListenAddr="127.0.0.1:$port" -search.disableCache -loggerLevel=WARN \
      >"$WORK_DIR/victoria-metrics.log" 2>&1 &
    PROM_PID=$!
    wait_http_ok "$PROM_URL/health" 30 || { cat "$WORK_DIR/victoria-metrics.log" >&2; fail "VictoriaMetrics not ready"; }
    return
  fi
  printf 'global: {scrape_interval: 15s}\n' >"$WORK_DIR/prometheus.yml"
  "$PROMETHEUS" --config.file="$WORK_DIR/prometheus.yml" --storage.tsdb.path="$WORK_DIR/data" \
    --storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$port" \
    --log.level=warn >"$WORK_DIR/prometheus.log" 2>&1 &
  PROM_PID=$!
  wait_http_ok "$PROM_URL/-/ready" 30 || { cat "$WORK_DIR/prometheus.log" >&2; fail "Prometheus not ready"; }
}

# Imports an OpenMetrics file (timestamps in seconds, which the text-format import reads as
# such) into the running VictoriaMetrics and makes it searchable (/internal/force_flush); then
# every sample imported so far must answer a query: the count of samples over the whole time
# range equals the count of sample lines sent (none dropped as out of retention, unparsable, or
# still in a buffer).
VM_SAMPLES=0
VM_MIN_T=""
VM_MAX_T=0
import_into_victoriametrics() {  # import_into_victoriametrics FILE
  local lines min max stored
  read -r lines min max < <(awk '!/^#/ && NF >= 3 { n++; t = $NF + 0
    if (min == "" || t < min) min = t; if (t > max) max = t }
    END { printf "%d %d %d\n", n, min, max + 1 }' "$1")
  VM_SAMPLES=$((VM_SAMPLES + lines))
  if [ -z "$VM_MIN_T" ] || [ "$min" -lt "$VM_MIN_T" ]; then VM_MIN_T=$min; fi
  if [ "$max" -gt "$VM_MAX_T" ]; then VM_MAX_T=$max; fi
  curl -fsS --max-time 600 -H 'Content-Type: text/plain' --data-binary "@$1" \
    "$PROM_URL/api/v1/import/prometheus" >"$WORK_DIR/import.log" 2>&1 \
    || { cat "$WORK_DIR/import.log" "$WORK_DIR/victoria-metrics.log" >&2; fail "VictoriaMetrics refused the import of $1"; }
  curl -fsS --max-time 60 -o /dev/null "$PROM_URL/internal/force_flush" \
    || fail "VictoriaMetrics did not flush"
  curl -fsS --max-time 60 "$PROM_URL/api/v1/query" \
    --data-urlencode "query=sum(count_over_time({__name__!=\"\"}[$((VM_MAX_T - VM_MIN_T + 1))s]))" \
    --data-urlencode "time=$VM_MAX_T" >"$WORK_DIR/import-count.json" \
    || fail "VictoriaMetrics did not count its samples"
  stored=$(jq -r '.data.result[0].value[1] // "0" | tonumber' "$WORK_DIR/import-count.json")
  [ "$(jq -n --argjson a "$stored" --argjson b "$VM_SAMPLES" '$a == $b')" = true ] \
    || { tail -20 "$WORK_DIR/victoria-metrics.log" >&2
      fail "VictoriaMetrics answers with $stored of the $VM_SAMPLES samples imported (the last: $1)"; }
}
