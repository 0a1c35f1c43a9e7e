#!/usr/bin/env bash
# The measured findings through a real Prometheus: simulator → OpenMetrics → promtool → Prometheus
# → `dagadvisor analyze`, on a scenario whose runs span zones with free transfers and whose GPU
# queue does not drain (tests/fixtures/scenarios/zones-without-transfer-cost.yaml).
#   1. A GPU pod pending for 30 minutes or more is a scheduling-latency finding, with its age.
#   2. Runs that span zones without any slowdown get no warning-level split-dependencies, and the
#      cost they are told about is measured (the runs were compared), not only modelled.
#   3. The same scenario with a real cross-zone cost (90 s per GB) does warn, measured: the
#      silence of (2) is the measurement's, not a detector that never speaks.
# Args: DAGADVISOR_BINARY SIMULATOR_BINARY SCENARIO
DAGADVISOR=$1
SIM=$2
SCENARIO=$3
source "$(dirname "$0")/prometheus_harness.sh"

ANALYSIS_OFFSET=2400  # 40 minutes in: train-c has pended since minute 2

# analyze_scenario FILE NAME → $WORK_DIR/NAME/report.json and ground_truth.json
analyze_scenario() {
  local scenario=$1 out="$WORK_DIR/$2" at rc=0
  "$SIM" generate --scenario "$scenario" --out "$out" >/dev/null || fail "$2: simulator failed"
  start_prometheus_with_openmetrics "$out/metrics.om"
  at=$(jq -r --argjson d "$ANALYSIS_OFFSET" '.window.start + $d' "$out/ground_truth.json")
  "$DAGADVISOR" analyze --prometheus "$PROM_URL" --at "$at" --output json >"$out/report.json" \
    2>"$out/analyze.log" || rc=$?
  [ "$rc" -eq 0 ] || { cat "$out/analyze.log" >&2; fail "$2: analyze exited $rc"; }
  echo "$at" >"$out/at"
  kill "$PROM_PID"
  wait "$PROM_PID" 2>/dev/null || true
  PROM_PID=""
  rm -rf "$WORK_DIR/data" "$out/metrics.om"
}

analyze_scenario "$SCENARIO" free
FREE="$WORK_DIR/free"

# 1. The pending GPU queue, as the simulator's ground truth has it at the analysis time.
at=$(cat "$FREE/at")
truth_oldest=$(jq --argjson at "$at" '[.runs[].tasks[] | select(.created != null and .created <= $at
    and (.scheduled == null or .scheduled > $at)) | $at - .created] | max // 0' "$FREE/ground_truth.json")
[ "$truth_oldest" -ge 1800 ] || fail "scenario: the oldest pending task waits $truth_oldest s, not 30 min"
finding=$(jq -c '[.findings[] | select(.kind == "scheduling-latency" and .evidence.source == "pending_pods")] | first // empty' "$FREE/report.json")
[ -n "$finding" ] || fail "no scheduling-latency finding for pods pending $truth_oldest s"
oldest_gpu=$(jq '.evidence.pending.oldest_gpu_seconds' <<<"$finding")
gpu_over=$(jq '.evidence.pending.gpu_over_slo' <<<"$finding")
[ "$oldest_gpu" -eq "$truth_oldest" ] || fail "oldest pending GPU pod: $oldest_gpu s, ground truth $truth_oldest s"
[ "$gpu_over" -ge 1 ] || fail "no GPU pod counted over the SLO"
jq -e '.severity == "warning" and (.summary | contains("requesting GPUs"))' <<<"$finding" >/dev/null \
  || fail "pending finding: $(jq -r .summary <<<"$finding")"
echo "ok: pending GPU queue: $gpu_over GPU pod(s) over the SLO, the oldest $oldest_gpu s (ground truth $truth_oldest s)"

# 2. Zones crossed, transfers free: measured, and no warning.
cross=$(jq '[.runs[].split_edges[]? | select(.cross_zone)] | length' "$FREE/ground_truth.json")
[ "$cross" -gt 0 ] || fail "scenario: no run crossed zones"
warnings=$(jq '[.findings[] | select(.kind == "split-dependencies" and .severity != "info")] | length' "$FREE/report.json")
[ "$warnings" -eq 0 ] || fail "$warnings warning-level split-dependencies finding(s) with free transfers"
measured=$(jq '[.findings[] | select(.kind == "split-dependencies" and .evidence.measured_tasks > 0)] | length' "$FREE/report.json")
[ "$measured" -gt 0 ] || fail "no split-dependencies finding was measured: the check above proves nothing"
echo "ok: free transfers: $cross cross-zone edge(s) in the ground truth, $measured measured finding(s), no warning"

# 3. The positive control: the same runs with a real cross-zone cost.
sed 's/^network: .*/network: {same_zone_seconds_per_gb: 0, cross_zone_seconds_per_gb: 90}/' \
  "$SCENARIO" >"$WORK_DIR/costly.yaml"
grep -q 'cross_zone_seconds_per_gb: 90' "$WORK_DIR/costly.yaml" || fail "could not set the network cost"
analyze_scenario "$WORK_DIR/costly.yaml" costly
warned=$(jq '[.findings[] | select(.kind == "split-dependencies" and .severity == "warning"
    and .evidence.transfer_basis != "modelled" and .evidence.measured_transfer_seconds > 0)] | length' \
  "$WORK_DIR/costly/report.json")
[ "$warned" -gt 0 ] || fail "a 90 s/GB cross-zone cost gave no measured split-dependencies warning"
echo "ok: 90 s/GB across zones: $warned measured warning(s)"
