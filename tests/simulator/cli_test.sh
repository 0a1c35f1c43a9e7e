#!/usr/bin/env bash
# The command line of dagadvisor-sim: outputs, exit codes, determinism by seed.
# Usage: cli_test.sh <dagadvisor-sim> <config/scenarios dir> <recommendations fixture>
set -euo pipefail
SIM="$1"
SCENARIOS="$2"
ADVICE="$3"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$SIM" --help >"$WORK/help.txt" || fail "--help should exit 0"
grep -q '^usage:' "$WORK/help.txt" || fail "--help should print the usage on stdout"
"$SIM" generate --help >/dev/null || fail "generate --help should exit 0"
set +e; "$SIM" --bogus >/dev/null 2>&1; rc=$?; set -e
[[ "$rc" -eq 2 ]] || fail "a bad argument should still exit 2, got $rc"

line="$("$SIM" generate --scenario "$SCENARIOS/gpu-hoarding.yaml" --out "$WORK/a")"
echo "$line"
[[ "$line" == scenario=gpu-hoarding* ]] || fail "one-line summary expected, got: $line"
for f in metrics.om ground_truth.json summary.json objects.json; do
  [[ -s "$WORK/a/$f" ]] || fail "missing $f"
done
[[ "$(tail -n 1 "$WORK/a/metrics.om")" == "# EOF" ]] || fail "metrics.om must end with # EOF"
grep -q '"suggested_analysis_time"' "$WORK/a/ground_truth.json" || fail "ground truth lacks suggested_analysis_time"
grep -q '"hoarded_gpu_nodes"' "$WORK/a/ground_truth.json" || fail "ground truth lacks hoarded_gpu_nodes"
# objects.json: what `kubectl get pipelineruns -A -o json` prints; no Tekton workflow here.
jq -e '.apiVersion == "v1" and .kind == "List" and .metadata == {"resourceVersion": ""} and
       .items == []' "$WORK/a/objects.json" >/dev/null || fail "objects.json is not an empty List"
"$SIM" generate --scenario "$SCENARIOS/split-dependencies.yaml" --out "$WORK/t" >/dev/null
jq -e --slurpfile truth "$WORK/t/ground_truth.json" \
  '.kind == "List" and all(.items[]; .apiVersion == "tekton.dev/v1" and .kind == "PipelineRun") and
   ([.items[].metadata.name] | sort) == ([$truth[0].runs[].run] | sort) and (.items | length) == 4' \
  "$WORK/t/objects.json" >/dev/null || fail "objects.json lacks a PipelineRun per Tekton run"

"$SIM" generate --scenario "$SCENARIOS/gpu-hoarding.yaml" --out "$WORK/b" >/dev/null
cmp -s "$WORK/a/metrics.om" "$WORK/b/metrics.om" || fail "same seed, different metrics"
cmp -s "$WORK/a/ground_truth.json" "$WORK/b/ground_truth.json" || fail "same seed, different truth"
"$SIM" generate --scenario "$SCENARIOS/gpu-hoarding.yaml" --out "$WORK/c" --seed 99 >/dev/null
cmp -s "$WORK/a/metrics.om" "$WORK/c/metrics.om" && fail "another seed gave the same metrics"
grep -q '"seed": 99' "$WORK/c/ground_truth.json" || fail "--seed not recorded in the truth"

"$SIM" generate --scenario "$SCENARIOS/gpu-hoarding.yaml" --out "$WORK/d" --step 60 --policy remedied >/dev/null
grep -q '"policy": "remedied"' "$WORK/d/ground_truth.json" || fail "--policy not recorded"
grep -q '"step": 60' "$WORK/d/ground_truth.json" || fail "--step not recorded"
off_grid=$(awk '!/^#/ && ($NF - 1795824000) % 60 != 0' "$WORK/d/metrics.om" | wc -l)
[[ "$off_grid" == 0 ]] || fail "--step 60: $off_grid samples off the 60 s grid"
on_30=$(awk '!/^#/ && ($NF - 1795824000) % 60 == 30' "$WORK/a/metrics.om" | wc -l)
[[ "$on_30" -gt 0 ]] || fail "the default 30 s step wrote no sample at :30"

