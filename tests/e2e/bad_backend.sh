# Sourced by the fault tests, after prometheus_harness.sh: runs bad_backend.py (path in BACKEND)
# on a loopback port, one mode at a time.

BACKEND_PID=""

# start_backend MODE → BACKEND_URL, REQUESTS (its request log); stops the previous mode first.
start_backend() {
  stop_backend
  REQUESTS="$WORK_DIR/$1.requests"
  : >"$REQUESTS"
  rm -f "$WORK_DIR/$1.port"
  python3 "$BACKEND" "$1" "$WORK_DIR/$1.port" "$REQUESTS" &
  BACKEND_PID=$!
  # Up to 10 s: many-series builds its answer (tens of MB) before it listens.
  for _ in $(seq 200); do [ -s "$WORK_DIR/$1.port" ] && break; sleep 0.05; done
  [ -s "$WORK_DIR/$1.port" ] || fail "bad_backend.py $1 did not start"
  BACKEND_URL="http://127.0.0.1:$(cat "$WORK_DIR/$1.port")"
}

stop_backend() {
  [ -z "$BACKEND_PID" ] || { kill "$BACKEND_PID" 2>/dev/null || true; wait "$BACKEND_PID" 2>/dev/null || true; }
  BACKEND_PID=""
}

# For `trap stop_all EXIT`: stops the daemon the test started (its pid in DAEMON, if any), the
# backend, and cleans up after the harness.
DAEMON=""
stop_all() {
  [ -z "$DAEMON" ] || kill "$DAEMON" 2>/dev/null || true
  stop_backend
  cleanup
}

# The real Prometheus that the proxy modes (echo-credentials, duplicate-series) stand in front
# of, backfilled with FIXTURE_OM (tests/fixtures/integration/gpu_hoarding.om); its last sample
# is at UPSTREAM_AT, the time to analyse (as integration.analyze_real_prometheus does).
UPSTREAM_AT=2026-11-29T00:15:00Z
start_upstream() {  # start_upstream FIXTURE_OM → PROM_URL, BAD_BACKEND_UPSTREAM
  start_prometheus_with_openmetrics "$1"
  export BAD_BACKEND_UPSTREAM=$PROM_URL
}
