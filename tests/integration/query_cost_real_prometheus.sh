#!/usr/bin/env bash
# What each query costs Prometheus (issue #18, item 3): the daemon asks a real Prometheus with
# stats=all and exports, per catalog query and read kind (read="full": the whole catalog;
# read="window": an incremental read of what changed), the evaluation and execution time and the
# samples Prometheus reports, with the response bytes and series it received, summed over the
# query's requests. Queries that read series must show figures above zero; the debug log carries
# one line per request with the same figures. The fixture is shifted to end 30 s ago, so that a
# daemon on the wall clock sees it: first `serve --at` (the same moment every cycle: full reads
# of the catalog's 21 queries, nothing kept), then `serve` on the clock (the default
# incremental reads: a full read, then window reads).
# Args: DAGADVISOR_BINARY FIXTURE_OM
DAGADVISOR=$1
FIXTURE=$2
source "$(dirname "$0")/prometheus_harness.sh"

END=$(( $(date +%s) - 30 ))
last=$(grep -v '^#' "$FIXTURE" | awk '{ print $NF }' | sort -n | tail -1)
awk -v shift=$((END - last)) '/^#/ { print; next } { $NF = $NF + shift; print }' "$FIXTURE" \
  >"$WORK_DIR/shifted.om"
start_prometheus_with_openmetrics "$WORK_DIR/shifted.om"
AT=$(date -u -d "@$END" +%Y-%m-%dT%H:%M:%SZ)

# start_daemon LOG [ARGS…]: a daemon on a free port (sets BASE and DAEMON), ready.
start_daemon() {
  local log=$1
  shift
  PORT=$(free_port)
  BASE="http://127.0.0.1:$PORT"
  "$DAGADVISOR" serve --prometheus "$PROM_URL" "$@" \
    --listen "127.0.0.1:$PORT" --interval 1s --log-level debug >"$WORK_DIR/$log" 2>&1 &
  DAEMON=$!
  wait_http_ok "$BASE/readyz" 30 || { cat "$WORK_DIR/$log" >&2; fail "never ready"; }
}
trap 'kill $DAEMON 2>/dev/null || true; cleanup' EXIT

# value METRIC QUERY READ: the sample of METRIC for query QUERY and read kind READ, empty when absent.
value() {
  grep "^$1{" "$WORK_DIR/metrics.txt" | grep "query=\"$2\"" | grep "read=\"$3\"" |
    awk '{print $NF}' | head -1
}
# series METRIC READ: how many queries METRIC has a series for, for read kind READ.
series() {
  grep "^$1{" "$WORK_DIR/metrics.txt" | grep -c "read=\"$2\"" || true
}
# positive METRIC QUERY READ: the figure exists and is above zero.
positive() {
  local v; v=$(value "$1" "$2" "$3")
  [ -n "$v" ] || { grep '^dagadvisor_source_query' "$WORK_DIR/metrics.txt" >&2; fail "$1{query=\"$2\",read=\"$3\"} missing"; }
  awk -v v="$v" 'BEGIN { exit !(v > 0) }' || fail "$1{query=\"$2\",read=\"$3\"} is $v, not > 0"
}
ALL_COSTS="dagadvisor_source_query_eval_seconds dagadvisor_source_query_exec_seconds
  dagadvisor_source_query_samples dagadvisor_source_query_response_bytes dagadvisor_source_query_series"

start_daemon daemon-at.log --at "$AT"
curl -fsS "$BASE/metrics" >"$WORK_DIR/metrics.txt" || fail "/metrics down"
# kube_pod_info and kube_node_status_allocatable are in the fixture: these queries read series.
for query in pod_info node_allocatable; do
  for metric in $ALL_COSTS; do
    positive "$metric" "$query" full
  done
  echo "ok: $query: eval $(value dagadvisor_source_query_eval_seconds "$query" full) s," \
    "$(value dagadvisor_source_query_samples "$query" full) samples," \
    "$(value dagadvisor_source_query_response_bytes "$query" full) bytes," \
    "$(value dagadvisor_source_query_series "$query" full) series"
done
# Every catalog query has its bytes, and what the finished tasks with a parent received (one
# request of each figure), and nothing else is asked; the exec time includes the evaluation.
n=$(series dagadvisor_source_query_response_bytes full)
[ "$n" -eq 23 ] || fail "response bytes for $n queries, expected the catalog's 21 and 2 of received bytes"
for query in pod_received pod_received_mean; do
  [ -n "$(value dagadvisor_source_query_response_bytes "$query" full)" ] || fail "serve --at did not ask $query"
