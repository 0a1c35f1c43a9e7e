#!/usr/bin/env bash
# The closed loop of issue 17 on real parts: dagadvisor-sim generates each scenario, a real
# Prometheus holds it, `dagadvisor analyze --at` advises and predicts, and the simulator applies
# the daemon's own patches to the same seeds (scripts/closed-loop.sh), the realised change being
# the mean over 16 pairs of histories that differ only in the scheduler's coin flips among equal
# scores (one history's change is one draw of it; seed's makespan draws span −275 … −109 s).
# Within 25 % of the realised mean: every headline figure on seed and gpu-hoarding; seed's
# hand-off prices (measured from the pods' received bytes) within 15 % of the simulator's. Where
# nothing is advised that the replay models (healthy), nothing may be predicted or realised. On
# run-stacking the spread the advice asks for (a preferred pod anti-affinity) is replayed, and
# neither side gains: when the stacked tasks were created the other node was full. On
# latency-spike the sibling affinity (matchLabelKeys: the run's own pods that still run) cannot
# bring a child near its parent, which has finished when the child is created: neither side gains.
# On split-dependencies the Tekton DAG's edges come from its PipelineRuns (what `kubectl get
# pipelineruns -A -o json` prints, read with --objects), so its hand-offs are priced and charged:
# the one-zone-per-run advice's static part (a sibling affinity) is predicted within 25 % of the
# realised mean over 100 draws (its draws span about −2,200 … +800 s: 16 would not tell).
# Usage: closed_loop.sh BUILD_DIR
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$1
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$REPO/scripts/closed-loop.sh" "$BUILD" --json "$OUT" \
  "$REPO/config/scenarios/seed.yaml" "$REPO/config/scenarios/gpu-hoarding.yaml" \
  "$REPO/config/scenarios/healthy.yaml" "$REPO/config/scenarios/run-stacking.yaml" \
  "$REPO/config/scenarios/latency-spike.yaml"
TIE_BREAKS=100 "$REPO/scripts/closed-loop.sh" "$BUILD" --json "$OUT" \
  "$REPO/config/scenarios/split-dependencies.yaml"
cat "$OUT"

within25() {  # scenario figure: the prediction within 25 % of a realised mean that is not 0
  jq -e --arg f "$2" '.[$f] as $x | ($x.realised | fabs) > 0 and
      (($x.predicted - $x.realised) | fabs) <= 0.25 * ($x.realised | fabs)' <<<"$(record "$1")" \
    >/dev/null || fail "$1: $2 predicted vs realised: $(jq -c --arg f "$2" '.[$f]' <<<"$(record "$1")")"
}
record() { jq -c --arg s "$1" 'select(.scenario == $s)' "$OUT"; }

for scenario in seed gpu-hoarding healthy run-stacking latency-spike; do
  [ -n "$(record "$scenario")" ] || fail "$scenario: no result"
  jq -e '.draws == 16' <<<"$(record "$scenario")" >/dev/null || fail "$scenario: not 16 draws"
done
for scenario in seed gpu-hoarding; do
  jq -e '.replayed' <<<"$(record "$scenario")" >/dev/null || fail "$scenario: the advice was not replayed"
done
for scenario in seed gpu-hoarding; do
  for figure in makespan_seconds gpu_pod_wait_seconds gpu_allocation_points; do
    within25 "$scenario" "$figure"
  done
done

# The hand-off prices the daemon measured from the pods' received bytes, against what the
# simulator charges per GB: seed's within 15 % (9 and 17 pods at 60-s scrapes).
jq -e '.hand_off_prices | .charged and
       ([.same_zone, .cross_zone] | all(((.measured - .simulated) | fabs) <= 0.15 * .simulated))' \
  <<<"$(record seed)" >/dev/null || fail "seed: hand-off prices: $(jq -c .hand_off_prices <<<"$(record seed)")"

nothing='[.makespan_seconds, .gpu_pod_wait_seconds, .gpu_allocation_points] | all(.predicted == 0 and .realised_min == 0 and .realised_max == 0)'
jq -e ".applied == [] and .replayed == false and .realised_affected_runs_max == 0 and ($nothing)" \
  <<<"$(record healthy)" >/dev/null || fail "healthy: a gain predicted or realised: $(record healthy)"
jq -e "(.applied | map(startswith(\"dag-stacking-\")) | any) and .replayed and ($nothing)" \
  <<<"$(record run-stacking)" >/dev/null || fail "run-stacking: the spread replayed or realised a change: $(record run-stacking)"
jq -e '(.applied | map(startswith("split-dependencies-")) | any) and .replayed
       and .makespan_seconds.predicted == 0 and (.makespan_seconds.realised | fabs) < 10
       and .makespan_seconds.realised_min <= 0 and .makespan_seconds.realised_max >= 0' \
  <<<"$(record latency-spike)" >/dev/null || fail "latency-spike: the sibling affinity gained: $(record latency-spike)"
# split-dependencies with its PipelineRuns: nine in ten of the hand-offs it places charged (26 of
# 27: a step's received bytes are read once it has finished, and the fourth run's still runs), at
# prices measured within 15 % of the simulator's, and the makespan within 25 % of the realised mean.
jq -e '.draws == 100 and (.applied | map(startswith("split-dependencies-")) | any) and .replayed
       and .not_replayed == [] and .hand_off_prices.charged
       and (.hand_offs | length > 0 and all(.tasks > 0 and .charged >= 0.9 * .tasks))
       and ([.hand_off_prices.same_zone, .hand_off_prices.cross_zone]
            | all(((.measured - .simulated) | fabs) <= 0.15 * .simulated))' \
  <<<"$(record split-dependencies)" >/dev/null \
  || fail "split-dependencies: not predicted from declared edges: $(record split-dependencies)"
within25 split-dependencies makespan_seconds
echo "closed loop: seed and gpu-hoarding within 25 % of the realised mean, seed's hand-offs priced within 15 % of the simulator's; healthy, run-stacking and latency-spike gain nothing; split-dependencies predicted from its PipelineRuns' edges within 25 %"
