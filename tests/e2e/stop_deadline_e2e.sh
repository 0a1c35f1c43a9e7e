#!/usr/bin/env bash
# Cycle deadline and cancellation against a misbehaving Prometheus (tests/e2e/bad_backend.py):
# `serve` exits 0 at once on SIGTERM (well within a third of the 30 s query timeout and of
# Kubernetes' 30 s grace period) while Prometheus hangs, drips or refuses; SIGHUP aborts a hung
# cycle and starts the next at once; a dripping answer fails `analyze` after one timeout, and no
# query is sent after the required one failed.
# Args: DAGADVISOR_BINARY BAD_BACKEND_PY
DAGADVISOR=$1
BACKEND=$2
source "$(dirname "$0")/../integration/prometheus_harness.sh"
source "$(dirname "$0")/bad_backend.sh"

DAEMON=""
stop_all() {
  [ -z "$DAEMON" ] || kill "$DAEMON" 2>/dev/null || true
  [ -z "$BACKEND_PID" ] || kill "$BACKEND_PID" 2>/dev/null || true
  cleanup
}
trap stop_all EXIT

wait_requests() {  # wait_requests N SECONDS: the backend saw at least N requests
  for _ in $(seq $(($2 * 20))); do
    [ "$(wc -l <"$REQUESTS")" -ge "$1" ] && return 0
    sleep 0.05
  done
  return 1
}

CONFIG="$WORK_DIR/dagadvisor.yaml"
printf 'sources:\n  prometheus:\n    timeout: 30s\nanalysis:\n  interval: 60s\n' >"$CONFIG"

start_daemon() {  # start_daemon URL MODE
  PORT=$(free_port)
  LOG="$WORK_DIR/daemon-$2.log"
  "$DAGADVISOR" serve --config "$CONFIG" --prometheus "$1" --listen "127.0.0.1:$PORT" \
    >"$LOG" 2>&1 &
  DAEMON=$!
  wait_http_ok "http://127.0.0.1:$PORT/healthz" 30 || { cat "$LOG" >&2; fail "$2: daemon not up"; }
}

for mode in hang drip; do
  start_backend "$mode"
  start_daemon "$BACKEND_URL" "$mode"
  wait_requests 1 20 || fail "$mode: the daemon sent no query"
  sleep 0.5  # the queries are in flight, far from their 30 s timeout
  echo "$mode:"
  expect_clean_sigterm "$DAEMON" "$LOG"
  DAEMON=""
  stop_backend
done

echo "refuse:"
start_daemon "http://127.0.0.1:$(free_port)" refuse
expect_clean_sigterm "$DAEMON" "$LOG"
DAEMON=""

# A reload aborts the hung cycle: the next cycle's queries arrive at once, not after 30 s.
start_backend hang
start_daemon "$BACKEND_URL" reload
wait_requests 2 20 || fail "reload: the first cycle sent fewer than 2 queries"
first=$(wc -l <"$REQUESTS")
kill -HUP "$DAEMON"
# 10 s: a third of the hung queries' 30 s timeout, which a reload that did not abort would wait.
wait_requests $((first + 1)) 10 || { cat "$LOG" >&2; fail "reload: no new cycle within 10 s of SIGHUP"; }
grep -q 'cycle aborted by a stop or reload request' "$LOG" || fail "reload: abort not logged"
echo "ok: SIGHUP aborts the hung cycle and the next one starts at once"
expect_clean_sigterm "$DAEMON" "$LOG"
DAEMON=""
stop_backend

# A dripping answer with a 4 s timeout: analyze fails after one timeout (not two), and the fetch
# sends nothing after the first required query failed (2 queries in flight at most). What the
# process costs beside the wait (start-up, exit; about 1 s under ASan on a loaded machine) is
# measured on the same two failing queries answered at once (non-json) and taken off.
printf 'sources:\n  prometheus:\n    timeout: 4s\n    max_concurrent_queries: 2\n' >"$CONFIG"
timed_analyze() {  # timed_analyze MODE → ELAPSED_MS, SENT; analyze must fail with exit 1
  start_backend "$1"
  local start rc
  start=$(date +%s%N)
  set +e
  "$DAGADVISOR" analyze --config "$CONFIG" --prometheus "$BACKEND_URL" >"$WORK_DIR/analyze-$1.out" 2>&1
  rc=$?
  set -e
  ELAPSED_MS=$(( ($(date +%s%N) - start) / 1000000 ))
  SENT=$(wc -l <"$REQUESTS")
  stop_backend
  [ "$rc" -eq 1 ] || { cat "$WORK_DIR/analyze-$1.out" >&2; fail "$1 analyze: exit $rc, expected 1"; }
}
timed_analyze non-json
overhead_ms=$ELAPSED_MS
timed_analyze drip
waited_ms=$((ELAPSED_MS - overhead_ms))
# Two timeouts would be 8 s; the bound sits halfway, so that a loaded machine cannot decide it.
[ "$waited_ms" -lt 6000 ] ||
  fail "drip analyze: waited ${waited_ms} ms (${ELAPSED_MS} ms, ${overhead_ms} ms of it outside the wait), more than one 4 s timeout"
[ "$waited_ms" -ge 3000 ] || fail "drip analyze: failed after ${waited_ms} ms, before its 4 s timeout"
sent=$SENT
[ "$sent" -le 2 ] || fail "drip analyze: $sent queries sent, expected at most the 2 first"
echo "ok: a dripping answer fails analyze after waiting ${waited_ms} ms (timeout 4 s; ${overhead_ms} ms outside the wait), $sent queries sent"