done
[ -z "$(value dagadvisor_source_query_response_bytes pod_seen full)" ] || fail "serve --at asked pod_seen"
[ "$(series dagadvisor_source_query_response_bytes window)" -eq 0 ] || fail "serve --at read a window"
awk -v e="$(value dagadvisor_source_query_eval_seconds pod_info full)" \
    -v x="$(value dagadvisor_source_query_exec_seconds pod_info full)" 'BEGIN { exit !(x >= e) }' \
  || fail "pod_info: exec time below eval time"
grep 'msg="query decoded"' "$WORK_DIR/daemon-at.log" | grep 'query=pod_info' | grep -q 'backend_eval_ms=' \
  || { grep 'query decoded' "$WORK_DIR/daemon-at.log" | head -3 >&2; fail "no debug line with the backend's cost"; }
echo "ok: serve --at: 23 queries' bytes exported, all full reads; the debug log names each query's cost"
kill -0 "$DAEMON" || fail "daemon died"
kill "$DAEMON"; wait "$DAEMON" 2>/dev/null || true

# On the clock, with the default settings: the first read is full, the next ones windows. The
# full read asks pod_seen (when a kept pod leaves the lookback) only of the pods not live, and
# every pod of a fixture of one moment is live: the catalog alone, and (staleness_markers off by
# default) whether the TSDB writes markers anyway: a backfill has none.
start_daemon daemon.log
for _ in $(seq 1 100); do
  curl -fsS "$BASE/metrics" >"$WORK_DIR/metrics.txt" || fail "/metrics down"
  [ "$(series dagadvisor_source_query_response_bytes window)" -gt 0 ] && break
  sleep 0.2
done
grep -q 'msg="window read"' "$WORK_DIR/daemon.log" || { tail -20 "$WORK_DIR/daemon.log" >&2; fail "no window read"; }
n=$(series dagadvisor_source_query_response_bytes full)
# Not pod_owner: kube_pod_info names every pod's owner here (created_by_*, as kube-state-metrics
# writes it), and kube_pod_owner is asked only of pods whose info names none.
[ "$n" -eq 24 ] || fail "full read: bytes for $n queries, expected the catalog's 21 but pod_owner, 2 of received bytes, staleness_markers_seen and range_start"
[ -z "$(value dagadvisor_source_query_response_bytes pod_owner full)" ] \
  || fail "full read asked pod_owner where kube_pod_info names every owner"
[ -n "$(value dagadvisor_source_query_response_bytes staleness_markers_seen full)" ] || fail "full read did not ask staleness_markers_seen"
[ -n "$(value dagadvisor_source_query_response_bytes range_start full)" ] || fail "full read did not ask how the backend reads a range's start"
grep -q "staleness_markers: true" "$WORK_DIR/daemon.log" && fail "markers said seen on a backfill"
[ -z "$(value dagadvisor_source_query_response_bytes pod_seen full)" ] || fail "full read asked pod_seen of live pods"
# A window read asks which pods changed and which are gone (with this fixture, which holds one
# moment, none), and of the pods nothing: no pod_usage (kept for usage_refresh), none of the
# facts read once per new pod, none of those read again for changed pods.
for query in pod_changed pod_gone; do
  for metric in $ALL_COSTS; do
    [ "$metric" = dagadvisor_source_query_series ] || positive "$metric" "$query" window
  done
  [ "$(value dagadvisor_source_query_series "$query" window)" = 0 ] \
    || fail "$query: pods changed in a fixture of one moment"
done
for query in pod_usage_cpu pod_usage_memory pod_usage_samples pod_requests pod_labels pod_annotations pod_spec; do
  [ -n "$(value dagadvisor_source_query_response_bytes "$query" full)" ] || fail "full read without $query"
  [ -z "$(value dagadvisor_source_query_response_bytes "$query" window)" ] \
    || fail "a window read with no new pod asked $query"
done
for query in pod_info pod_phase pod_created pod_scheduled pod_started pod_finished pod_live pod_seen pod_received pod_received_mean; do
  [ -z "$(value dagadvisor_source_query_response_bytes "$query" window)" ] \
    || fail "a window read with no changed pod asked $query"
done
# The containers' requests (one series a container and resource) are pod_requests' now; pod_spec
# answers only what pods pending unbound tolerate and select, and this fixture has none.
positive dagadvisor_source_query_series pod_requests full
echo "ok: serve: a full read of $n queries, window reads of $(series dagadvisor_source_query_response_bytes window)" \
  "(pod_changed and pod_gone)"
kill -0 "$DAEMON" || fail "daemon died"
