#!/usr/bin/env bash
# The openb GPU trace (tests/fixtures/openb/) replayed by dagadvisor-openb at one load level,
# for every placement (spread, best-fit, random) and pool policy (mixed, respected): six
# snapshots, 7 h apart (beyond the daemon's 6 h lookback, so none sees another), in one real
# Prometheus; `dagadvisor analyze --at` each. Per snapshot, against the replay's ground truth:
# the pending pods are the replayed ones; the GPUs gpu-node-hoarding says moving unblocks never
# exceed what the pending GPU pods request nor the free GPUs (and per node, its free GPUs); the
# pool-respecting cluster has no hoarding warning; the tolerations and node selectors the tool
# exports are read for every pending pod, and the mixed cluster (no taint, no selector) holds
# none by constraints; each pending pod is diagnosed once
# (one_diagnosis.jq); capacity-shortfall's missing nodes are within MAX_OVER_BOUND of its lower
# bound (plus one node); the report is under 2 MB and the analyze process peaks under 300 MB.
# Prints one table row per snapshot (docs/testing.md quotes them).
# Args: DAGADVISOR_BINARY OPENB_BINARY TRACE_DIR LOAD_PERCENT
DAGADVISOR=$1
OPENB=$2
TRACE=$3
LOAD=$4  # percent of the GPUs
source "$(dirname "$0")/prometheus_harness.sh"
command -v /usr/bin/time >/dev/null || fail "/usr/bin/time missing (Debian: time)"

T0=1795824000
SHARE=$(awk -v p="$LOAD" 'BEGIN { print p / 100 }')
SPACING=$((7 * 3600))
MAX_REPORT_BYTES=2000000
MAX_RSS_KB=$((300 * 1024))
# First-fit decreasing onto the real shapes ends within 1.3 % of the resource-sum bound on every
# snapshot at 110 and 130 % (234 for 233 nodes at 130 %); FFD's worst case is 11/9 of the optimum
# plus 6/9. Opening one node per pod on the smallest shape gave 4.2 to 8.0 times it. At 100 % the
# bound is 0 (the pool's free GPUs cover the few large pods, whether or not a repack could
# free a node for them): nothing to compare against, and the check holds only the bound below.
MAX_OVER_BOUND=1.05
VARIANTS=()
for placement in spread best-fit random; do
  for pools in mixed respected; do VARIANTS+=("$placement/$pools"); done
done

# One OpenMetrics file with every snapshot, each series in time order (promtool drops the rest).
k=0
for variant in "${VARIANTS[@]}"; do
  "$OPENB" --nodes "$TRACE/openb_node_list_all_node.csv" --pods "$TRACE/openb_pod_list_cpu250.csv" \
    --load "$SHARE" --placement "${variant%/*}" --pools "${variant#*/}" --seed 7 \
    --at $((T0 + k * SPACING)) --out "$WORK_DIR/$k.om" --summary "$WORK_DIR/$k.truth.json" \
    || fail "$variant: dagadvisor-openb exited $?"
  k=$((k + 1))
done
{ for i in $(seq 0 $((k - 1))); do cat "$WORK_DIR/$i.om"; done; echo "# EOF"; } >"$WORK_DIR/all.om"
rm -f "$WORK_DIR"/[0-9]*.om
# 54 h blocks: promtool reads the whole file once per block, and the snapshots span 35 h.
start_prometheus_with_openmetrics "$WORK_DIR/all.om" --max-block-duration=54h
rm -f "$WORK_DIR/all.om"

FAILURES=()
check() {  # check VARIANT DESCRIPTION JQ_EXPRESSION (true when it holds; $t is the truth)
  [ "$(jq -r --slurpfile t "$TRUTH" "\$t[0] as \$t | $3" "$REPORT")" = "true" ] \
    || FAILURES+=("$1: $2 ($3)")
}

HOARD='[.findings[] | select(.kind == "gpu-node-hoarding")]'
SHORTFALL='[.findings[] | select(.kind == "capacity-shortfall") | .evidence]'
DIAGNOSES='[.findings[] | (.evidence.diagnosis // .evidence.fragmentation.diagnosis // empty)]'
UNBLOCKED="($HOARD | map(.evidence.gpus_unblocked_by_moving) | add // 0)"
printf '%-8s %-19s %8s %8s %9s %10s %9s %12s %9s %7s\n' load variant pending gpu_pods \
  gpus_req free_gpus unblocked hoarding report_KB rss_MB
