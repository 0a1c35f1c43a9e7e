#!/usr/bin/env bash
# dagadvisor-sim serve: a real Prometheus scrapes /metrics and sees the simulated cluster.
# Usage: live_scrape_test.sh <dagadvisor-sim> <scenario.yaml>
set -euo pipefail
SIM="$1"
SCENARIO="$2"
WORK="$(mktemp -d)"
SIM_PID=""
PROM_PID=""
cleanup() {
  for pid in "$PROM_PID" "$SIM_PID"; do
    if [[ -n "$pid" ]]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  done
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
source "$(dirname "${BASH_SOURCE[0]}")/../support/ports.sh"
wait_for() {  # wait_for <tries> <command...>: polls every 0.2 s
  local tries="$1"; shift
  for _ in $(seq 1 "$tries"); do "$@" && return 0; sleep 0.2; done
  return 1
}

SIM_PORT=$(free_port)
"$SIM" serve --scenario "$SCENARIO" --listen "127.0.0.1:$SIM_PORT" --speed 60 >"$WORK/sim.log" 2>&1 &
SIM_PID=$!
wait_for 100 curl -sf -o "$WORK/metrics.txt" "http://127.0.0.1:$SIM_PORT/metrics" || fail "no /metrics"
grep -q '^kube_node_info{' "$WORK/metrics.txt" || fail "kube_node_info missing"
# dcgm-exporter's real label names (UUID, modelName, Hostname) fail promtool's snake_case lint,
# so the DCGM families are linted out; everything else must pass.
grep -q '^DCGM_FI_DEV_GPU_UTIL{.*UUID="GPU-' "$WORK/metrics.txt" || fail "DCGM series missing"
grep -v 'DCGM_FI_DEV_' "$WORK/metrics.txt" | promtool check metrics >"$WORK/lint.txt" 2>&1 ||
  { cat "$WORK/lint.txt" >&2; fail "promtool check metrics"; }

PROM_PORT=$(free_port)
cat >"$WORK/prom.yml" <<YAML
global: {scrape_interval: 1s}
scrape_configs:
  - job_name: sim
    honor_labels: true
    static_configs: [{targets: ['127.0.0.1:$SIM_PORT']}]
YAML
prometheus --config.file="$WORK/prom.yml" --storage.tsdb.path="$WORK/data" \
  --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$WORK/prom.log" 2>&1 &
PROM_PID=$!
nodes=$(grep -c '^kube_node_info{' "$WORK/metrics.txt")
has_nodes() {
  curl -sf "http://127.0.0.1:$PROM_PORT/api/v1/query" --data-urlencode 'query=count(kube_node_info{job="kube-state-metrics"})' |
    grep -q "\"$nodes\"\]"
}
wait_for 150 has_nodes || { cat "$WORK/prom.log" >&2; fail "Prometheus never saw $nodes nodes"; }
echo "PASS: Prometheus scraped $nodes nodes from the live simulator"
