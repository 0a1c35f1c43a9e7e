# Sourced by the real-cluster tests: the control plane of testbed/cluster.sh (real etcd,
# kube-apiserver, kube-controller-manager, kube-scheduler, kwok, kube-state-metrics and Debian's
# Prometheus) started in a fresh directory and stopped when the test exits, a scenario's plan
# played on it, and dagadvisor deployed as a user deploys it (the kustomize base's
# ServiceAccount and ClusterRole, its token, nothing more).
# Needs: TESTBED_BIN (the binaries of testbed/build.sh), DAGADVISOR, DAGADVISOR_SIM.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WORK_DIR=$(mktemp -d "${TMPDIR:-/tmp}/dagadvisor-cluster.XXXXXX")
PIDS=()
export TESTBED_BIN
export PATH="$TESTBED_BIN:$PATH"  # the kubectl of the cluster's own release

cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  "$ROOT/testbed/cluster.sh" stop "$WORK_DIR/cluster" || true
  [ -n "${KEEP_WORK_DIR:-}" ] || rm -rf "$WORK_DIR"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  if [ -s "$WORK_DIR/dagadvisor.log" ]; then
    echo "--- the daemon's last log lines:" >&2
    tail -n 15 "$WORK_DIR/dagadvisor.log" >&2
  fi
  exit 1
}
ok() { echo "ok: $*"; }
source "$ROOT/tests/support/ports.sh"

start_cluster() {
  "$ROOT/testbed/cluster.sh" start "$WORK_DIR/cluster" >"$WORK_DIR/cluster.log" 2>&1 \
    || { cat "$WORK_DIR/cluster.log" >&2; fail "the cluster did not start"; }
  # shellcheck disable=SC1091
  source "$WORK_DIR/cluster/env"
  ok "control plane up: $(kubectl version -o json | jq -r .serverVersion.gitVersion)"
}

# Plays SCENARIO at SCALE (every time multiplied by it) in the background, its plan first passed
# through the jq FILTER if one is given; the plan is in $WORK_DIR/plan.json and what happened goes
# to $WORK_DIR/summary.json when the player stops.
play_scenario() {  # play_scenario SCENARIO_FILE SCALE [FILTER]
  "$DAGADVISOR_SIM" plan --scenario "$1" --time-scale "$2" --out "$WORK_DIR/plan-full.json" \
    || fail "dagadvisor-sim plan failed"
  jq "${3:-.}" "$WORK_DIR/plan-full.json" >"$WORK_DIR/plan.json"
  "$TESTBED_BIN/play" --plan "$WORK_DIR/plan.json" --summary "$WORK_DIR/summary.json" \
    >"$WORK_DIR/play.log" 2>&1 &
  PIDS+=($!)
}

# The GPU pool first, as it often comes about: the GPU nodes are up, the online services and log
# collectors fill them (the real scheduler spreads them evenly over the three), then the CPU pool
# is added. Played all at once, the scheduler's random tie-breaks sometimes leave one GPU node
# light enough for two training pods, and nothing pends. The plan, passed through the jq FILTER
# if one is given, is in $WORK_DIR/plan.json; its runs are left to play (`play --runs-only`).
start_gpu_pool_first() {  # start_gpu_pool_first SCENARIO_FILE SCALE [FILTER]
  "$DAGADVISOR_SIM" plan --scenario "$1" --time-scale "$2" --out "$WORK_DIR/plan-full.json" ||
    fail "dagadvisor-sim plan failed"
  jq "${3:-.}" "$WORK_DIR/plan-full.json" >"$WORK_DIR/plan.json"
  local cpu_node='(.kind == "Node" and .metadata.labels["node-type"] != "gpu")'
  jq ".objects |= map(select($cpu_node | not)) | .runs = []" "$WORK_DIR/plan.json" \
    >"$WORK_DIR/gpu-pool.json"
  "$TESTBED_BIN/play" --plan "$WORK_DIR/gpu-pool.json" --summary /dev/null \
    >"$WORK_DIR/play-gpu-pool.log" 2>&1 ||
    { cat "$WORK_DIR/play-gpu-pool.log" >&2; fail "the GPU pool and its workloads did not settle"; }
  jq "{apiVersion: \"v1\", kind: \"List\", items: [.objects[] | select($cpu_node)]}" \
    "$WORK_DIR/plan.json" | kubectl create -f - >/dev/null
}

