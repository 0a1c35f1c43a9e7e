#!/usr/bin/env bash
# The seed's OpenMetrics file is accepted by promtool without dropping a sample, and a real
# Prometheus answers queries at a past time that agree with the ground truth.
# Usage: prometheus_backfill_test.sh <dagadvisor-sim> <scenario.yaml>
set -euo pipefail
SIM="$1"
SCENARIO="$2"
WORK="$(mktemp -d)"
PROM_PID=""
cleanup() {
  if [[ -n "$PROM_PID" ]]; then kill "$PROM_PID" 2>/dev/null || true; wait "$PROM_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json_number() { grep -m1 "\"$1\":" "$2" | sed -E 's/.*: *([0-9.e+-]+).*/\1/'; }

"$SIM" generate --scenario "$SCENARIO" --out "$WORK/out"
samples=$(grep -vc '^#' "$WORK/out/metrics.om")
promtool tsdb create-blocks-from openmetrics "$WORK/out/metrics.om" "$WORK/data" >/dev/null
stored=$(promtool tsdb list "$WORK/data" | awk 'NR>1 {s += $5} END {print s}')
[[ "$stored" == "$samples" ]] || fail "promtool kept $stored of $samples samples (out of order or duplicates?)"

source "$(dirname "${BASH_SOURCE[0]}")/../support/ports.sh"
port=$(free_port) || fail "no free port"
echo 'global: {scrape_interval: 15s}' >"$WORK/prom.yml"
prometheus --config.file="$WORK/prom.yml" --storage.tsdb.path="$WORK/data" \
  --storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$port" \
  --log.level=warn >"$WORK/prom.log" 2>&1 &
PROM_PID=$!
for _ in $(seq 1 150); do
  curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null 2>&1 && break
  kill -0 "$PROM_PID" 2>/dev/null || { cat "$WORK/prom.log" >&2; fail "prometheus exited"; }
  sleep 0.2
done
curl -sf "http://127.0.0.1:$port/-/ready" >/dev/null || fail "prometheus not ready"

T=$(json_number suggested_analysis_time "$WORK/out/ground_truth.json")
NODES=$(json_number nodes "$WORK/out/summary.json")
query() {
  curl -sf "http://127.0.0.1:$port/api/v1/query" --data-urlencode "query=$1" --data-urlencode "time=$T" |
    sed -E 's/.*"value":\[[0-9.]+,"([^"]+)"\].*/\1/'
}
got=$(query 'count(kube_node_info)')
[[ "$got" == "$NODES" ]] || fail "count(kube_node_info) at $T = '$got', want $NODES"
hoarded=$(grep -c '"free_gpus"' "$WORK/out/ground_truth.json" || true)
[[ "$hoarded" -ge 1 ]] || fail "the seed scenario must plant hoarded GPU nodes"
pending=$(query 'sum(kube_pod_status_unschedulable)')
[[ "$pending" =~ ^[0-9]+$ && "$pending" -ge 1 ]] || fail "no unschedulable pods at $T: '$pending'"
gpu_pending=$(query 'count(kube_pod_container_resource_requests{resource="nvidia_com_gpu"} * on(uid) group_left() (kube_pod_status_unschedulable == 1))')
[[ "$gpu_pending" =~ ^[0-9]+$ && "$gpu_pending" -ge 1 ]] || fail "no pending GPU pods at $T: '$gpu_pending'"
p95=$(query 'histogram_quantile(0.95, sum by (le) (rate(scheduler_pod_scheduling_sli_duration_seconds_bucket[1h])))')
[[ "$p95" =~ ^[0-9.e+-]+$ ]] || fail "histogram_quantile gave '$p95'"
dags=$(query 'count(count by (label_dag_id) (kube_pod_labels{label_dag_id!=""}))')
[[ "$dags" =~ ^[0-9]+$ && "$dags" -ge 1 ]] || fail "no seed-convention pods at $T: '$dags'"
echo "PASS: $samples samples; at $T nodes=$got unschedulable=$pending gpu_pending=$gpu_pending p95=$p95 dags=$dags"
