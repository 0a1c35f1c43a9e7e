#!/usr/bin/env bash
# No configured secret in any output, even when the backend echoes it: a proxy that answers 502
# with the request's Authorization header in its body (tests/e2e/bad_backend.py echo-auth).
# Checks the daemon's log, /readyz with and without credentials (short reason for anonymous
# clients: no URL, no body), and analyze's error with basic auth.
# Args: DAGADVISOR_BINARY BAD_BACKEND_PY WEB_CONFIG
DAGADVISOR=$1
BACKEND=$2
WEB_CONFIG=$3
source "$(dirname "$0")/../integration/prometheus_harness.sh"

BACKEND_PID=""
DAEMON=""
trap '[ -z "$DAEMON" ] || kill "$DAEMON" 2>/dev/null || true; [ -z "$BACKEND_PID" ] || kill "$BACKEND_PID" 2>/dev/null || true; cleanup' EXIT

REQUESTS="$WORK_DIR/requests"
python3 "$BACKEND" echo-auth "$WORK_DIR/port" "$REQUESTS" &
BACKEND_PID=$!
for _ in $(seq 100); do [ -s "$WORK_DIR/port" ] && break; sleep 0.05; done
[ -s "$WORK_DIR/port" ] || fail "bad_backend.py did not start"
BACKEND_PORT=$(cat "$WORK_DIR/port")

TOKEN=tok-e2e-9c1f44d2ab
PASSWORD=pw-e2e-77aa0b3c
printf '%s\n' "$TOKEN" >"$WORK_DIR/token"
printf '%s\n' "$PASSWORD" >"$WORK_DIR/password"
printf 'sources:\n  prometheus:\n    bearer_token_file: %s\nserver:\n  web_config_file: %s\nanalysis:\n  interval: 1s\n' \
  "$WORK_DIR/token" "$WEB_CONFIG" >"$WORK_DIR/bearer.yaml"

PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
"$DAGADVISOR" serve --config "$WORK_DIR/bearer.yaml" --prometheus "http://127.0.0.1:$BACKEND_PORT" \
  --listen "127.0.0.1:$PORT" >"$WORK_DIR/daemon.log" 2>&1 &
DAEMON=$!
wait_http_ok "$BASE/healthz" 30 || { cat "$WORK_DIR/daemon.log" >&2; fail "daemon not up"; }
for _ in $(seq 100); do grep -q 'analysis failed' "$WORK_DIR/daemon.log" && break; sleep 0.1; done
grep -q "Bearer $TOKEN" "$REQUESTS" || fail "the backend never got the token (nothing to echo)"

curl -s "$BASE/readyz" >"$WORK_DIR/anonymous.txt"
curl -s -u alice:wonderland "$BASE/readyz" >"$WORK_DIR/operator.txt"
for out in daemon.log anonymous.txt operator.txt; do
  if grep -qF -e "$TOKEN" "$WORK_DIR/$out"; then fail "$out repeats the token: $(grep -F "$TOKEN" "$WORK_DIR/$out" | head -1)"; fi
done
echo "ok: the echoed token appears in no log line and no /readyz answer"
grep -q '<redacted>' "$WORK_DIR/daemon.log" || fail "the log does not show the echo, redacted"
[ "$(cat "$WORK_DIR/anonymous.txt")" = "no analysis yet: last cycle failed" ] \
  || fail "anonymous /readyz is not the short reason: $(cat "$WORK_DIR/anonymous.txt")"
grep -qF "127.0.0.1:$BACKEND_PORT" "$WORK_DIR/operator.txt" || fail "operator /readyz lacks the URL: $(cat "$WORK_DIR/operator.txt")"
grep -qF "HTTP 502" "$WORK_DIR/operator.txt" || fail "operator /readyz lacks the status"
echo "ok: anonymous /readyz: '$(cat "$WORK_DIR/anonymous.txt")'; with credentials: $(head -c 160 "$WORK_DIR/operator.txt")"
expect_clean_sigterm "$DAEMON" "$WORK_DIR/daemon.log"
DAEMON=""

# Basic auth: the echo carries base64(user:password); analyze's error must not.
printf 'sources:\n  prometheus:\n    basic_auth:\n      username: bob\n      password_file: %s\n' \
  "$WORK_DIR/password" >"$WORK_DIR/basic.yaml"
set +e
"$DAGADVISOR" analyze --config "$WORK_DIR/basic.yaml" --prometheus "http://127.0.0.1:$BACKEND_PORT" \
  >"$WORK_DIR/analyze.out" 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat "$WORK_DIR/analyze.out" >&2; fail "analyze: exit $rc, expected 1"; }
basic=$(printf 'bob:%s' "$PASSWORD" | base64)
grep -qF "Basic $basic" "$REQUESTS" || fail "the backend never got the basic credentials"
if grep -qF -e "$basic" -e "$PASSWORD" "$WORK_DIR/analyze.out"; then fail "analyze repeats the credentials: $(cat "$WORK_DIR/analyze.out")"; fi
grep -qF 'Basic <redacted>' "$WORK_DIR/analyze.out" || fail "analyze's error lost the (redacted) echo: $(cat "$WORK_DIR/analyze.out")"
echo "ok: analyze's error shows 'Basic <redacted>', never the password"
