#!/usr/bin/env bash
# The daemon on the bundled default scenario: every endpoint answers, /metrics passes
# `promtool check metrics`, and SIGTERM ends it cleanly with exit code 0.
# Args: DAGADVISOR_BINARY SCENARIO_DIR
DAGADVISOR=$1
SCENARIO=$2
source "$(dirname "$0")/../integration/prometheus_harness.sh"

PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
"$DAGADVISOR" serve --snapshot "$SCENARIO" --listen "127.0.0.1:$PORT" --interval 2s \
  >"$WORK_DIR/daemon.log" 2>&1 &
DAEMON=$!
stop_daemon() { kill "$DAEMON" 2>/dev/null || true; }
trap 'stop_daemon; cleanup' EXIT

wait_http_ok "$BASE/readyz" 30 || { cat "$WORK_DIR/daemon.log" >&2; fail "daemon never became ready"; }
echo "ok: ready"

expect_status() {  # expect_status CODE METHOD PATH
  local code
  code=$(curl -s -o "$WORK_DIR/body" -w '%{http_code}' -X "$2" "$BASE$3")
  [ "$code" = "$1" ] || { cat "$WORK_DIR/body" >&2; fail "$2 $3: expected $1, got $code"; }
  echo "ok: $2 $3 → $code"
}
check() {  # check DESCRIPTION JQ_EXPRESSION over the last body
  [ "$(jq -r "$2" "$WORK_DIR/body")" = "true" ] || { jq . "$WORK_DIR/body" >&2; fail "$1 ($2)"; }
  echo "ok: $1"
}

expect_status 200 GET /healthz
expect_status 200 GET /api/v1/recommendations
check "envelope"          'has("generated_at") and has("data_age_seconds") and .stale == false'
HOARD='(.recommendations[] | select(.kind == "gpu-node-hoarding"))'
check "hoarding advised"  "[$HOARD] | length == 1"
check "patch is there"    "$HOARD.patch_yaml | contains(\"path: /spec/taints/-\")"
TRUTH=$(jq -c '[.hoarded_gpu_nodes[].node | "node/" + .] | sort' "$SCENARIO/ground_truth.json")
check "the planted nodes" "$HOARD.instances | sort == $TRUTH"
expect_status 200 GET "/api/v1/recommendations?kind=gpu-node-hoarding&severity=warning"
check "filter keeps it"   '(.recommendations | length) == 1'
expect_status 200 GET "/api/v1/recommendations?kind=dag-stacking"
check "filter drops it"   '(.recommendations | length) == 0'
expect_status 200 GET /api/v1/findings
check "findings listed"   "[.findings[] | select(.kind == \"gpu-node-hoarding\") | .target] | sort == $TRUTH"
expect_status 200 GET /api/v1/dags
check "runs listed"       '(.dags | length) > 0 and all(.dags[]; has("critical_path"))'
check "runs have wait share and what-if" 'all(.dags[]; has("wait_share") and has("whatif_makespan_seconds"))'
RUN=$(jq -r '.dags | max_by(.makespan_seconds) | .id' "$WORK_DIR/body")
expect_status 200 GET "/api/v1/dags/$RUN"
check "run detail"        '(.dag.tasks_detail | length) > 0 and (.dag.edges_detail | length) >= 0'
expect_status 200 GET "/api/v1/dags/$RUN?format=dot"
grep -q '^digraph' "$WORK_DIR/body" || fail "DOT output"
expect_status 200 GET "/api/v1/dags/$RUN?format=svg"
grep -q '<svg' "$WORK_DIR/body" || fail "SVG output"
expect_status 200 GET "/api/v1/dags/$RUN/gantt.svg"
grep -q 'class="task' "$WORK_DIR/body" || fail "Gantt output"
expect_status 200 GET /api/v1/nodes
check "nodes listed"      '(.nodes | length) > 0 and all(.nodes[]; has("stranded_share"))'
expect_status 200 GET /api/v1/scheduling
check "scheduling"        '.scheduling | has("latency")'
expect_status 200 GET /
expect_status 404 GET /api/v1/nope
expect_status 405 POST /api/v1/recommendations
code=$(curl -s -o /dev/null -w '%{http_code}' -X GET --data 'x=1' "$BASE/api/v1/dags")
[ "$code" = 413 ] || fail "a GET body should be refused with 413, got $code"
echo "ok: GET with a body → 413"

curl -fsS "$BASE/metrics" >"$WORK_DIR/metrics.txt" || fail "GET /metrics"
promtool check metrics <"$WORK_DIR/metrics.txt" || fail "promtool check metrics"
echo "ok: promtool check metrics"
grep -q '^dagadvisor_recommendations_active{.*kind="gpu-node-hoarding".*} 1' "$WORK_DIR/metrics.txt" \
  || fail "dagadvisor_recommendations_active for gpu-node-hoarding missing"
grep -q '^dagadvisor_analysis_stale{.*} 0' "$WORK_DIR/metrics.txt" || fail "analysis_stale should be 0"
echo "ok: exporter series"

expect_clean_sigterm "$DAEMON" "$WORK_DIR/daemon.log"
