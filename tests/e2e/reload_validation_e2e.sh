#!/usr/bin/env bash
# Start and reload validate exactly as check-config does (issue 55), secret files included:
# - check-config and serve both refuse a missing or an empty bearer_token_file (exit 2, the
#   field named);
# - a reload (SIGHUP, POST /-/reload) to such a config is rejected: the running config is kept
#   (cycles go on and publish), and the log, /readyz and
#   dagadvisor_config_last_reload_successful (0) say so; a later good reload clears it, and when
#   it renames analysis.cluster no self-metric keeps the start-up label.
# Args: DAGADVISOR_BINARY SCENARIO_DIR
DAGADVISOR=$1
SCENARIO=$2
source "$(dirname "$0")/../integration/prometheus_harness.sh"

DAEMON=""
trap '[ -z "$DAEMON" ] || kill "$DAEMON" 2>/dev/null || true; cleanup' EXIT

CONFIG="$WORK_DIR/dagadvisor.yaml"
token_config() {  # token_config TOKEN_FILE [CLUSTER]
  printf 'sources:\n  prometheus:\n    bearer_token_file: %s\nanalysis:\n  interval: 1s\n  cluster: %s\n' \
    "$1" "${2:-default}" >"$CONFIG"
}
printf 'tok-reload-e2e-81c3\n' >"$WORK_DIR/token"
: >"$WORK_DIR/empty-token"

for bad in missing-token empty-token; do
  token_config "$WORK_DIR/$bad"
  for command in check-config serve; do
    set +e
    # timeout only ends a daemon that wrongly started (exit 124, a failure below).
    timeout 20 "$DAGADVISOR" "$command" --config "$CONFIG" --snapshot "$SCENARIO" --listen 127.0.0.1:0 \
      >"$WORK_DIR/$command-$bad.out" 2>&1
    rc=$?
    set -e
    [ "$rc" -eq 2 ] || { cat "$WORK_DIR/$command-$bad.out" >&2; fail "$command with a $bad file exited $rc, expected 2"; }
    grep -q "sources.prometheus.bearer_token_file: cannot read" "$WORK_DIR/$command-$bad.out" \
      || fail "$command does not name the field: $(cat "$WORK_DIR/$command-$bad.out")"
  done
done
echo "ok: check-config and serve refuse a missing and an empty token file alike, exit 2, field named"

token_config "$WORK_DIR/token"
PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
"$DAGADVISOR" serve --config "$CONFIG" --snapshot "$SCENARIO" --listen "127.0.0.1:$PORT" \
  >"$WORK_DIR/daemon.log" 2>&1 &
DAEMON=$!
wait_http_ok "$BASE/readyz" 30 || { cat "$WORK_DIR/daemon.log" >&2; fail "daemon never became ready"; }

reload_metric() { curl -s "$BASE/metrics" | awk '/^dagadvisor_config_last_reload_successful/ {print $2}'; }
wait_reload() {  # wait_reload EXPECTED: poll /metrics for the reload outcome, at most 10 s
  for _ in $(seq 100); do
    [ "$(reload_metric)" = "$1" ] && return 0
    sleep 0.1
  done
  fail "dagadvisor_config_last_reload_successful never became $1: $(tail -3 "$WORK_DIR/daemon.log")"
}
published() { grep -c 'analysis published' "$WORK_DIR/daemon.log" || true; }

token_config "$WORK_DIR/empty-token"
kill -HUP "$DAEMON"
wait_reload 0
grep -q 'reload rejected.*sources.prometheus.bearer_token_file' "$WORK_DIR/daemon.log" \
  || fail "the log does not say why the reload was rejected: $(grep reload "$WORK_DIR/daemon.log")"
curl -s -o "$WORK_DIR/ready.txt" -w '%{http_code}' "$BASE/readyz" >"$WORK_DIR/ready.code"
[ "$(cat "$WORK_DIR/ready.code")" = 200 ] || fail "/readyz $(cat "$WORK_DIR/ready.code"): the running config still works"
grep -q '^last reload rejected, running the previous configuration: ' "$WORK_DIR/ready.txt" \
  && grep -q 'sources.prometheus.bearer_token_file' "$WORK_DIR/ready.txt" \
  || fail "/readyz does not say the reload was rejected, and why: $(cat "$WORK_DIR/ready.txt")"
before=$(published)
for _ in $(seq 100); do [ "$(published)" -gt "$before" ] && break; sleep 0.1; done
[ "$(published)" -gt "$before" ] || fail "no cycle published after the rejected reload"
echo "ok: SIGHUP to an empty token file is rejected: metric 0, log and /readyz say why, cycles go on"

token_config "$WORK_DIR/token" renamed
[ "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$BASE/-/reload")" = 202 ] || fail "POST /-/reload"
for _ in $(seq 100); do curl -s "$BASE/metrics" | grep -q 'reload_successful{cluster="renamed"} 1' && break; sleep 0.1; done
curl -s "$BASE/metrics" >"$WORK_DIR/metrics.txt"
grep -q '^dagadvisor_config_last_reload_successful{cluster="renamed"} 1' "$WORK_DIR/metrics.txt" \
  || fail "no reload success under the new cluster label: $(grep reload_successful "$WORK_DIR/metrics.txt")"
if grep -E '^dagadvisor_(build_info|cycles_total|config_last_reload_successful)\{cluster="default"' "$WORK_DIR/metrics.txt"; then
  fail "self-metrics keep the start-up cluster label after the reload renamed it"
fi
[ "$(curl -s "$BASE/readyz")" = ok ] || fail "/readyz after a good reload: $(curl -s "$BASE/readyz")"
echo "ok: a good reload clears it (metric 1, /readyz ok), and the self-metrics take its cluster label"
expect_clean_sigterm "$DAEMON" "$WORK_DIR/daemon.log"
DAEMON=""
