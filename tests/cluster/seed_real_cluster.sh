#!/usr/bin/env bash
# The bundled scenario's story on the real control plane: the seed scenario played at 1/20 (its
# seven hours in 21 minutes) with the detectors' time thresholds scaled alike. Every kind the
# scenario expects comes out of what the real kube-scheduler, kube-state-metrics and kwok's
# kubelet metrics export and what the API server lists; then each kind's latest recommendation
# has its patches applied to the live objects as the daemon tells a user to, and each applies
# without losing anything.
# Args: DAGADVISOR DAGADVISOR_SIM TESTBED_BIN
DAGADVISOR=$1
DAGADVISOR_SIM=$2
TESTBED_BIN=$3
source "$(dirname "$0")/cluster_harness.sh"

SCENARIO=$ROOT/config/scenarios/seed.yaml
EXPECTED=$(python3 -c 'import sys, yaml; print(" ".join(yaml.safe_load(open(sys.argv[1]))["expected_findings"]))' "$SCENARIO")

start_cluster
play_scenario "$SCENARIO" 0.05
deploy_dagadvisor_rbac
# The settings that are durations, at 1/20 of the shipped ones. Usage is sampled every 5 minutes
# (the usage window's step): the shipped 30 samples are 150 minutes, 7.5 at 1/20, so one sample.
serve_dagadvisor "sources: {prometheus: {incremental: {usage_refresh: 45s}}}
detectors:
  split_dependencies: {min_run_transfer: 2s}
  capacity_shortfall: {min_pending_age: 3s}
  critical_path_priority: {min_rich_slack: 15s}
  idle_slots: {min_ready_wait: 3s}
  over_request: {min_samples: 1}"

# The kinds come and go as the pipelines run: each kind's latest recommendation is kept.
mkdir -p "$WORK_DIR/latest"
seen_every_kind() {
  curl -fsS "$DAGADVISOR_URL/api/v1/recommendations" >"$WORK_DIR/recommendations.json" || return 1
  local kind missing=""
  for kind in $EXPECTED; do
    if jq -e --arg kind "$kind" '[.recommendations[] | select(.kind == $kind)][0] // empty' \
      "$WORK_DIR/recommendations.json" >"$WORK_DIR/latest/$kind.next"; then
      mv "$WORK_DIR/latest/$kind.next" "$WORK_DIR/latest/$kind.json"
    fi
    [ -s "$WORK_DIR/latest/$kind.json" ] || missing+=" $kind"
  done
  echo "not seen yet:${missing:- none}"
  [ -z "$missing" ]
}
wait_until 660 "every kind the scenario expects: $EXPECTED" seen_every_kind

# Where each came from: the real scheduler's pending pods and histograms, kwok's usage metrics.
jq -e '.evidence.pending_gpu_pods | length > 0' "$WORK_DIR/latest/gpu-node-hoarding.json" >/dev/null ||
  fail "gpu-node-hoarding names no pending GPU pod"

# over-request read what kwok's kubelets report of each pod: the working set its annotation gives,
# and a CPU rate above zero and at most its annotation (a rate over 5 minutes of a counter younger
# than that is below the pod's steady use).
jq -r '.evidence.pods[] | .namespace as $ns | .pods[]
  | "\($ns) \(.pod) \(.memory_used_bytes) \(.cpu_used_millis)"' \
  "$WORK_DIR/latest/over-request.json" >"$WORK_DIR/usage-read.txt"
[ -s "$WORK_DIR/usage-read.txt" ] || fail "over-request names no pod"
while read -r ns pod memory cpu; do
  annotations=$(kubectl get pod "$pod" -n "$ns" -o json | jq -c .metadata.annotations)
  jq -e --argjson memory "$memory" --argjson cpu "$cpu" '
    (.["kwok.x-k8s.io/usage-memory"] | tonumber) == $memory
    and $cpu > 0 and $cpu <= (.["kwok.x-k8s.io/usage-cpu"] | rtrimstr("m") | tonumber) + 1' \
    <<<"$annotations" >/dev/null ||
    fail "over-request read $ns/$pod as $memory bytes and ${cpu}m, kwok reports $annotations"
done <"$WORK_DIR/usage-read.txt"
ok "over-request's usage is what kwok's kubelets report ($(wc -l <"$WORK_DIR/usage-read.txt") pod(s))"

# Each kind's patches, in its stated order, on the live objects.
for kind in $EXPECTED; do
  if jq -e '.patches | length == 0' "$WORK_DIR/latest/$kind.json" >/dev/null; then
    ok "$kind: no patch (its advice is a step to take, not an object to change)"
    continue
  fi
  python3 "$ROOT/tests/cluster/apply_patches.py" "$WORK_DIR/latest/$kind.json" \
    "$WORK_DIR/applied-$kind.json" | sed "s/^/$kind: /" ||
    fail "$kind's patches do not all apply to the live objects"
  APPLIED=$(jq '[.[] | select(.status == "applied")] | length' "$WORK_DIR/applied-$kind.json")
  ok "$kind: $APPLIED object(s) patched, nothing lost"
done
