#!/usr/bin/env bash
# 256 idle or dripping clients cannot starve /healthz and /readyz, the server cuts them off after
# server.request_timeout, and SIGTERM still ends the daemon within 2 s (tests/e2e/slow_clients.py).
# Args: DAGADVISOR_BINARY SCENARIO_DIR SLOW_CLIENTS_PY
DAGADVISOR=$1
SCENARIO=$2
SLOW=$3
source "$(dirname "$0")/../integration/prometheus_harness.sh"

PORT=$(free_port)
printf 'server:\n  request_timeout: 3s\n' >"$WORK_DIR/dagadvisor.yaml"
"$DAGADVISOR" serve --config "$WORK_DIR/dagadvisor.yaml" --snapshot "$SCENARIO" \
  --listen "127.0.0.1:$PORT" --interval 60s >"$WORK_DIR/daemon.log" 2>&1 &
DAEMON=$!
trap 'kill "$DAEMON" 2>/dev/null || true; cleanup' EXIT
wait_http_ok "http://127.0.0.1:$PORT/readyz" 30 || { cat "$WORK_DIR/daemon.log" >&2; fail "daemon not ready"; }
python3 "$SLOW" "$PORT" 256 3 "$DAEMON" || { tail -5 "$WORK_DIR/daemon.log" >&2; exit 1; }
set +e
wait "$DAEMON"
rc=$?
set -e
[ "$rc" -eq 0 ] || { cat "$WORK_DIR/daemon.log" >&2; fail "SIGTERM: exit code $rc"; }
echo "ok: exit code 0"
