#!/usr/bin/env bash
# A healthy workload on the real control plane gets no warning: the healthy scenario (a tainted
# GPU pool, room to spare) played in minutes, `dagadvisor serve` with the shipped RBAC rebuilds
# its runs from what the real kube-state-metrics exports, each with the edges its pods declare,
# and warns of nothing.
# Args: DAGADVISOR DAGADVISOR_SIM TESTBED_BIN
DAGADVISOR=$1
DAGADVISOR_SIM=$2
TESTBED_BIN=$3
source "$(dirname "$0")/cluster_harness.sh"

start_cluster
play_scenario "$ROOT/config/scenarios/healthy.yaml" 0.05
deploy_dagadvisor_rbac
serve_dagadvisor

# The first daily_features run has ended, its GPU step included (at 1/20: about four minutes).
first_run_done() {
  kubectl get pods -n pipelines -l task-id=report -o json |
    jq -e 'any(.items[]; .status.phase == "Succeeded")'
}
wait_until 420 "the first daily_features run ends" first_run_done
[ -z "$(pending_gpu_pods)" ] || fail "GPU pods pend on the healthy cluster: $(pending_gpu_pods)"

# Two successful analyses after that moment, so the daemon has read it.
wait_for_analyses 2 60

DAGS=$WORK_DIR/dags.json
curl -fsS "$DAGADVISOR_URL/api/v1/dags" >"$DAGS"
RUN_ID=$(jq -r '[.dags[] | select(.dag == "daily_features")][0].id // empty' "$DAGS")
[ -n "$RUN_ID" ] || { jq . "$DAGS" >&2; fail "the daily_features run is not rebuilt"; }
curl -fsS "$DAGADVISOR_URL/api/v1/dags/$RUN_ID" >"$WORK_DIR/run.json"
EDGES=$(jq -c '[.dag.edges_detail[] | [.parent, .child, .inferred]] | sort' "$WORK_DIR/run.json")
CHAIN='[["clean","features",false],["extract","clean",false],["features","train",false],["train","report",false]]'
[ "$EDGES" = "$CHAIN" ] ||
  { jq . "$WORK_DIR/run.json" >&2; fail "daily_features' edges are $EDGES, not the chain its pods declare"; }
ok "the run is rebuilt with the edges its pods declare, none inferred"

# The Argo run is rebuilt from its Workflow (LISTed with the shipped RBAC), not from timing.
BACKUP_ID=$(jq -r '[.dags[] | select(.dag == "nightly-backup")][0].id // empty' "$DAGS")
[ -n "$BACKUP_ID" ] || { jq . "$DAGS" >&2; fail "the nightly-backup Workflow is not rebuilt"; }
curl -fsS "$DAGADVISOR_URL/api/v1/dags/$BACKUP_ID" >"$WORK_DIR/backup.json"
EDGES=$(jq -c '[.dag.edges_detail[] | [.parent, .child, .inferred]]' "$WORK_DIR/backup.json")
[ "$EDGES" = '[["snapshot","verify",false]]' ] ||
  { jq . "$WORK_DIR/backup.json" >&2; fail "nightly-backup's edges are $EDGES, not its Workflow's"; }
ok "the Argo run is rebuilt with its Workflow's edge"

curl -fsS "$DAGADVISOR_URL/api/v1/recommendations" >"$WORK_DIR/recommendations.json"
WARNINGS=$(jq -r '.recommendations[] | select(.severity == "warning" or .severity == "critical") | .id' \
  "$WORK_DIR/recommendations.json")
[ -z "$WARNINGS" ] || { jq . "$WORK_DIR/recommendations.json" >&2; fail "warnings on a healthy cluster: $WARNINGS"; }
ok "no warning on the healthy cluster ($(jq '.recommendations | length' "$WORK_DIR/recommendations.json") recommendation(s), none a warning)"

# Nothing to gain is predicted either: no recommendation's replay changes the runs' makespan or
# the GPU pods' wait reliably (every replay the same way).
RELIABLE='def reliable(f): f != null and f.change_range != null
  and (f.change_range[0] > 0 or f.change_range[1] < 0);
  [.recommendations[] | select(.predicted.replayed == true)
   | select(reliable(.predicted.makespan_seconds) or reliable(.predicted.gpu_pod_pending_seconds))
   | .id]'
PREDICTING=$(jq -r "$RELIABLE | .[]" "$WORK_DIR/recommendations.json")
[ -z "$PREDICTING" ] || fail "a change is predicted on the healthy cluster: $PREDICTING"
ok "no recommendation predicts a reliable change ($(jq '[.recommendations[] | select(.predicted.replayed == true)] | length' "$WORK_DIR/recommendations.json") replayed)"
