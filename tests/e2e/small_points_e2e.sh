#!/usr/bin/env bash
# The smaller promises of issue 19, each against the real binary:
# - check-config refuses a missing or invalid server.web_config_file and a missing token file,
#   naming the field, exit 2;
# - a 200 whose body is not JSON names URL, status, content type and the body's start;
# - a scalar or empty answer to every query is a failed cycle, never a fresh empty analysis;
# - answers each under max_series_per_query that add up past max_series_per_cycle fail the cycle.
# Args: DAGADVISOR_BINARY BAD_BACKEND_PY
DAGADVISOR=$1
BACKEND=$2
source "$(dirname "$0")/../integration/prometheus_harness.sh"
source "$(dirname "$0")/bad_backend.sh"

DAEMON=""
trap '[ -z "$DAEMON" ] || kill "$DAEMON" 2>/dev/null || true; [ -z "$BACKEND_PID" ] || kill "$BACKEND_PID" 2>/dev/null || true; cleanup' EXIT

expect_exit() {  # expect_exit CODE OUTFILE CMD...: runs CMD, which must exit CODE
  local code=$1 out=$2 rc
  shift 2
  set +e
  "$@" >"$out" 2>&1
  rc=$?
  set -e
  [ "$rc" -eq "$code" ] || { cat "$out" >&2; fail "$* exited $rc, expected $code"; }
}

# check-config
printf 'server:\n  web_config_file: %s/missing-web.yml\n' "$WORK_DIR" >"$WORK_DIR/a.yaml"
expect_exit 2 "$WORK_DIR/a.out" "$DAGADVISOR" check-config --config "$WORK_DIR/a.yaml"
grep -q "server.web_config_file: cannot read $WORK_DIR/missing-web.yml" "$WORK_DIR/a.out" \
  || fail "missing web config not named: $(cat "$WORK_DIR/a.out")"
printf 'basic_auth_users: [\n' >"$WORK_DIR/broken-web.yml"
printf 'server:\n  web_config_file: %s/broken-web.yml\n' "$WORK_DIR" >"$WORK_DIR/b.yaml"
expect_exit 2 "$WORK_DIR/b.out" "$DAGADVISOR" check-config --config "$WORK_DIR/b.yaml"
grep -q "server.web_config_file: .*invalid YAML" "$WORK_DIR/b.out" \
  || fail "invalid web config not named: $(cat "$WORK_DIR/b.out")"
printf 'sources:\n  prometheus:\n    bearer_token_file: %s/no-token\n' "$WORK_DIR" >"$WORK_DIR/c.yaml"
expect_exit 2 "$WORK_DIR/c.out" "$DAGADVISOR" check-config --config "$WORK_DIR/c.yaml"
grep -q "sources.prometheus.bearer_token_file: cannot read $WORK_DIR/no-token: no such file" "$WORK_DIR/c.out" \
  || fail "missing token file not named: $(cat "$WORK_DIR/c.out")"
expect_exit 0 "$WORK_DIR/d.out" "$DAGADVISOR" check-config
echo "ok: check-config names server.web_config_file (missing, invalid) and the token file, exit 2"

# The analyze run's token file is missing: the runtime error names the setting too.
start_backend empty
expect_exit 1 "$WORK_DIR/token.out" "$DAGADVISOR" analyze --config "$WORK_DIR/c.yaml" --prometheus "$BACKEND_URL"
grep -q "bearer_token_file: cannot read secret file $WORK_DIR/no-token" "$WORK_DIR/token.out" \
  || fail "the runtime token error does not name the setting: $(cat "$WORK_DIR/token.out")"
echo "ok: a missing token file at run time names bearer_token_file"

start_backend non-json
expect_exit 1 "$WORK_DIR/html.out" "$DAGADVISOR" analyze --prometheus "$BACKEND_URL"
grep -qF "HTTP 200 (text/html) from POST $BACKEND_URL/api/v1/query is not JSON: <html><body>Please log in" "$WORK_DIR/html.out" \
  || fail "a non-JSON 200 is not described: $(cat "$WORK_DIR/html.out")"
echo "ok: a non-JSON 200 names URL, status, content type and body start"

for mode in scalar empty; do
  start_backend "$mode"
  expect_exit 1 "$WORK_DIR/$mode.out" "$DAGADVISOR" analyze --prometheus "$BACKEND_URL"
  grep -q "no node in the answers" "$WORK_DIR/$mode.out" || fail "$mode analyze: $(cat "$WORK_DIR/$mode.out")"
  PORT=$(free_port)
  "$DAGADVISOR" serve --prometheus "$BACKEND_URL" --listen "127.0.0.1:$PORT" --interval 1s \
    >"$WORK_DIR/$mode.log" 2>&1 &
  DAEMON=$!
  wait_http_ok "http://127.0.0.1:$PORT/healthz" 30 || fail "$mode: daemon not up"
  for _ in $(seq 100); do grep -q 'analysis failed' "$WORK_DIR/$mode.log" && break; sleep 0.1; done
  code=$(curl -s -o "$WORK_DIR/ready.txt" -w '%{http_code}' "http://127.0.0.1:$PORT/readyz")
  [ "$code" = 503 ] || fail "$mode: /readyz $code, an empty analysis was published as fresh"
  grep -q "no node in the answers" "$WORK_DIR/ready.txt" || fail "$mode: /readyz says $(cat "$WORK_DIR/ready.txt")"
  if grep -q 'analysis published' "$WORK_DIR/$mode.log"; then fail "$mode: an analysis was published"; fi
  expect_clean_sigterm "$DAEMON" "$WORK_DIR/$mode.log"
  DAEMON=""
  echo "ok: $mode answers to every query fail the cycle (503, nothing published)"
done

# Answers each under max_series_per_query add up past max_series_per_cycle: the query that passes
# it fails, naming the setting, where they used to be modelled whatever their sum.
export BAD_BACKEND_SERIES=3000
start_backend many-series
printf 'sources:\n  prometheus:\n    max_series_per_query: 5000\n    max_series_per_cycle: 10000\n' \
  >"$WORK_DIR/cycle.yaml"
expect_exit 1 "$WORK_DIR/cycle.out" "$DAGADVISOR" analyze --config "$WORK_DIR/cycle.yaml" --prometheus "$BACKEND_URL"
grep -qE "query [a-z_]+: the cycle's answers pass 10000 series in all \(the cap sources.prometheus.max_series_per_cycle\)" \
  "$WORK_DIR/cycle.out" || fail "the cycle's bound is not named: $(tail -2 "$WORK_DIR/cycle.out")"
echo "ok: answers of 3,000 series each stop at max_series_per_cycle (10,000), named"