# "then restart the non-GPU Deployments/Jobs on these nodes", as a user does after the
# gpu-node-hoarding patches: the Deployments of the ReplicaSets whose pods sit on NODES.
restart_deployments_on() {  # restart_deployments_on NODE...
  local node ns rs deployment
  for node in "$@"; do
    kubectl get pods -A --field-selector "spec.nodeName=$node" -o json | jq -r '.items[]
      | select(.metadata.ownerReferences[0].kind == "ReplicaSet")
      | "\(.metadata.namespace) \(.metadata.ownerReferences[0].name)"'
  done | sort -u | while read -r ns rs; do
    kubectl get replicaset -n "$ns" "$rs" -o jsonpath='{.metadata.ownerReferences[0].name}{"\n"}' |
      sed "s|^|$ns |"
  done | sort -u | while read -r ns deployment; do
    kubectl rollout restart deployment -n "$ns" "$deployment" >/dev/null
    echo "restarted deployment $ns/$deployment"
  done
}

# Plays the runs of $WORK_DIR/plan.json on the objects already there, in the foreground; what
# happened (each pod's node, and when the player saw it created, bound and ended) goes to
# $WORK_DIR/NAME.json.
play_runs() {  # play_runs NAME
  timeout 1200 "$TESTBED_BIN/play" --plan "$WORK_DIR/plan.json" --runs-only \
    --summary "$WORK_DIR/$1.json" >"$WORK_DIR/play-$1.log" 2>&1 ||
    { tail -n 20 "$WORK_DIR/play-$1.log" >&2; fail "the play $1 did not end"; }
  ok "played $1: $(jq '[.runs[] | select(.outcome == "Succeeded")] | length' "$WORK_DIR/$1.json") runs succeeded"
}

# Removes the plan's runs (their engines' objects and their pods) and waits until they are gone,
# so that the same plan can be played again on the same nodes.
reset_runs() {
  local ns
  for ns in $(jq -r '[.runs[] | select(.engine == "argo") | .namespace] | unique[]' "$WORK_DIR/plan.json"); do
    kubectl delete workflows.argoproj.io --all -n "$ns" --wait=false >/dev/null
  done
  jq -r '.runs[].tasks[].pod.metadata | "\(.namespace) \(.name)"' "$WORK_DIR/plan.json" |
    sort | awk '{names[$1] = names[$1] " " $2} END {for (ns in names) print ns names[ns]}' |
    while read -r ns names; do
      # shellcheck disable=SC2086
      kubectl delete pods -n "$ns" $names --ignore-not-found --wait=true --timeout=120s >/dev/null
    done
}

# Polls until COMMAND succeeds, for at most LIMIT seconds; a failure shows what the last attempt
# printed.
wait_until() {  # wait_until LIMIT DESCRIPTION COMMAND...
  local limit=$1 what=$2 start=$SECONDS
  shift 2
  until "$@" >"$WORK_DIR/attempt.out" 2>&1; do
    [ $((SECONDS - start)) -lt "$limit" ] ||
      fail "not within ${limit}s: $what; last attempt: $(tail -c 2000 "$WORK_DIR/attempt.out")"
    sleep 1
  done
  ok "$what (after $((SECONDS - start)) s)"
}

