#!/usr/bin/env bash
# Real exporters' output through a real Prometheus: the kube-state-metrics and kube-scheduler
# scrapes of a Kubernetes 1.35 cluster (tests/fixtures/exposition/, see its README) are written as
# two samples a minute apart (counters and histograms starting from zero: a rate over the 5m
# window is the scraped count / 300 s), backfilled, and read
# by `dagadvisor`. Expected values come from the scrape text itself.
# Args: DAGADVISOR_BINARY KSM_SCRAPE SCHEDULER_SCRAPE
DAGADVISOR=$1
KSM=$2
SCHEDULER=$3
source "$(dirname "$0")/prometheus_harness.sh"

start_prometheus_with_scrapes "$KSM" "$SCHEDULER"

check() {  # check DESCRIPTION FILE JQ_EXPRESSION (must print true)
  [ "$(jq -r "$3" "$2")" = "true" ] || { jq -c . "$2" | head -c 3000 >&2; fail "$1 ($3)"; }
  echo "ok: $1"
}
value_of() {  # value_of SERIES_PREFIX: the scrape's value of the first line starting with it
  grep -F "$1" "$SCHEDULER" | head -1 | awk '{ print $NF }'
}
# The bucket bounds [lower, upper] holding quantile Q of a cumulative histogram summed over its
# other labels: FILTER selects the series of one histogram (grep -F), Q the quantile.
bucket_bounds() {
  grep -F "$1" "$SCHEDULER" | sed -E 's/.*le="([^"]+)".* ([0-9.e+]+)$/\1 \2/' | sed 's/^+Inf /1e300 /' |
    awk '{ sum[$1] += $2 } END { for (le in sum) print le, sum[le] }' | sort -g |
    awk -v q="$2" '{ le[NR] = $1; n[NR] = $2 }
      END { lower = 0; for (i = 1; i <= NR; i++) { if (n[i] >= q * n[NR]) { print lower, le[i]; exit }
                                                   lower = le[i] } }'
}

"$DAGADVISOR" snapshot record --prometheus "$PROM_URL" --at "$T1" --out "$WORK_DIR/snap" >/dev/null \
  || fail "snapshot record failed"
S="$WORK_DIR/snap"

read -r lo hi < <(bucket_bounds 'scheduler_pod_scheduling_sli_duration_seconds_bucket{' 0.95)
check "SLI p95 within the bucket the scrape puts it in ($lo, $hi]" "$S/scheduling_latency.json" \
  "[.data.result[] | select(.metric.stat == \"p95\") | .value[1] | tonumber] | length == 1 and .[0] >= $lo and .[0] <= $hi"
count=$(grep -F 'scheduler_pod_scheduling_sli_duration_seconds_count{' "$SCHEDULER" | awk '{ n += $NF } END { print n }')
check "SLI observations per second = $count / 300 s (the 5m rate window)" "$S/scheduling_latency.json" \
  "any(.data.result[]; .metric.stat == \"rate\" and ((.value[1] | tonumber) - $count / 300 | fabs) < 1e-9)"

unschedulable=$(value_of 'scheduler_pending_pods{queue="unschedulable"}')
scheduled=$(value_of 'scheduler_schedule_attempts_total{profile="default-scheduler",result="scheduled"}')
node_affinity=$(value_of 'scheduler_unschedulable_pods{plugin="NodeAffinity"')
check "unschedulable queue as scraped ($unschedulable)" "$S/scheduler_signals.json" \
  "any(.data.result[]; .metric.signal == \"pending\" and .metric.queue == \"unschedulable\" and (.value[1] | tonumber) == $unschedulable)"
check "scheduled attempts per second = $scheduled / 300" "$S/scheduler_signals.json" \
  "any(.data.result[]; .metric.signal == \"attempts\" and .metric.result == \"scheduled\" and ((.value[1] | tonumber) - $scheduled / 300 | fabs) < 1e-9)"
check "pods rejected by NodeAffinity ($node_affinity)" "$S/scheduler_signals.json" \
  "any(.data.result[]; .metric.signal == \"unschedulable\" and .metric.plugin == \"NodeAffinity\" and (.value[1] | tonumber) == $node_affinity)"
read -r lo hi < <(bucket_bounds 'scheduler_framework_extension_point_duration_seconds_bucket{extension_point="Filter"' 0.99)
check "Filter p99 within ($lo, $hi]" "$S/scheduler_signals.json" \
  "any(.data.result[]; .metric.signal == \"extension_p99\" and .metric.extension_point == \"Filter\" and (.value[1] | tonumber) >= $lo and (.value[1] | tonumber) <= $hi)"

# kube-state-metrics of the same cluster: every node and pod of the scrape is in the model.
nodes=$(grep -o '^kube_node_status_allocatable{[^}]*node="[^"]*"' "$KSM" | grep -o 'node="[^"]*"' | sort -u | wc -l)
pods=$(grep -o '^kube_pod_info{[^}]*' "$KSM" | grep -o 'uid="[^"]*"' | sort -u | wc -l)
"$DAGADVISOR" analyze --prometheus "$PROM_URL" --at "$T1" --output json >"$WORK_DIR/report.json" \
  || fail "analyze failed"
check "$nodes node(s) and $pods pods as scraped" "$WORK_DIR/report.json" \
  ".summary.nodes == $nodes and .summary.pods == $pods"
