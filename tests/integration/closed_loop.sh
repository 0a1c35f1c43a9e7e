#!/usr/bin/env bash
# The closed loop of issue 17 on real parts: dagadvisor-sim generates each scenario, a real
# Prometheus holds it, `dagadvisor analyze --at` advises and predicts, and the simulator applies
# the daemon's own patches to the same seeds (scripts/closed-loop.sh). For the scenarios whose
# advice the replay models, each headline figure's predicted change must be within 25 % of the
# change the simulator realises over the same window; where nothing is advised that the replay
# models (healthy), nothing may be predicted or realised. On run-stacking the spread the advice
# asks for (a preferred pod anti-affinity) is replayed, and neither side gains: when the stacked
# tasks were created the other node was full, so no scheduler could have spread them.
# Usage: closed_loop.sh BUILD_DIR
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$1
OUT=$(mktemp)
trap 'rm -f "$OUT"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$REPO/scripts/closed-loop.sh" "$BUILD" --json "$OUT" \
  "$REPO/config/scenarios/seed.yaml" "$REPO/config/scenarios/gpu-hoarding.yaml" \
  "$REPO/config/scenarios/healthy.yaml" "$REPO/config/scenarios/run-stacking.yaml"
cat "$OUT"

for scenario in seed gpu-hoarding; do
  record=$(jq -c --arg s "$scenario" 'select(.scenario == $s)' "$OUT")
  [ -n "$record" ] || fail "$scenario: no result"
  jq -e '.replayed' <<<"$record" >/dev/null || fail "$scenario: the advice was not replayed"
  for figure in makespan_seconds gpu_pod_wait_seconds gpu_allocation_points; do
    # A gain the simulator does not realise cannot be matched; one it does, within 25 %.
    jq -e --arg f "$figure" '.[$f] as $x | ($x.realised | fabs) > 0 and
        (($x.predicted - $x.realised) | fabs) <= 0.25 * ($x.realised | fabs)' <<<"$record" \
      >/dev/null || fail "$scenario: $figure predicted vs realised: $(jq -c --arg f "$figure" '.[$f]' <<<"$record")"
  done
done

healthy=$(jq -c 'select(.scenario == "healthy")' "$OUT")
jq -e '.applied == [] and .replayed == false and .realised_affected_runs == 0
       and .gpu_pod_wait_seconds.realised == 0 and .gpu_allocation_points.realised == 0' \
  <<<"$healthy" >/dev/null || fail "healthy: a gain predicted or realised: $healthy"
stacking=$(jq -c 'select(.scenario == "run-stacking")' "$OUT")
jq -e '(.applied | map(startswith("dag-stacking-")) | any) and .replayed
       and .makespan_seconds.predicted == 0 and .makespan_seconds.realised == 0' \
  <<<"$stacking" >/dev/null || fail "run-stacking: the spread replayed or realised a change: $stacking"
echo "closed loop: predictions within 25 % on seed and gpu-hoarding; healthy and run-stacking gain nothing"
