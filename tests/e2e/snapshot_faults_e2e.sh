#!/usr/bin/env bash
# A tampered snapshot never ends `serve`: a directory, a FIFO or an oversized file in place of a
# query file, and memory exhaustion under `ulimit -v` while reading one, each make the cycle fail
# (503 on /readyz with the reason) while the daemon keeps answering and stops cleanly on SIGTERM.
# Args: DAGADVISOR_BINARY SCENARIO_DIR plain|sanitized
DAGADVISOR=$1
SCENARIO=$2
BUILD=${3:-plain}
source "$(dirname "$0")/../integration/prometheus_harness.sh"

DAEMON=""
trap '[ -z "$DAEMON" ] || kill "$DAEMON" 2>/dev/null || true; cleanup' EXIT
export MALLOC_ARENA_MAX=2  # fewer 64 MB malloc arenas: the address space stays predictable

start_daemon() {  # start_daemon SNAPSHOT_DIR NAME [ULIMIT_KB]
  PORT=$(free_port)
  LOG="$WORK_DIR/$2.log"
  (
    [ -z "${3:-}" ] || ulimit -v "$3"
    exec "$DAGADVISOR" serve --snapshot "$1" --listen "127.0.0.1:$PORT" --interval 1s
  ) >"$LOG" 2>&1 &
  DAEMON=$!
  wait_http_ok "http://127.0.0.1:$PORT/healthz" 30 || { cat "$LOG" >&2; fail "$2: daemon not up"; }
}

expect_failed_cycles() {  # expect_failed_cycles NAME REASON: 503 naming REASON, twice, still alive
  local code="" cycles=0
  for _ in $(seq 100); do
    code=$(curl -s -o "$WORK_DIR/ready.txt" -w '%{http_code}' "http://127.0.0.1:$PORT/readyz")
    [ "$code" = 503 ] && grep -qF "$2" "$WORK_DIR/ready.txt" && break
    sleep 0.1
  done
  grep -qF "$2" "$WORK_DIR/ready.txt" || { cat "$LOG" >&2; fail "$1: /readyz ($code) does not say '$2': $(cat "$WORK_DIR/ready.txt")"; }
  for _ in $(seq 100); do  # a second failed cycle: the loop goes on after the first
    cycles=$(grep -c 'analysis failed' "$LOG" || true)
    [ "$cycles" -ge 2 ] && break
    sleep 0.1
  done
  [ "$cycles" -ge 2 ] || fail "$1: fewer than 2 failed cycles logged"
  kill -0 "$DAEMON" || fail "$1: the daemon died"
  [ "$(curl -s "http://127.0.0.1:$PORT/healthz")" = ok ] || fail "$1: /healthz does not answer"
  echo "ok: $1: cycles fail with '$2', the daemon serves on"
  expect_clean_sigterm "$DAEMON" "$LOG"
  DAEMON=""
}

tampered() {  # tampered NAME → a copy of the scenario whose pod_info.json is to be replaced
  SNAP="$WORK_DIR/$1"
  cp -r "$SCENARIO" "$SNAP"
  rm -f "$SNAP/pod_info.json"
}

tampered directory; mkdir "$SNAP/pod_info.json"
start_daemon "$SNAP" directory
expect_failed_cycles directory "not a regular file (a directory)"

tampered fifo; mkfifo "$SNAP/pod_info.json"
start_daemon "$SNAP" fifo
expect_failed_cycles fifo "not a regular file (a FIFO)"

tampered oversized; truncate -s 300M "$SNAP/pod_info.json"  # sparse: no disk used
start_daemon "$SNAP" oversized
expect_failed_cycles oversized "more than the limit of 268435456"

# Out of memory: the address space of a healthy daemon plus 120 MB cannot map a 250 MB body (a
# file is read into one mapping, sources/body_buffer.h). Not in a sanitizer build: its shadow
# memory is address space that ulimit -v counts. The plain build runs this case.
if [ "$BUILD" = sanitized ]; then
  echo "skipped: out of memory under ulimit -v (a sanitizer build's shadow memory counts in it)"
  exit 0
fi
start_daemon "$SCENARIO" baseline
wait_http_ok "http://127.0.0.1:$PORT/readyz" 30 || fail "baseline: not ready"
vsz_kb=$(ps -o vsz= -p "$DAEMON" | tr -d ' ')
kill "$DAEMON"; wait "$DAEMON" 2>/dev/null || true; DAEMON=""
tampered out_of_memory; truncate -s 250M "$SNAP/pod_info.json"
start_daemon "$SNAP" out_of_memory $((vsz_kb + 120000))
expect_failed_cycles "out of memory (ulimit -v $((vsz_kb + 120000)) kB)" "out of memory for 262144000 bytes"
