#!/usr/bin/env bash
# The direct scrape's local evaluation against Prometheus' own PromQL on the same data: the real
# kube-state-metrics and kube-scheduler scrapes of a Kubernetes 1.35 cluster
# (tests/fixtures/exposition/) are (1) backfilled into a real Prometheus and recorded with
# `snapshot record --prometheus`, and (2) read as files by `snapshot record` with
# sources.scrape.targets. Every query's samples must agree: the same label sets (label_*/
# annotation_* only for the label queries, which keep every label in PromQL) and the same values;
# for the scheduler its gauges and quantiles (rates differ by design: PromQL's window against the
# time since the scheduler started).
# Args: DAGADVISOR_BINARY KSM_SCRAPE SCHEDULER_SCRAPE
DAGADVISOR=$1
KSM=$2
SCHEDULER=$3
source "$(dirname "$0")/prometheus_harness.sh"

start_prometheus_with_scrapes "$KSM" "$SCHEDULER"
"$DAGADVISOR" snapshot record --prometheus "$PROM_URL" --at "$T1" --out "$WORK_DIR/promql" \
  >/dev/null || fail "snapshot record --prometheus failed"

cat >"$WORK_DIR/scrape.yaml" <<YAML
sources:
  scrape:
    targets: ["$KSM", "$SCHEDULER"]
YAML
"$DAGADVISOR" snapshot record --config "$WORK_DIR/scrape.yaml" --out "$WORK_DIR/scrape" \
  >/dev/null || fail "snapshot record with a direct scrape failed"

# One query's samples as sorted "labels value" lines (labels sorted by name): label_*/annotation_* and the query's own
# labels, values rounded to 1e-6 (sums may add in another order).
normalize() {  # normalize FILE KEEP_PREFIXED
  jq -r --argjson prefixed "$2" '.data.result[] |
    (.metric | with_entries(select(.key != "__name__" and
       (if $prefixed then (.key | test("^(label|annotation)_")) or
          (.key | IN("node", "namespace", "pod", "uid")) else true end))) |
       to_entries | sort_by(.key) | from_entries | tojson)
    + " " + (.value[1] | tonumber * 1000000 | round / 1000000 | tostring)' "$1" | sort
}
compared=0
for query in node_allocatable node_taints pod_info pod_live pod_phase pod_requests pod_owner pod_created \
             pod_scheduled pod_started pod_finished node_labels pod_labels pod_annotations; do
  case $query in node_labels|pod_labels|pod_annotations) prefixed=true ;; *) prefixed=false ;; esac
  # pod_live's value is not a fact (ClusterBuilder reads its label sets only): labels compared.
  values='s/$//'; [ "$query" != pod_live ] || values='s/ [^ ]*$//'
  normalize "$WORK_DIR/promql/$query.json" "$prefixed" | sed "$values" >"$WORK_DIR/$query.promql"
  normalize "$WORK_DIR/scrape/$query.json" "$prefixed" | sed "$values" >"$WORK_DIR/$query.scrape"
  n=$(wc -l <"$WORK_DIR/$query.promql")
  diff "$WORK_DIR/$query.promql" "$WORK_DIR/$query.scrape" >"$WORK_DIR/$query.diff" ||
    { head -20 "$WORK_DIR/$query.diff" >&2; fail "$query: the direct scrape differs from PromQL"; }
  echo "ok: $query: $n sample(s) identical"
  compared=$((compared + n))
done

quantiles() {
  jq -r '.data.result[] | select(.metric.stat != "rate") |
    "\(.metric.profile) \(.metric.stat) \(.value[1] | tonumber)"' "$1" | sort
}
quantiles "$WORK_DIR/promql/scheduling_latency.json" >"$WORK_DIR/latency.promql"
quantiles "$WORK_DIR/scrape/scheduling_latency.json" >"$WORK_DIR/latency.scrape"
[ -s "$WORK_DIR/latency.promql" ] || fail "no scheduling latency from Prometheus"
paste -d' ' "$WORK_DIR/latency.promql" "$WORK_DIR/latency.scrape" | awk '
  { if ($1 != $4 || $2 != $5) { print "mismatch: " $0; bad = 1 }
    d = $3 - $6; if (d < 0) d = -d; if (d > 1e-9 * ($3 < 0 ? -$3 : $3) + 1e-12) { print "value: " $0; bad = 1 } }
  END { exit bad }' || fail "scheduling latency quantiles differ"
[ "$(wc -l <"$WORK_DIR/latency.promql")" = "$(wc -l <"$WORK_DIR/latency.scrape")" ] ||
  fail "scheduling latency: different number of quantiles"
echo "ok: scheduling latency: $(wc -l <"$WORK_DIR/latency.promql") quantile(s) identical"
# Scheduler gauges and the extension-point p99 (a quantile: the same from counts since start as
# from a rate); attempts and preemptions are rates, left out as above.
signals() {
  jq -r '.data.result[] | select(.metric.signal | IN("pending", "unschedulable", "extension_p99")) |
    "\(.metric | del(.signal) | to_entries | sort_by(.key) | from_entries | tojson) \(.metric.signal) \(.value[1] | tonumber * 1000000 | round / 1000000)"' "$1" | sort
}
signals "$WORK_DIR/promql/scheduler_signals.json" >"$WORK_DIR/signals.promql"
signals "$WORK_DIR/scrape/scheduler_signals.json" >"$WORK_DIR/signals.scrape"
[ -s "$WORK_DIR/signals.promql" ] || fail "no scheduler signals from Prometheus"
diff "$WORK_DIR/signals.promql" "$WORK_DIR/signals.scrape" >&2 || fail "scheduler signals differ"
echo "ok: scheduler signals: $(wc -l <"$WORK_DIR/signals.promql") identical"

[ "$compared" -gt 100 ] || fail "only $compared samples compared: the fixtures are not being read"
echo "PASS: direct scrape = PromQL on $compared kube-state-metrics samples"