k=0
for variant in "${VARIANTS[@]}"; do
  TRUTH="$WORK_DIR/$k.truth.json"
  REPORT="$WORK_DIR/$k.report.json"
  at=$(date -u -d "@$((T0 + k * SPACING))" +%Y-%m-%dT%H:%M:%SZ)
  /usr/bin/time -f %M -o "$WORK_DIR/rss" "$DAGADVISOR" analyze --prometheus "$PROM_URL" \
    --at "$at" --output json >"$REPORT" 2>"$WORK_DIR/analyze.log" \
    || { tail -5 "$WORK_DIR/analyze.log" >&2; fail "$variant: analyze exited $?"; }
  rss_kb=$(tail -n 1 "$WORK_DIR/rss")
  bytes=$(stat -c %s "$REPORT")
  check "$variant" "pending pods as replayed" '.summary.pending_pods == $t.pending_pods'
  check "$variant" "GPUs unblocked <= GPUs the pending GPU pods request" \
    "$UNBLOCKED <= \$t.pending_gpus_requested"
  check "$variant" "GPUs unblocked <= free GPUs" "$UNBLOCKED <= \$t.free_gpus"
  check "$variant" "each node unblocks at most its free GPUs" \
    "all($HOARD[]; .evidence.gpus_unblocked_by_moving <= .evidence.free_gpus)"
  check "$variant" "hoarding pods <= pending GPU pods" \
    "all($HOARD[]; .evidence.diagnosis.hoarding <= \$t.pending_gpu_pods)"
  check "$variant" "each pending pod matched to one node" \
    "($HOARD | map(.evidence.pending_gpu_pods_total) | add // 0) <= \$t.pending_gpu_pods
     and ($HOARD | map(.evidence.pending_gpu_pods[] | \"\\(.namespace)/\\(.pod)\") | length
          == (unique | length))"
  [ "${variant#*/}" = respected ] && check "$variant" "no hoarding warning when pools are respected" \
    "all($HOARD[]; .severity != \"warning\")"
  # The tool exports kube_pod_tolerations and kube_pod_nodeselectors: read for every pending pod.
  check "$variant" "tolerations and node selectors read for every pending pod" \
    "all($DIAGNOSES[]; .constraints_checked.tolerations.pods == .pending_pods
                       and .constraints_checked.node_selectors.pods == .pending_pods)"
  [ "${variant#*/}" = mixed ] && check "$variant" "no constraint holds a pod when nothing is tainted" \
    "all($DIAGNOSES[]; .constraints == 0)"
  check "$variant" "missing nodes at most $MAX_OVER_BOUND x a positive lower bound + 1" \
    "all($SHORTFALL[]; .missing_nodes_lower_bound <= .missing_nodes
                       and (.missing_nodes_lower_bound == 0
                            or .missing_nodes <= $MAX_OVER_BOUND * .missing_nodes_lower_bound + 1))"
  problems=$(jq -r -f "$(dirname "$0")/one_diagnosis.jq" "$REPORT")
  [ -z "$problems" ] || FAILURES+=("$variant: $(head -3 <<<"$problems" | paste -sd ';')")
  [ "$bytes" -lt "$MAX_REPORT_BYTES" ] || FAILURES+=("$variant: report $bytes bytes")
  [ "$rss_kb" -lt "$MAX_RSS_KB" ] || FAILURES+=("$variant: analyze peaked at $rss_kb KB")
  severities=$(jq -r "$HOARD | group_by(.severity) | map(\"\(.[0].severity):\(length)\")
                      | join(\",\") | if . == \"\" then \"-\" else . end" "$REPORT")
  printf '%-8s %-19s %8s %8s %9s %10s %9s %12s %9s %7s\n' "$LOAD" "$variant" \
    "$(jq .pending_pods "$TRUTH")" "$(jq .pending_gpu_pods "$TRUTH")" \
    "$(jq .pending_gpus_requested "$TRUTH")" "$(jq .free_gpus "$TRUTH")" \
    "$(jq "$UNBLOCKED" "$REPORT")" "$severities" $((bytes / 1024)) $((rss_kb / 1024))
  k=$((k + 1))
done
if [ "${#FAILURES[@]}" -gt 0 ]; then
  printf 'FAIL: %s\n' "${FAILURES[@]}" >&2
  exit 1
fi
echo "ok: ${#VARIANTS[@]} openb snapshots at $LOAD % of the GPUs"
