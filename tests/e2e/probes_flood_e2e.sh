#!/usr/bin/env bash
# The probes answer whatever the number of connections (issue 55): twice server.max_connections
# idle or dripping clients (64 for 32 workers; with 600 for the default 512, 10 of 17 /healthz
# probes timed out at 3 s) must not keep /healthz and /readyz waiting: every probe answers
# within 1 s while they are open (tests/e2e/slow_clients.py), long before request_timeout (3 s)
# would free a worker. Then every slow connection is closed, and SIGTERM still ends the daemon
# within 2 s.
# Args: DAGADVISOR_BINARY SCENARIO_DIR SLOW_CLIENTS_PY
DAGADVISOR=$1
SCENARIO=$2
SLOW=$3
source "$(dirname "$0")/../integration/prometheus_harness.sh"

MAX_CONNECTIONS=32
PORT=$(free_port)
printf 'server:\n  request_timeout: 3s\n  max_connections: %s\n' "$MAX_CONNECTIONS" >"$WORK_DIR/dagadvisor.yaml"
"$DAGADVISOR" serve --config "$WORK_DIR/dagadvisor.yaml" --snapshot "$SCENARIO" \
  --listen "127.0.0.1:$PORT" --interval 60s >"$WORK_DIR/daemon.log" 2>&1 &
DAEMON=$!
trap 'kill "$DAEMON" 2>/dev/null || true; cleanup' EXIT
wait_http_ok "http://127.0.0.1:$PORT/readyz" 30 || { cat "$WORK_DIR/daemon.log" >&2; fail "daemon not ready"; }
python3 "$SLOW" "$PORT" $((2 * MAX_CONNECTIONS)) 3 "$DAEMON" || { tail -5 "$WORK_DIR/daemon.log" >&2; exit 1; }
set +e
wait "$DAEMON"
rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$WORK_DIR/daemon.log" >&2; fail "SIGTERM: exit code $rc"; }
echo "ok: exit code 0"