# dagadvisor's ServiceAccount and ClusterRole from the kustomize base, and a kubeconfig that
# holds the ServiceAccount's token (TokenRequest), as a pod of it would have mounted.
deploy_dagadvisor_rbac() {
  # The scenario's player may create it at the same moment: either way it must exist after.
  kubectl create namespace monitoring >/dev/null 2>&1 || kubectl get namespace monitoring >/dev/null
  kubectl apply -f "$ROOT/config/kubernetes/base/rbac.yaml" >/dev/null
  local token
  token=$(kubectl create token dagadvisor -n monitoring --duration 2h)
  DAGADVISOR_KUBECONFIG=$WORK_DIR/dagadvisor.kubeconfig
  cat >"$DAGADVISOR_KUBECONFIG" <<YAML
apiVersion: v1
kind: Config
clusters:
- name: testbed
  cluster: {server: "$TESTBED_API_URL", certificate-authority: "$TESTBED_CA"}
users:
- name: dagadvisor
  user: {token: "$token"}
contexts:
- name: testbed
  context: {cluster: testbed, user: dagadvisor, namespace: monitoring}
current-context: testbed
YAML
}

# Starts `dagadvisor serve` on the cluster's Prometheus with the Kubernetes source on, reading
# with the ServiceAccount's kubeconfig; EXTRA_YAML (the thresholds for a scenario played in
# minutes) is merged into its configuration, key by key. Sets DAGADVISOR_URL.
serve_dagadvisor() {  # serve_dagadvisor [EXTRA_YAML]
  local port
  port=$(free_port)
  DAGADVISOR_URL="http://127.0.0.1:$port"
  cat >"$WORK_DIR/dagadvisor.yaml" <<YAML
sources:
  prometheus:
    url: "$PROM_URL"
    lookback: 1h
    rate_window: 1m
  kubernetes:
    enabled: true
    kubeconfig: "$DAGADVISOR_KUBECONFIG"
server:
  listen: "127.0.0.1:$port"
analysis:
  interval: 5s
  # A cycle may outlast the 5-s interval on a busy 2-core machine (two control planes beside the
  # other tests at -j2): it is late, not failed.
  cycle_timeout: 60s
YAML
  python3 - "$WORK_DIR/dagadvisor.yaml" "${1:-}" <<'PY'
import sys, yaml
def merge(base, extra):
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merge(base[key], value)
        else:
            base[key] = value
config = yaml.safe_load(open(sys.argv[1]))
merge(config, yaml.safe_load(sys.argv[2]) or {})
yaml.safe_dump(config, open(sys.argv[1], "w"), sort_keys=False)
PY
  "$DAGADVISOR" check-config --config "$WORK_DIR/dagadvisor.yaml" >/dev/null \
    || fail "the test's configuration is refused"
  "$DAGADVISOR" serve --config "$WORK_DIR/dagadvisor.yaml" >"$WORK_DIR/dagadvisor.log" 2>&1 &
  PIDS+=($!)
  wait_until 60 "dagadvisor serves" curl -fsS -o /dev/null "$DAGADVISOR_URL/healthz"
}

# Waits for COUNT successful analyses after now (by the daemon's own cycle counter), so that it
# has read what the cluster holds now.
wait_for_analyses() {  # wait_for_analyses COUNT LIMIT
  local before
  before=$(successful_cycles)
  wait_until "$2" "$1 analyses after this moment" analysed_since "$before" "$1"
}

analysed_since() {  # analysed_since CYCLES_BEFORE COUNT
  [ $(($(successful_cycles) - $1)) -ge "$2" ]
}

successful_cycles() {
  curl -fsS "$DAGADVISOR_URL/metrics" |
    awk '/^dagadvisor_cycles_total\{.*result="success"/ {s += $NF} END {print s + 0}'
}

# The pods that ask for a GPU and are not bound to a node, as namespace/name, sorted.
pending_gpu_pods() {
  kubectl get pods -A -o json | jq -r '.items[]
    | select(.status.phase == "Pending" and (.spec.nodeName // "") == ""
             and any(.spec.containers[]; (.resources.requests["nvidia.com/gpu"] // "0") != "0"))
    | "\(.metadata.namespace)/\(.metadata.name)"' | sort
}
