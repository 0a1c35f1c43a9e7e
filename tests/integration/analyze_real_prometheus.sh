#!/usr/bin/env bash
# The whole path on real parts: OpenMetrics fixture → promtool blocks → a real Prometheus →
# `dagadvisor analyze --prometheus … --at …` → the hoarded GPU node and the critical path.
# Args: DAGADVISOR_BINARY FIXTURE_OM
DAGADVISOR=$1
FIXTURE=$2
source "$(dirname "$0")/prometheus_harness.sh"

start_prometheus_with_openmetrics "$FIXTURE"
AT=2026-11-29T00:15:00Z   # the fixture's last sample: GPU task pending since 00:07

"$DAGADVISOR" analyze --prometheus "$PROM_URL" --at "$AT" --output json >"$WORK_DIR/report.json" \
  || fail "analyze exited $?"
R="$WORK_DIR/report.json"
check() {  # check DESCRIPTION JQ_EXPRESSION (must print true)
  [ "$(jq -r "$2" "$R")" = "true" ] || { jq . "$R" >&2; fail "$1 ($2)"; }
  echo "ok: $1"
}
check "cluster seen"                '.summary.nodes == 2 and .summary.gpu_nodes == 1 and .summary.pending_pods == 1'
check "one hoarding finding"        '[.findings[] | select(.kind == "gpu-node-hoarding")] | length == 1'
F='(.findings[] | select(.kind == "gpu-node-hoarding"))'
check "on gpu-1"                    "$F.target == \"node/gpu-1\""
check "4 GPUs free"                 "$F.evidence.free_gpus == 4"
check "75% of CPU held by non-GPU"  "$F.evidence.non_gpu_cpu_share == 0.75"
check "owners named"                "[$F.evidence.non_gpu_owners[].name] | sort == [\"api-5d8f7c9b4\", \"fluentd\"]"
check "the pending pod is blocked"  "$F.evidence.pending_gpu_pods[0].pod == \"train-r1-fit\""
check "a recommendation with patch" 'any(.recommendations[]; .kind == "gpu-node-hoarding" and (.patch_yaml | contains("path: /spec/taints/-")))'
check "two runs rebuilt"            '[.dags[].id] | sort == ["ml/etl/nightly-1", "ml/train/r1"]'
check "etl critical path"           '(.dags[] | select(.id == "ml/etl/nightly-1") | .critical_path) == ["extract", "transform", "load"]'
check "etl critical path length"    '(.dags[] | select(.id == "ml/etl/nightly-1") | .critical_path_seconds) == 290'
check "etl makespan"                '(.dags[] | select(.id == "ml/etl/nightly-1") | .makespan_seconds) == 300'
check "train run unfinished"        '(.dags[] | select(.id == "ml/train/r1") | .finished) == false'
# A one-shot analysis reads the catalog once and keeps nothing: no pod_seen, no window. Then
# what the finished tasks with a parent (transform, load) received: one request of each figure.
check "the catalog's 21 queries and 2 of received bytes" '.queries == 23'

# Before the GPU task existed (00:05) there is nothing to advise.
"$DAGADVISOR" analyze --prometheus "$PROM_URL" --at 2026-11-29T00:05:00Z --output json >"$R" \
  || fail "early analyze exited $?"
check "quiet before the GPU task"   '(.findings | length) == 0 and (.recommendations | length) == 0'

# A Prometheus that is gone is a clear error and exit code 1, never a crash.
kill "$PROM_PID"; wait "$PROM_PID" 2>/dev/null || true; PROM_PID=""
set +e
"$DAGADVISOR" analyze --prometheus "$PROM_URL" --at "$AT" --output json >/dev/null 2>"$WORK_DIR/err.txt"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "expected exit 1 with Prometheus down, got $rc"
grep -q "127.0.0.1" "$WORK_DIR/err.txt" || fail "error does not name the backend: $(cat "$WORK_DIR/err.txt")"
echo "ok: Prometheus down → exit 1 naming the backend"
