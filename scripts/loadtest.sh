#!/usr/bin/env bash
# Loopback load test of the served cache while analysis cycles run (not a timed test):
# wrk against /api/v1/recommendations and /metrics; prints req/s, p99, errors and the daemon's
# RSS before and after. Usage: scripts/loadtest.sh [BINARY] [SECONDS] [CONNECTIONS]
# CONNECTIONS must not exceed server.threads (4): civetweb gives each keep-alive connection a
# worker thread, so more connections only queue.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${1:-$ROOT/build/src/dagadvisor}
SECONDS_EACH=${2:-10}
CONNS=${3:-4}
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
rss() { awk '/VmRSS/ {print $2 " kB"}' "/proc/$PID/status"; }
echo "daemon pid $PID, RSS before: $(rss); cycles every 1 s during the test"
# Prometheus scrapes and browsers ask for gzip; plain clients (wrk's default) do not.
for path in /api/v1/recommendations /metrics; do
  for encoding in identity gzip; do
    wrk -t2 -c"$CONNS" -d"${SECONDS_EACH}s" --latency -H "Accept-Encoding: $encoding" \
      "http://127.0.0.1:$PORT$path" >"$WORK/wrk.txt"
    rps=$(awk '/Requests\/sec/ {print $2}' "$WORK/wrk.txt")
    p99=$(awk '$1 == "99%" {print $2}' "$WORK/wrk.txt")
    errors=$(grep -E 'Non-2xx|Socket errors' "$WORK/wrk.txt" | tr '\n' ' ' || true)
    echo "$path ($encoding): ${rps} req/s, p99 ${p99}, errors: ${errors:-none}"
  done
done
echo "RSS after: $(rss)"
curl -fs "http://127.0.0.1:$PORT/metrics" | grep -E '^dagadvisor_cycles_total' || true
