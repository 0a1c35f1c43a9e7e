#!/usr/bin/env bash
# Operations of the daemon: basic auth from a web-config.yml (accepted and refused), reload by
# SIGHUP and POST /-/reload with a bad config (rejected, old one kept, reported on /metrics) and
# a good one, JSON logs, and SIGTERM within 2 s.
# Args: DAGADVISOR_BINARY SCENARIO_DIR WEB_CONFIG
DAGADVISOR=$1
SCENARIO=$2
WEB_CONFIG=$3
source "$(dirname "$0")/../integration/prometheus_harness.sh"

PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
CONFIG="$WORK_DIR/dagadvisor.yaml"
good_config() { printf 'server:\n  web_config_file: %s\nanalysis:\n  interval: %s\n' "$WEB_CONFIG" "$1" >"$CONFIG"; }
good_config 2s
"$DAGADVISOR" serve --config "$CONFIG" --snapshot "$SCENARIO" --listen "127.0.0.1:$PORT" \
  --log-format json --log-level info >"$WORK_DIR/daemon.log" 2>&1 &
DAEMON=$!
trap 'kill "$DAEMON" 2>/dev/null || true; cleanup' EXIT
wait_http_ok "$BASE/readyz" 30 || { cat "$WORK_DIR/daemon.log" >&2; fail "daemon never became ready"; }
echo "ok: /readyz open without credentials"

status() { curl -s -o "$WORK_DIR/body" -w '%{http_code}' "$@"; }
[ "$(status "$BASE/api/v1/recommendations")" = 401 ] || fail "no credentials should be 401"
[ "$(status -u alice:wrong "$BASE/metrics")" = 401 ] || fail "a wrong password should be 401"
[ "$(status -u mallory:wonderland "$BASE/metrics")" = 401 ] || fail "an unknown user should be 401"
[ "$(status -u alice:wonderland "$BASE/api/v1/recommendations")" = 200 ] || fail "alice should get in"
echo "ok: basic auth refuses missing and wrong credentials and accepts alice"

reload_metric() {
  curl -s -u alice:wonderland "$BASE/metrics" | awk '/^dagadvisor_config_last_reload_successful/ {print $2}'
}
wait_reload() {  # wait_reload EXPECTED: poll /metrics for the reload outcome, bounded
  for _ in $(seq 100); do
    [ "$(reload_metric)" = "$1" ] && return 0
    sleep 0.1
  done
  fail "dagadvisor_config_last_reload_successful never became $1"
}
printf 'server:\n  threads: 999\n' >"$CONFIG"
kill -HUP "$DAEMON"
wait_reload 0
[ "$(status -u alice:wonderland "$BASE/api/v1/dags")" = 200 ] || fail "the old config should keep serving"
echo "ok: SIGHUP with a bad config is rejected, the old one kept"
good_config 3s
[ "$(status -u alice:wonderland -X POST "$BASE/-/reload")" = 202 ] || fail "POST /-/reload"
wait_reload 1
echo "ok: POST /-/reload with a good config succeeds"

jq -e . "$WORK_DIR/daemon.log" >/dev/null || fail "--log-format json: the log is not JSON lines"
grep -q 'reload rejected' "$WORK_DIR/daemon.log" || fail "the rejected reload is not logged"
echo "ok: JSON logs"

expect_clean_sigterm "$DAEMON" "$WORK_DIR/daemon.log"
