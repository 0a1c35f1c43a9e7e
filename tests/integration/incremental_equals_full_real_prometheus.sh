#!/usr/bin/env bash
# Issue #18: the cluster after incremental reads equals the cluster after a full read of the same
# moment, on a real Prometheus holding the seed scenario (pipelines' pods created, finishing and
# deleted between the reads, and leaving a one-hour lookback). One reader reads every time in
# turn (a full read, then window reads, some 1 minute apart, some 20); a fresh reader reads each
# time whole; incremental_equals_full compares the two snapshots field by field.
# On any backend of prometheus_harness.sh (DAGADVISOR_TEST_BACKEND). Prometheus 3 and
# VictoriaMetrics select samples over left-open ranges, (t - r, t], where Prometheus 2 took
# [t - r, t]; the reader asks the backend which (ingestion/range_start.h). The simulator writes
# its samples on whole multiples of 30 s, and the reads are on the minute, so samples lie on the
# windows' and the lookback's starts: the case where the two kinds of backend differ.
# Args: INCREMENTAL_EQUALS_FULL SIMULATOR_BINARY SCENARIO_YAML
CHECK=$1
SIM=$2
SCENARIO=$3
source "$(dirname "$0")/prometheus_harness.sh"

"$SIM" generate --scenario "$SCENARIO" --out "$WORK_DIR/sim" >/dev/null || fail "simulator failed"
start_prometheus_with_openmetrics "$WORK_DIR/sim/metrics.om"
start=$(jq '.window.start' "$WORK_DIR/sim/ground_truth.json")
[ "$start" != null ] || fail "no window.start in the ground truth"

minutes_read=(60 61 62 80 100 120 121 140 160 180 200 220 240 241 260 280 300 320 340 360 380 400)
times=()
for minutes in "${minutes_read[@]}"; do
  times+=($((start + minutes * 60)))
done
# Lookback 1 h, margin 6 min, usage refreshed every 30 min.
rc=0
"$CHECK" "$PROM_URL" 3600 360 1800 "${times[@]}" >"$WORK_DIR/check.txt" 2>&1 || rc=$?
cat "$WORK_DIR/check.txt"
[ "$rc" -eq 0 ] || fail "an incremental read differs from the full read of the same moment"

# The annotations the engine adapters read (all the daemon asks) arrive, as a read of every
# annotation has them.
grep -Eq '^t=[0-9]+ annotated_pods=[1-9][0-9]* .* keyed_annotations=same$' "$WORK_DIR/check.txt" \
  || fail "the annotations the adapters read are not those of a read of every annotation"
grep '^t=.* read=' "$WORK_DIR/check.txt" >"$WORK_DIR/reads.txt"
windows=$(grep -c 'read=window' "$WORK_DIR/reads.txt" || true)
[ "$windows" -eq $((${#times[@]} - 1)) ] || fail "$windows window reads, expected every read after the first"
grep 'read=window' "$WORK_DIR/reads.txt" >"$WORK_DIR/windows.txt"
grep -q 'usage=kept' "$WORK_DIR/windows.txt" || fail "usage never kept between refreshes"
grep -q 'usage=compared' "$WORK_DIR/windows.txt" || fail "usage never refreshed in a window read"
# Pods came and went between reads (created, and deleted out of the lookback).
awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "new") n += kv[2];
       if (kv[1] == "gone") g += kv[2] } } END { exit !(n > 0 && g > 0) }' "$WORK_DIR/windows.txt" \
  || fail "no pod came or left between the reads: the scenario does not test the merge"
# A window read receives less than the full read of the same moment (the first bytes= of a line
# are the incremental reader's, the second the full one's).
awk '{ k = 0; for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "bytes") b[++k] = kv[2] }
       if (b[1] >= b[2]) bad = 1 } END { exit bad }' "$WORK_DIR/windows.txt" \
  || fail "a window read received as many bytes as the full read"
echo "ok: $windows window reads equal the full reads of the same moments"

# The same with staleness_markers, whose window asks the gone and the new pods in one query
# (pod_created_or_gone). This backfill has no markers: a deleted pod's kube_pod_created answers
# instant queries for 5 more minutes, on both sides alike. The first ten times: pods come and go.
"$CHECK" --costs --staleness-markers "$PROM_URL" 3600 360 1800 "${times[@]:0:10}" \
  >"$WORK_DIR/markers.txt" 2>&1 || { cat "$WORK_DIR/markers.txt"; fail "with staleness_markers an incremental read differs from the full read"; }
grep 'read=window' "$WORK_DIR/markers.txt" >"$WORK_DIR/marker-windows.txt"
[ "$(grep -c ' | equal$' "$WORK_DIR/marker-windows.txt")" -eq 9 ] \
  || { cat "$WORK_DIR/markers.txt"; fail "with staleness_markers not every window read equals the full read"; }
awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "new") n += kv[2];
       if (kv[1] == "gone") g += kv[2] } } END { exit !(n > 0 && g > 0) }' "$WORK_DIR/marker-windows.txt" \
  || fail "with staleness_markers no pod came or left between the reads"
grep -Eq "^ +window +pod_created_or_gone +requests=1 .*series=[1-9]" "$WORK_DIR/markers.txt" \
  || { cat "$WORK_DIR/markers.txt"; fail "with staleness_markers no window asked pod_created_or_gone"; }
echo "ok: with staleness_markers 9 window reads equal the full reads of the same moments"

# Where relabelling drops uid from every series (some set-ups do, to save a label per series), a
# pod fact asked by uid alone folds every pod into one series: the reader says so, asks again by
# namespace and name, and still equals a full read.
kill "$PROM_PID"
wait "$PROM_PID" 2>/dev/null || true
PROM_PID=""
rm -rf "$WORK_DIR/data"
sed -E 's/,uid="[^"]*"//g; s/\{uid="[^"]*",?/{/g' "$WORK_DIR/sim/metrics.om" >"$WORK_DIR/no-uid.om"
grep -Eq '[{,]uid="' "$WORK_DIR/no-uid.om" && fail "a uid label is left in the relabelled exposition"
start_prometheus_with_openmetrics "$WORK_DIR/no-uid.om"
"$CHECK" "$PROM_URL" 3600 360 1800 "${times[@]:0:4}" >"$WORK_DIR/no-uid.txt" 2>&1 \
  || { cat "$WORK_DIR/no-uid.txt"; fail "without uid an incremental read differs from the full read"; }
grep -q 'pod series without uid' "$WORK_DIR/no-uid.txt" \
  || { cat "$WORK_DIR/no-uid.txt"; fail "without uid the reader did not fall back to namespace and name"; }
[ "$(grep -c '^t=.* | equal$' "$WORK_DIR/no-uid.txt")" -eq 4 ] \
  || { cat "$WORK_DIR/no-uid.txt"; fail "without uid not every read equals the full read"; }
echo "ok: without uid labels 4 reads equal the full reads of the same moments"
