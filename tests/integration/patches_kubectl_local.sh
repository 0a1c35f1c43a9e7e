#!/usr/bin/env bash
# Every patch the daemon emits, applied with the real kubectl (`kubectl patch --local`) to real
# objects (tests/fixtures/objects/: Nodes with taints, workloads with tolerations, affinities and
# several containers, Argo/Tekton/Airflow objects), must keep every entry that was there and add
# the new one (tests/integration/patch_check.py says how each kind of document is applied).
# Reports: the bundled scenario, and simulator scenarios through a real Prometheus that plant
# the other kinds and engines (Argo GPU hoarding, Tekton splits, Airflow stacking and
# colocation, Argo/seed stacking). The bundled scenario's over-request patches name the real containers.
# The bundled scenario's typed `patches` are checked too (tests/integration/patches_typed_check.py).
# Args: DAGADVISOR_BINARY SIMULATOR_BINARY SOURCE_DIR
DAGADVISOR=$1
SIM=$2
SRC=$3
source "$(dirname "$0")/prometheus_harness.sh"
command -v kubectl >/dev/null || fail "kubectl not on PATH (Debian: kubernetes-client)"

REPORTS=()
"$DAGADVISOR" analyze --snapshot "$SRC/config/scenarios/default" --output json \
  >"$WORK_DIR/default.json" 2>"$WORK_DIR/default.log" || { cat "$WORK_DIR/default.log" >&2; fail "analyze default"; }
REPORTS+=("$WORK_DIR/default.json")

for name in gpu-hoarding split-dependencies run-stacking dag-stacking mixed-online; do
  out="$WORK_DIR/$name"
  "$SIM" generate --scenario "$SRC/config/scenarios/$name.yaml" --out "$out" >/dev/null ||
    fail "$name: simulator failed"
  start_prometheus_with_openmetrics "$out/metrics.om"
  at=$(jq -r .suggested_analysis_time "$out/ground_truth.json")
  "$DAGADVISOR" analyze --prometheus "$PROM_URL" --at "$at" --output json >"$out/report.json" \
    2>"$out/analyze.log" || { cat "$out/analyze.log" >&2; fail "$name: analyze failed"; }
  REPORTS+=("$out/report.json")
  kill "$PROM_PID"
  wait "$PROM_PID" 2>/dev/null || true
  PROM_PID=""
  rm -rf "$WORK_DIR/data" "$out/metrics.om"
done

# Every kind that writes patches must have been exercised, and the engines' own places.
all=$(jq -s '[.[].recommendations[]]' "${REPORTS[@]}")
for kind in gpu-node-hoarding split-dependencies dag-stacking critical-path-priority \
  pool-mismatch over-request batch-online-colocation; do
  jq -e --arg k "$kind" 'any(.[]; .kind == $k and .patch_yaml != "")' <<<"$all" >/dev/null ||
    fail "no report has a $kind patch: the test would not check it"
done
for place in "kubectl patch workflowtemplate" "taskRunTemplate" "pod_override"; do
  jq -e --arg p "$place" 'any(.[]; (.patch_yaml + .action) | contains($p))' <<<"$all" >/dev/null ||
    fail "no advice names the engine place '$place'"
done

mkdir -p "$WORK_DIR/kubectl"
python3 "$(dirname "$0")/patch_check.py" "$SRC/tests/fixtures/objects" "$WORK_DIR/kubectl" \
  "${REPORTS[@]}"
# The typed patches of the bundled scenario: they name only what its snapshot holds, and their
# pod_variants do to a real Pod what their variants do to the object's pod template.
mkdir -p "$WORK_DIR/typed"
python3 "$(dirname "$0")/patches_typed_check.py" "$SRC/config/scenarios/default" \
  "$SRC/tests/fixtures/objects" "$WORK_DIR/typed" "$WORK_DIR/default.json" ||
  fail "typed patches of the bundled scenario"
echo "PASS: every patch keeps every pre-existing entry; typed patches match the snapshot and kubectl"
