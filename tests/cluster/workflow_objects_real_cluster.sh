#!/usr/bin/env bash
# The workflow engines' own objects on the real control plane: Tekton PipelineRuns and TaskRuns
# of the CRDs Tekton publishes, served by the real API server and kept by the player as Tekton's
# controller keeps them (the pipeline resolved into the run's status, a TaskRun per task owning
# its pod). `dagadvisor serve` with the shipped RBAC LISTs them and rebuilds each run with the
# edges its pipeline declares (runAfter), none inferred from timing, with no LIST refused.
# Args: DAGADVISOR DAGADVISOR_SIM TESTBED_BIN
DAGADVISOR=$1
DAGADVISOR_SIM=$2
TESTBED_BIN=$3
source "$(dirname "$0")/cluster_harness.sh"

start_cluster
# The split-dependencies scenario's first two genome-align runs, at 1/50: about three minutes.
play_scenario "$ROOT/config/scenarios/split-dependencies.yaml" 0.02 '.runs |= .[:2]'
deploy_dagadvisor_rbac
serve_dagadvisor

both_runs_succeeded() {
  kubectl get pipelineruns -n science -o json | jq -e '[.items[]
    | select(any(.status.conditions[]?; .type == "Succeeded" and .status == "True"))] | length == 2'
}
wait_until 400 "both PipelineRuns succeed" both_runs_succeeded
TASKRUNS=$(kubectl get taskruns -n science -o json | jq '[.items[]
  | select(.metadata.ownerReferences[0].kind == "PipelineRun")] | length')
[ "$TASKRUNS" -eq 16 ] || fail "$TASKRUNS TaskRuns owned by a PipelineRun, not 16"
ok "16 TaskRuns, each owned by its PipelineRun"

wait_for_analyses 2 60

# Each run's edges are exactly those of the pipeline, from the objects: none inferred.
DECLARED=$(jq -c '[.runs[0].tasks[] | .id as $child | .parents[] | [., $child, false]] | sort' \
  "$WORK_DIR/plan.json")
curl -fsS "$DAGADVISOR_URL/api/v1/dags" >"$WORK_DIR/dags.json"
for RUN in $(jq -r '.runs[].name' "$WORK_DIR/plan.json"); do
  ID=$(jq -r --arg run "$RUN" '[.dags[] | select(.run == $run)][0].id // empty' "$WORK_DIR/dags.json")
  [ -n "$ID" ] || { jq . "$WORK_DIR/dags.json" >&2; fail "run $RUN is not rebuilt"; }
  curl -fsS "$DAGADVISOR_URL/api/v1/dags/$ID" >"$WORK_DIR/run.json"
  EDGES=$(jq -c '[.dag.edges_detail[] | [.parent, .child, .inferred]] | sort' "$WORK_DIR/run.json")
  [ "$EDGES" = "$DECLARED" ] ||
    { jq . "$WORK_DIR/run.json" >&2; fail "run $RUN's edges are $EDGES, not the pipeline's $DECLARED"; }
  jq -e '.dag.finished and (.dag.tasks_detail | length == 8)' "$WORK_DIR/run.json" >/dev/null ||
    { jq . "$WORK_DIR/run.json" >&2; fail "run $RUN is not rebuilt whole and finished"; }
done
ok "each PipelineRun is rebuilt with the pipeline's edges, none inferred"

curl -fsS "$DAGADVISOR_URL/api/v1/summary" >"$WORK_DIR/summary-api.json"
REFUSED=$(jq -r '[.. | strings | select(test("kubernetes:"))] | unique | .[]' "$WORK_DIR/summary-api.json")
[ -z "$REFUSED" ] || fail "the Kubernetes source warns: $REFUSED"
ok "no warning from the Kubernetes source"
