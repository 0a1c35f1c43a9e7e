#!/usr/bin/env bash
# gpu-node-hoarding on the real control plane: the gpu-hoarding scenario played in minutes on
# kube-apiserver, kube-controller-manager, kube-scheduler and kwok → `dagadvisor serve` on the
# real Prometheus scraping the real kube-state-metrics and scheduler, reading the API with the
# shipped RBAC only → the recommendation names the GPU pods the real scheduler left pending and
# the GPU nodes that hold them out → its patches applied with kubectl in its stated order → the
# real scheduler places those pods. The daemon's token cannot write.
# Args: DAGADVISOR DAGADVISOR_SIM TESTBED_BIN
DAGADVISOR=$1
DAGADVISOR_SIM=$2
TESTBED_BIN=$3
source "$(dirname "$0")/cluster_harness.sh"

start_cluster
start_gpu_pool_first "$ROOT/config/scenarios/gpu-hoarding.yaml" 0.05
# At 1/20 of the scenario's times: runs every 3 min, training tasks of about 2 min.
"$TESTBED_BIN/play" --plan "$WORK_DIR/plan.json" --runs-only --summary "$WORK_DIR/summary.json" \
  >"$WORK_DIR/play.log" 2>&1 &
PIDS+=($!)
gpu_pods_pend() { [ -n "$(pending_gpu_pods)" ]; }
wait_until 300 "the real scheduler leaves GPU training pods pending" gpu_pods_pend
PENDING=$(pending_gpu_pods)
echo "pending GPU pods: $PENDING"

deploy_dagadvisor_rbac
serve_dagadvisor
REPORT=$WORK_DIR/recommendations.json
has_hoarding() {
  curl -fsS "$DAGADVISOR_URL/api/v1/recommendations" >"$REPORT" &&
    jq -e 'any(.recommendations[]; .kind == "gpu-node-hoarding")' "$REPORT"
}
wait_until 120 "dagadvisor recommends gpu-node-hoarding" has_hoarding
R='(.recommendations[] | select(.kind == "gpu-node-hoarding"))'
jq "$R" "$REPORT" >"$WORK_DIR/hoarding.json"

# The recommendation names the GPU pods the real scheduler left pending, and GPU nodes.
NAMED=$(jq -r '.evidence.pending_gpu_pods[]' "$WORK_DIR/hoarding.json" | sort)
[ -n "$NAMED" ] || fail "the recommendation names no pending GPU pod"
NOW_PENDING=$(pending_gpu_pods)
for pod in $NAMED; do
  grep -qxF "$pod" <<<"$PENDING"$'\n'"$NOW_PENDING" || fail "$pod is named pending but the API server never had it pending"
done
ok "the pending GPU pods named: $(echo $NAMED)"
HOARDED=$(jq -r '.instances[] | select(startswith("node/")) | ltrimstr("node/")' "$WORK_DIR/hoarding.json")
[ -n "$HOARDED" ] || fail "no hoarded node named"
for node in $HOARDED; do
  gpus=$(kubectl get node "$node" -o jsonpath='{.status.allocatable.nvidia\.com/gpu}')
  [ "${gpus:-0}" -gt 0 ] || fail "$node is named hoarded but has no GPU"
  kubectl get pods -A --field-selector "spec.nodeName=$node" -o json |
    jq -e 'any(.items[]; .metadata.namespace == "online")' >/dev/null ||
    fail "$node is named hoarded but holds no online pod"
done
ok "the hoarded GPU nodes named: $(echo $HOARDED)"

# The scheduler's side comes from the real scheduler's own histograms and queues: its latency
# SLI (labelled by attempts, not by profile), and the pending pod it found no room for, by the
# plugin that said so.
S='.scheduling'
SCHEDULER_SEES_IT="$S.present and $S.latency_metric == \"scheduler_pod_scheduling_sli_duration_seconds\"
  and any($S.latency[]; (.p99_seconds | type) == \"number\" and .p99_seconds > 0)
  and $S.unschedulable_by_plugin.NodeResourcesFit >= 1 and ($S.pending_by_queue | add) >= 1"
# The scheduler is scraped on its own beat, a few seconds apart from kube-state-metrics.
scheduler_sees_it() {
  curl -fsS "$DAGADVISOR_URL/api/v1/scheduling" >"$WORK_DIR/scheduling.json" &&
    jq -e "$SCHEDULER_SEES_IT" "$WORK_DIR/scheduling.json"
}
wait_until 60 "the scheduler's own figures show the pending pod" scheduler_sees_it
ok "the real scheduler's SLI histogram (p99 $(jq "$S.latency[0].p99_seconds" "$WORK_DIR/scheduling.json") s) and its unschedulable pod (NodeResourcesFit)"

# Read-only: the shipped ClusterRole lets the daemon read, and nothing else.
as_daemon() { kubectl --kubeconfig "$DAGADVISOR_KUBECONFIG" "$@"; }
as_daemon get pods -A -o name >/dev/null || fail "the daemon's token cannot list pods"
refused() {  # refused KUBECTL_ARGS...: the daemon's token is refused, Forbidden
  local out
  if out=$(as_daemon "$@" 2>&1); then fail "the daemon's token could: kubectl $*"; fi
  grep -qi "forbidden" <<<"$out" || fail "kubectl $* failed otherwise than Forbidden: $out"
}
FIRST_POD=${NAMED%%$'\n'*}
refused label node "${HOARDED%%$'\n'*}" dagadvisor-test=1
refused delete pod -n "${FIRST_POD%%/*}" "${FIRST_POD#*/}"
refused create configmap dagadvisor-test -n monitoring
refused annotate workflows -n ml --all dagadvisor-test=1
ok "with the shipped RBAC every write is refused (Forbidden)"

# The patches, applied to the live objects with kubectl in the stated order, each read back.
python3 "$ROOT/tests/cluster/apply_patches.py" "$WORK_DIR/hoarding.json" "$WORK_DIR/applied.json" ||
  fail "a patch was refused or lost something (above)"
ok "every patch applied by kubectl, nothing lost"
restart_deployments_on $HOARDED

# The real scheduler places the GPU pods that were pending.
bound() {
  local pod
  for pod in $NAMED; do
    [ -n "$(kubectl get pod -n "${pod%%/*}" "${pod#*/}" -o jsonpath='{.spec.nodeName}')" ] || return 1
  done
}
wait_until 120 "the real scheduler places the GPU pods that were pending" bound
for pod in $NAMED; do
  node=$(kubectl get pod -n "${pod%%/*}" "${pod#*/}" -o jsonpath='{.spec.nodeName}')
  grep -qxF "$node" <<<"$HOARDED" || fail "$pod went to $node, not one of the hoarded GPU nodes"
done
ok "each on a GPU node the advice freed"
