#!/usr/bin/env bash
# Pods deleted shortly before the analysis time, in a backfilled TSDB (no staleness markers, so
# their series still answer instant queries for 5 minutes): they must not count as live or
# Running. A pod whose series is written only every 270 s (change-or-refresh thinning, as the
# simulator does) must still count as live. Data go on after --at, so this is also `--at` in
# the past. Args: DAGADVISOR_BINARY
DAGADVISOR=$1
source "$(dirname "$0")/prometheus_harness.sh"

AT=1795953600                  # 2026-11-29T12:00:00Z
FROM=$((AT - 1800))
UNTIL=$((AT + 600))
# name phase node first_sample last_sample interval
PODS="alive Running n1 $FROM $UNTIL 30
gone-running Running n1 $FROM $((AT - 120)) 30
gone-pending Pending - $((AT - 600)) $((AT - 90)) 30
short-gone Running n1 $((AT - 300)) $((AT - 240)) 30
thinned Running n1 $FROM $UNTIL 270"

# OpenMetrics wants the samples of one family together, so each family is one awk pass.
family() {  # family NAME TYPE AWK_LABELS_AND_VALUE
  echo "# TYPE $1 $2"
  echo "$PODS" | awk -v name="$1" '{
    for (t = $4; t <= $5; t += $6) {
      '"$3"'
    }
  }'
}
{
  echo "# TYPE kube_node_status_allocatable gauge"
  for t in $(seq "$FROM" 30 "$UNTIL"); do
    echo "kube_node_status_allocatable{node=\"n1\",resource=\"cpu\",unit=\"core\"} 16 $t"
  done
  family kube_pod_info gauge 'node = ($3 == "-") ? "" : $3
    printf "%s{namespace=\"ns\",pod=\"%s\",uid=\"u-%s\",node=\"%s\",created_by_kind=\"Job\",created_by_name=\"%s\",priority_class=\"\"} 1 %d\n", name, $1, $1, node, $1, t'
  family kube_pod_status_phase gauge 'printf "%s{namespace=\"ns\",pod=\"%s\",uid=\"u-%s\",phase=\"%s\"} 1 %d\n", name, $1, $1, $2, t'
  family kube_pod_created gauge 'printf "%s{namespace=\"ns\",pod=\"%s\",uid=\"u-%s\"} %d %d\n", name, $1, $1, $4, t'
  echo "# EOF"
} >"$WORK_DIR/deleted.om"
start_prometheus_with_openmetrics "$WORK_DIR/deleted.om"

check() {  # check DESCRIPTION FILE JQ_EXPRESSION (must print true)
  [ "$(jq -r "$3" "$2")" = "true" ] || { jq -c . "$2" | head -c 3000 >&2; fail "$1 ($3)"; }
  echo "ok: $1"
}
live='[.data.result[].metric.pod] | sort'

"$DAGADVISOR" snapshot record --prometheus "$PROM_URL" --at "$AT" --out "$WORK_DIR/now" \
  >/dev/null || fail "snapshot record failed"
check "the instant query still sees the deleted pods (no staleness markers)" \
  "$WORK_DIR/now/pod_info.json" "$live == [\"alive\", \"gone-pending\", \"gone-running\", \"short-gone\", \"thinned\"]"
check "only the pods still written are live" "$WORK_DIR/now/pod_live.json" \
  "$live == [\"alive\", \"thinned\"]"
"$DAGADVISOR" analyze --prometheus "$PROM_URL" --at "$AT" --output json >"$WORK_DIR/now.json" \
  || fail "analyze failed"
check "deleted pods are neither running nor pending" "$WORK_DIR/now.json" \
  '.summary.pods == 5 and .summary.running_pods == 2 and .summary.pending_pods == 0'

# 3 minutes earlier gone-running and gone-pending were still there.
"$DAGADVISOR" snapshot record --prometheus "$PROM_URL" --at $((AT - 180)) --out "$WORK_DIR/before" \
  >/dev/null || fail "snapshot record (before) failed"
check "before the deletions those pods were live" "$WORK_DIR/before/pod_live.json" \
  "$live | contains([\"alive\", \"gone-pending\", \"gone-running\", \"thinned\"])"
"$DAGADVISOR" analyze --prometheus "$PROM_URL" --at $((AT - 180)) --output json \
  >"$WORK_DIR/before.json" || fail "analyze (before) failed"
check "and running or pending" "$WORK_DIR/before.json" \
  '.summary.running_pods >= 3 and .summary.pending_pods == 1'
