#!/usr/bin/env bash
# Direct scrape, no Prometheus anywhere: `dagadvisor analyze` scrapes the live simulator's
# /metrics itself (sources.scrape.targets) and must agree with the simulator's own ground truth
# (`dagadvisor-sim generate` of the same scenario): the node count, the pod count of the page it
# scraped, the pending GPU pods, and exactly the planted hoarded GPU nodes.
# Args: DAGADVISOR_BINARY SIMULATOR_BINARY SCENARIO_YAML (one with a planted gpu-node-hoarding)
set -euo pipefail
DAGADVISOR=$1
SIM=$2
SCENARIO=$3
# The harness gives WORK_DIR, fail and free_port; no Prometheus is started.
# shellcheck source=prometheus_harness.sh
source "$(dirname "$0")/prometheus_harness.sh"
SIM_PID=""
trap 'if [ -n "$SIM_PID" ]; then kill "$SIM_PID" 2>/dev/null || true; wait "$SIM_PID" 2>/dev/null || true; fi; cleanup' EXIT

# The live simulator maps the window start to "now" and runs `SPEED` times faster: starting the
# window 300 simulated seconds before the simulator's suggested analysis time puts the planted
# problem 300/SPEED wall seconds away.
"$SIM" generate --scenario "$SCENARIO" --out "$WORK_DIR/probe" >/dev/null || fail "simulator generate"
start=$(jq -r .window.start "$WORK_DIR/probe/ground_truth.json")
suggested=$(jq -r .suggested_analysis_time "$WORK_DIR/probe/ground_truth.json")
scenario_start=$(grep -E '^start:' "$SCENARIO" | awk '{print $2}')
window_start=$(( suggested - scenario_start - 300 ))
[ "$window_start" -ge 0 ] || window_start=0
sed -E "s/^output: \{/output: {window_start: $window_start, /" "$SCENARIO" >"$WORK_DIR/scenario.yaml"
grep -q "window_start: $window_start" "$WORK_DIR/scenario.yaml" || fail "cannot set output.window_start"
"$SIM" generate --scenario "$WORK_DIR/scenario.yaml" --out "$WORK_DIR/truth" >/dev/null ||
  fail "simulator generate (shifted window)"
TRUTH="$WORK_DIR/truth/ground_truth.json"
[ "$(jq -r .suggested_analysis_time "$TRUTH")" = "$suggested" ] || fail "shifting the window moved the suggested time"
planted=$(jq -c '[.hoarded_gpu_nodes[].node] | sort' "$TRUTH")
[ "$planted" != "[]" ] || fail "$SCENARIO plants no hoarded GPU node"
true_nodes=$(jq -r .summary.nodes "$TRUTH")
pending_pods=$(jq -r '.pending_gpu_pods[].pod' "$TRUTH")

PORT=$(free_port)
URL="http://127.0.0.1:$PORT/metrics"
"$SIM" serve --scenario "$WORK_DIR/scenario.yaml" --listen "127.0.0.1:$PORT" --speed 30 \
  >"$WORK_DIR/sim.log" 2>&1 &
SIM_PID=$!
cat >"$WORK_DIR/dagadvisor.yaml" <<YAML
sources:
  scrape:
    targets: ["$URL"]
    timeout: 20s
YAML
"$DAGADVISOR" check-config --config "$WORK_DIR/dagadvisor.yaml" >/dev/null 2>&1 || fail "check-config"

# Pods of one page, and whether the ground truth's pending GPU pods are pending in it.
pod_count() { grep -E '^kube_pod_info\{' "$1" | grep -oE 'uid="[^"]*"' | sort -u | wc -l; }
all_pending() {
  local pod
  for pod in $pending_pods; do
    grep -qE "^kube_pod_status_phase\{[^}]*pod=\"$pod\"[^}]*phase=\"Pending\"[^}]*\} 1" "$1" || return 1
  done
}

# Poll (bounded) until the planted state is live, then analyse; the page fetched just before
# and just after bracket what dagadvisor saw. Retried when the state ended in between.
found=""
for attempt in $(seq 1 300); do
  curl -fsS --max-time 5 -o "$WORK_DIR/before.txt" "$URL" 2>/dev/null || { sleep 0.2; continue; }
  if ! all_pending "$WORK_DIR/before.txt"; then sleep 0.2; continue; fi
  "$DAGADVISOR" analyze --config "$WORK_DIR/dagadvisor.yaml" --output json \
    >"$WORK_DIR/report.json" 2>"$WORK_DIR/analyze.err" || { cat "$WORK_DIR/analyze.err" >&2; fail "analyze exited $?"; }
  curl -fsS --max-time 5 -o "$WORK_DIR/after.txt" "$URL" || fail "simulator stopped answering"
  if all_pending "$WORK_DIR/after.txt"; then found=yes; break; fi
  echo "attempt $attempt: the planted state ended during the scrape, again" >&2
done
[ -n "$found" ] || fail "the simulator never showed the planted pending GPU pods"

jq -r .source "$WORK_DIR/report.json" | grep -q "^scrape http://127.0.0.1:$PORT/metrics" ||
  fail "source is $(jq -r .source "$WORK_DIR/report.json")"
nodes=$(jq -r .summary.nodes "$WORK_DIR/report.json")
[ "$nodes" = "$true_nodes" ] || fail "nodes: dagadvisor $nodes, simulator $true_nodes"
echo "ok: nodes $nodes"
pods=$(jq -r .summary.pods "$WORK_DIR/report.json")
low=$(pod_count "$WORK_DIR/before.txt"); high=$(pod_count "$WORK_DIR/after.txt")
[ "$low" -le "$high" ] || { t=$low; low=$high; high=$t; }
[ "$pods" -ge "$low" ] && [ "$pods" -le "$high" ] || fail "pods: dagadvisor $pods, the pages had $low..$high"
echo "ok: pods $pods (pages before/after: $low, $high)"
pending=$(jq -r .summary.pending_pods "$WORK_DIR/report.json")
[ "$pending" -ge "$(echo "$pending_pods" | wc -w)" ] || fail "pending pods: dagadvisor $pending"
found=$(jq -c '[.findings[] | select(.kind == "gpu-node-hoarding") | .target | ltrimstr("node/")] | sort' "$WORK_DIR/report.json")
[ "$found" = "$planted" ] || fail "hoarded GPU nodes: planted $planted, found $found"
echo "ok: hoarded GPU nodes $found"
jq -e '.scheduling.latency | length > 0' "$WORK_DIR/report.json" >/dev/null ||
  fail "no scheduling latency from the scheduler's histograms"
echo "PASS: direct scrape of the live simulator matches its ground truth"