table="$("$SIM" compare --scenario "$SCENARIOS/seed.yaml")"
echo "$table"
grep -q 'baseline' <<<"$table" && grep -q 'remedied' <<<"$table" || fail "compare table header"
grep -q 'mean makespan (h)' <<<"$table" || fail "compare table lacks makespan"
grep -q 'GPU utilisation (%)' <<<"$table" || fail "compare table lacks GPU utilisation"

# --apply: the daemon's recommendations, applied; every patch's outcome printed and recorded.
"$SIM" generate --scenario "$SCENARIOS/gpu-hoarding.yaml" --out "$WORK/e" --apply "$ADVICE" \
  >/dev/null 2>"$WORK/e.err"
grep -q 'rec-stale step 1 Deployment online/no-such-service: matched nothing' "$WORK/e.err" \
  || fail "a patch that matched nothing was not printed"
grep -q 'all variants failed' "$WORK/e.err" || fail "a patch whose variants failed was not printed"
grep -q 'skipped (needs a value' "$WORK/e.err" || fail "a needs_value patch was not reported"
jq -e '[.applied_patches[] | select(.status == "applied")] | length == 4' "$WORK/e/ground_truth.json" \
  >/dev/null || fail "ground truth lacks the applied patches"
jq -e '.policy | endswith("gpu-hoarding-recommendations.json")' "$WORK/e/ground_truth.json" \
  >/dev/null || fail "ground truth does not say what was applied"
grep -q 'kube_pod_tolerations{.*key="nvidia.com/gpu",operator="Exists"' "$WORK/e/metrics.om" \
  || fail "the applied toleration is not in kube_pod_tolerations"
grep -q 'kube_node_spec_taint{.*node="gpu-g5-000",key="nvidia.com/gpu"' "$WORK/e/metrics.om" \
  || fail "the applied taint is not in kube_node_spec_taint"
"$SIM" compare --scenario "$SCENARIOS/gpu-hoarding.yaml" --apply "$ADVICE" --apply-ids rec-gpu-taint \
  --out "$WORK/compare.json" >"$WORK/compare.txt" 2>/dev/null
cat "$WORK/compare.txt"
grep -q 'GPU-pod pending time (s)' "$WORK/compare.txt" || fail "compare lacks GPU-pod pending time"
jq -e '.after.gpu_pod_pending_seconds < .before.gpu_pod_pending_seconds and
       .affected_runs.count > 0 and (.applied | length) == 2' "$WORK/compare.json" >/dev/null \
  || fail "compare --apply: the taint did not cut the GPU pods' pending time"

expect_exit() {
  local want="$1"; shift
  set +e; "$@" >/dev/null 2>&1; local got=$?; set -e
  [[ "$got" == "$want" ]] || fail "exit $got (want $want): $*"
}
expect_exit 2 "$SIM"
expect_exit 2 "$SIM" generate --scenario /nonexistent.yaml --out "$WORK/x"
expect_exit 2 "$SIM" generate --scenario "$SCENARIOS/seed.yaml"
expect_exit 2 "$SIM" generate --scenario "$SCENARIOS/seed.yaml" --out "$WORK/x" --policy best
expect_exit 2 "$SIM" generate --scenario "$SCENARIOS/seed.yaml" --out "$WORK/x" --step -5
expect_exit 2 "$SIM" frobnicate --scenario "$SCENARIOS/seed.yaml"
expect_exit 2 "$SIM" generate --scenario "$SCENARIOS/seed.yaml" --out "$WORK/x" --apply /nonexistent.json
expect_exit 2 "$SIM" generate --scenario "$SCENARIOS/seed.yaml" --out "$WORK/x" --apply "$ADVICE" --apply-ids rec-nope
expect_exit 2 "$SIM" generate --scenario "$SCENARIOS/seed.yaml" --out "$WORK/x" --apply "$ADVICE" --policy remedied
expect_exit 2 "$SIM" generate --scenario "$SCENARIOS/seed.yaml" --out "$WORK/x" --apply-ids rec-gpu-taint
echo "PASS"
