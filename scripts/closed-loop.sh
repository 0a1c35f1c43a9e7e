#!/usr/bin/env bash
# The advice judged by the simulator (issue 17): a measurement for people, not a test.
# Per scenario: dagadvisor-sim generates the window, a real Prometheus holds it, `dagadvisor
# analyze --at` advises and predicts (the replayable recommendations together), and
# `dagadvisor-sim compare --apply` re-simulates the same seeds with the daemon's own patches.
# Prints, per scenario, what the replay predicted next to what the simulator realised:
# the mean makespan of the affected runs, the mean wait of the GPU pods, the GPU allocation in
# the window, and every patch that did not apply. Both sides are modelled (docs/whatif.md).
# Usage: scripts/closed-loop.sh [BUILD_DIR] [--json FILE] SCENARIO.yaml...  (BUILD_DIR: build)
# --json FILE: one JSON object per scenario appended to FILE, the predicted and realised change
# of each figure (the realised one over the replayed window), for tests/integration/closed_loop.sh;
# makespan_total_seconds is the change summed over the affected runs, which does not depend on how
# many runs each side counts as affected (the simulator's reshuffled ties change most of them).
# The realised change is a mean over TIE_BREAKS (default 16) pairs of histories, each pair under
# its own stream of the scheduler's coin flips among equal scores (compare --tie-breaks): a change
# of placement reshuffles every later decision, so one history's gain is one draw of it; the
# lowest and highest draw are given too. The first draw is the history the daemon observed.
# SEED=N runs another workload of each scenario (generate and compare --seed N: other arrivals,
# run times and sizes), so that an agreement can be checked on more than one observed window.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BUILD=build
if [ $# -gt 0 ] && [ -d "$1" ]; then BUILD=$1; shift; fi
JSON_OUT=""
if [ "${1:-}" = --json ]; then JSON_OUT=$2; shift 2; fi
DAGADVISOR=$BUILD/src/dagadvisor
SIM=$BUILD/tools/simulator/dagadvisor-sim
[ -x "$DAGADVISOR" ] && [ -x "$SIM" ] || { echo "build first: $DAGADVISOR, $SIM" >&2; exit 2; }
[ $# -gt 0 ] || { echo "usage: $0 [BUILD_DIR] SCENARIO.yaml..." >&2; exit 2; }
source "$REPO/tests/integration/prometheus_harness.sh"

for scenario in "$@"; do
  name=$(basename "$scenario" .yaml)
  out="$WORK_DIR/$name"
  seed=(); if [ -n "${SEED:-}" ]; then seed=(--seed "$SEED"); fi
  "$SIM" generate --scenario "$scenario" "${seed[@]}" --out "$out" >/dev/null 2>&1 || fail "$name: generate"
  start_prometheus_with_openmetrics "$out/metrics.om"
  at=$(jq -r .suggested_analysis_time "$out/ground_truth.json")
  # The engine's objects as `kubectl get pipelineruns -A -o json` prints them (Tekton declares
  # its edges there, not on the pods), where the scenario has any.
  objects=()
  if [ "$(jq '.items | length' "$out/objects.json")" -gt 0 ]; then objects=(--objects "$out/objects.json"); fi
  "$DAGADVISOR" analyze --prometheus "$PROM_URL" --at "$at" "${objects[@]}" --output json \
    >"$out/report.json" 2>/dev/null || fail "$name: analyze exited $?"
  # The simulator applies what the prediction applied (the recommendations replayed together),
  # or, when none was replayed, every recommendation: what following all the advice does.
  ids=$(jq -r '.prediction.together.recommendations // [] | join(",")' "$out/report.json")
  "$SIM" compare --scenario "$scenario" "${seed[@]}" --apply "$out/report.json" ${ids:+--apply-ids "$ids"} \
    --tie-breaks "${TIE_BREAKS:-16}" --out "$out/compare.json" >/dev/null 2>"$out/compare.err" ||
    fail "$name: compare exited $?"
  echo "== $name: applied together: $(jq -r '.prediction.together.recommendations | join(", ")' \
    "$out/report.json")"
  # Realised over what the replay replays (compare's replayed_window: the runs with a task
  # created in the window, those tasks, the GPU pods created in it): the mean change over the
  # draws, their range, and the observed history's own before and after.
  jq -r --slurpfile c "$out/compare.json" '
    .prediction.together.predicted as $p | $c[0] as $c | $c.replayed_window as $w |
    $c.replayed_window_over_tie_breaks as $d |
    def r: . * 10 | round / 10;
    def pair(a; b): "\(a | r)  →  \(b | r)";
    def change(a; b): b - a | r;
    def draws(x): "\(x.mean | r) (\(x.min | r) … \(x.max | r) over \($d.count) draws)";
    "  affected runs, mean makespan s   predicted \(if $p.replayed then "\($p.affected_runs) runs: " + pair($p.makespan_seconds.before; $p.makespan_seconds.after) + ", change \(change($p.makespan_seconds.before; $p.makespan_seconds.after))" else "not replayed" end)",
    "                                   realised  change \(draws($d.makespan_change_seconds)); observed history \($w.affected_runs.count) runs: \(pair($w.affected_runs.mean_makespan_before_seconds; $w.affected_runs.mean_makespan_after_seconds))",
    "  GPU pods, mean wait s            predicted \(if $p.replayed then pair($p.gpu_pod_pending_seconds.before; $p.gpu_pod_pending_seconds.after) else "-" end)",
    "                                   realised  change \(draws($d.gpu_pod_wait_change_seconds)); observed history \(pair($w.gpu_pod_mean_wait_seconds.before; $w.gpu_pod_mean_wait_seconds.after)) (\($w.gpu_pods) GPU pods of the window)",
    "  GPU allocation in the window %   predicted \(if $p.replayed then pair($p.gpu_allocation.before * 100; $p.gpu_allocation.after * 100) else "-" end)",
    "                                   realised  change \(draws($d.gpu_allocation_change_points)); observed history \(pair($w.gpu_allocation_pct.before; $w.gpu_allocation_pct.after))"
  ' "$out/report.json"
  if [ -n "$JSON_OUT" ]; then
    jq -c --arg name "$name" --slurpfile c "$out/compare.json" --slurpfile g "$out/ground_truth.json" '
      .prediction.together as $t | $t.predicted as $p | $c[0].replayed_window_over_tie_breaks as $d |
      def change(f): f.after - f.before;
      def realised(x): {realised: x.mean, realised_min: x.min, realised_max: x.max};
      {scenario: $name, seed: $g[0].seed, applied: ($t.recommendations // []), replayed: ($p.replayed == true),
       draws: $d.count, realised_affected_runs_max: $d.affected_runs.max,
       makespan_seconds: ({predicted: (if $p.replayed then change($p.makespan_seconds) else 0 end)}
         + realised($d.makespan_change_seconds)),
       makespan_total_seconds: ({predicted: (if $p.replayed then change($p.makespan_seconds) * $p.affected_runs else 0 end)}
         + realised($d.makespan_total_change_seconds)),
       gpu_pod_wait_seconds: ({predicted: (if $p.replayed then change($p.gpu_pod_pending_seconds) else 0 end)}
         + realised($d.gpu_pod_wait_change_seconds)),
       gpu_allocation_points: ({predicted: (if $p.replayed then change($p.gpu_allocation) * 100 else 0 end)}
         + realised($d.gpu_allocation_change_points)),
       not_replayed: [.recommendations[] | select(.predicted.replayed == false)
                      | {id, reason: .predicted.reason}],
       hand_offs: [.recommendations[] | select(.predicted.replayed == true)
                   | {id, tasks: .predicted.hand_offs.tasks, charged: .predicted.hand_offs.charged}],
       hand_off_prices: {charged: (.prediction.transfer_prices.charged // false),
         same_zone: {measured: .prediction.transfer_prices.same_zone.seconds_per_gb,
                     pods: .prediction.transfer_prices.same_zone.fetches,
                     simulated: $g[0].network.same_zone_seconds_per_gb},
         cross_zone: {measured: .prediction.transfer_prices.cross_zone.seconds_per_gb,
                      pods: .prediction.transfer_prices.cross_zone.fetches,
                      simulated: $g[0].network.cross_zone_seconds_per_gb}}}' "$out/report.json" >>"$JSON_OUT"
  fi
  grep -v ": applied" "$out/compare.err" | sed 's/^dagadvisor-sim: /  not applied: /' || true
  kill "$PROM_PID"
  wait "$PROM_PID" 2>/dev/null || true
  PROM_PID=""
  rm -rf "$WORK_DIR/data"
done
