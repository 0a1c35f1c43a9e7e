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
