#!/usr/bin/env bash
# Loopback load test of the served cache while analysis cycles run (not a timed test):
# wrk against /api/v1/recommendations and /metrics, identity and gzip; prints req/s, p99,
# errors and the daemon's RSS. A first, shorter pass warms the caches and the allocator; the
# growth of RSS over the measured pass is what a leak would show.
# Usage: scripts/loadtest.sh [--check] [BINARY] [SECONDS] [CONNECTIONS]
#   --check: exit 1 on any error response or socket error, or RSS growth over 8 MB (the e2e
#            test); figures are printed either way, never asserted.
# CONNECTIONS must not exceed server.threads (4): civetweb gives each keep-alive connection a
# worker thread, so more connections only queue.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CHECK=""
if [ "${1:-}" = "--check" ]; then CHECK=1; shift; fi
BIN=${1:-$ROOT/build/src/dagadvisor}
SECONDS_EACH=${2:-10}
CONNS=${3:-4}
MAX_GROWTH_KB=8192
command -v wrk >/dev/null || { echo "wrk missing: run scripts/setup.sh" >&2; exit 2; }
WORK=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BIN" serve --snapshot "$ROOT/config/scenarios/default" --listen "127.0.0.1:$PORT" \
  --interval 1s --log-level warn >"$WORK/daemon.log" 2>&1 &
PID=$!
trap 'kill $PID 2>/dev/null; wait $PID 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do
  curl -fs "http://127.0.0.1:$PORT/readyz" >/dev/null && break
  sleep 0.1
done
rss_kb() { awk '/VmRSS/ {print $2}' "/proc/$PID/status"; }
failures=0
# pass SECONDS PRINT: every route and encoding once.
pass() {
  local seconds=$1 print=$2 path encoding rps p99 errors
  # Prometheus scrapes and browsers ask for gzip; plain clients (wrk's default) do not.
  for path in /api/v1/recommendations /metrics; do
    for encoding in identity gzip; do
      wrk -t2 -c"$CONNS" -d"${seconds}s" --latency -H "Accept-Encoding: $encoding" \
        "http://127.0.0.1:$PORT$path" >"$WORK/wrk.txt"
      errors=$(grep -E 'Non-2xx|Socket errors' "$WORK/wrk.txt" | tr '\n' ' ' || true)
      [ -z "$errors" ] || failures=$((failures + 1))
      [ "$print" = yes ] || continue
      rps=$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk.txt")
      p99=$(awk '$1 == "99%" {print $2}' "$WORK/wrk.txt")
      echo "$path ($encoding): ${rps} req/s, p99 ${p99}, errors: ${errors:-none}"
    done
  done
}
echo "daemon pid $PID, RSS at start: $(rss_kb) kB; cycles every 1 s during the test"
pass 2 no
warm=$(rss_kb)
echo "RSS after the warm-up pass: $warm kB"
pass "$SECONDS_EACH" yes
after=$(rss_kb)
echo "RSS after: $after kB (growth $((after - warm)) kB)"
curl -fs "http://127.0.0.1:$PORT/metrics" | grep -E '^dagadvisor_cycles_total' || true
kill -0 "$PID" || { cat "$WORK/daemon.log" >&2; echo "FAIL: the daemon died" >&2; exit 1; }
if [ -n "$CHECK" ]; then
  [ "$failures" -eq 0 ] || { echo "FAIL: $failures wrk run(s) saw errors" >&2; exit 1; }
  [ $((after - warm)) -le "$MAX_GROWTH_KB" ] ||
    { echo "FAIL: RSS grew $((after - warm)) kB under load (limit $MAX_GROWTH_KB)" >&2; exit 1; }
  echo "PASS: no errors, RSS growth within $MAX_GROWTH_KB kB"
fi
