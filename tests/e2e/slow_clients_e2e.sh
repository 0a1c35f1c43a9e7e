#!/usr/bin/env bash
# CLIENTS idle or dripping clients (256 by default) cannot starve /healthz and /readyz, the server
# cuts them off after server.request_timeout, and SIGTERM still ends the daemon within 2 s
# (tests/e2e/slow_clients.py). With MAX_CONNECTIONS, server.max_connections is set to it:
# e2e.probes_flood opens twice as many clients as workers (issue 55), where the probes must not
# wait for request_timeout (3 s) to free a worker.
# Args: DAGADVISOR_BINARY SCENARIO_DIR SLOW_CLIENTS_PY [CLIENTS [MAX_CONNECTIONS]]
DAGADVISOR=$1
SCENARIO=$2
SLOW=$3
CLIENTS=${4:-256}
MAX_CONNECTIONS=${5:-}
source "$(dirname "$0")/../integration/prometheus_harness.sh"

PORT=$(free_port)
printf 'server:\n  request_timeout: 3s\n' >"$WORK_DIR/dagadvisor.yaml"
[ -z "$MAX_CONNECTIONS" ] || printf '  max_connections: %s\n' "$MAX_CONNECTIONS" >>"$WORK_DIR/dagadvisor.yaml"
"$DAGADVISOR" serve --config "$WORK_DIR/dagadvisor.yaml" --snapshot "$SCENARIO" \
  --listen "127.0.0.1:$PORT" --interval 60s >"$WORK_DIR/daemon.log" 2>&1 &
DAEMON=$!
trap 'kill "$DAEMON" 2>/dev/null || true; cleanup' EXIT
wait_http_ok "http://127.0.0.1:$PORT/readyz" 30 || { cat "$WORK_DIR/daemon.log" >&2; fail "daemon not ready"; }
python3 "$SLOW" "$PORT" "$CLIENTS" 3 "$DAEMON" || { tail -5 "$WORK_DIR/daemon.log" >&2; exit 1; }
set +e
wait "$DAEMON"
rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$WORK_DIR/daemon.log" >&2; fail "SIGTERM: exit code $rc"; }
echo "ok: exit code 0"
