#!/usr/bin/env bash
# The closed loop on the real control plane, judged by the real kube-scheduler: the gpu-hoarding
# scenario's runs played once as they are → dagadvisor predicts what its gpu-node-hoarding advice
# would change (its replay of the window) → the advice applied to the live objects as a user
# applies it → the same runs played again on the same nodes, several times (the scheduler breaks
# ties at random) → the predicted change of the GPU pods' wait is held to the realised one.
# Args: DAGADVISOR DAGADVISOR_SIM TESTBED_BIN
DAGADVISOR=$1
DAGADVISOR_SIM=$2
TESTBED_BIN=$3
KIND=gpu-node-hoarding
HEADLINE=gpu_pod_pending_seconds
# In CI: the first two runs at 1/33 (training tasks of 72 s), played once before and twice after.
SCALE=${CLOSED_LOOP_SCALE:-0.03}
RUNS=${CLOSED_LOOP_RUNS:-2}
AFTER_PLAYS=${CLOSED_LOOP_AFTER_PLAYS:-2}
source "$(dirname "$0")/cluster_harness.sh"
source "$(dirname "$0")/closed_loop.sh"

start_cluster
start_gpu_pool_first "$ROOT/config/scenarios/gpu-hoarding.yaml" "$SCALE" \
  ".runs |= (sort_by(.arrival_seconds) | .[:$RUNS])"
deploy_dagadvisor_rbac
serve_dagadvisor
play_runs_taking_prediction before-1 "$KIND"
jq --arg kind "$KIND" '[.recommendations[] | select(.kind == $kind)][0]' "$WORK_DIR/prediction.json" \
  >"$WORK_DIR/recommendation.json"

python3 "$ROOT/tests/cluster/apply_patches.py" "$WORK_DIR/recommendation.json" "$WORK_DIR/applied.json" ||
  fail "a patch was refused or lost something (above)"
restart_deployments_on $(jq -r '.instances[] | select(startswith("node/")) | ltrimstr("node/")' \
  "$WORK_DIR/recommendation.json")
kubectl rollout status deployment -n online --timeout 120s >/dev/null || fail "the online services did not roll out"
ok "the advice applied as a user applies it"

play_after "$AFTER_PLAYS"
judge_headline "$HEADLINE" 0.25
