#!/usr/bin/env bash
# What each query costs Prometheus (issue #18, item 3): the daemon asks a real Prometheus with
# stats=all and exports, per catalog query, the evaluation and execution time and the samples
# Prometheus reports, with the response bytes and series it received. Queries that read series
# must show figures above zero; the debug log carries one line per query with the same figures.
# Args: DAGADVISOR_BINARY FIXTURE_OM
DAGADVISOR=$1
FIXTURE=$2
source "$(dirname "$0")/prometheus_harness.sh"

start_prometheus_with_openmetrics "$FIXTURE"
PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
"$DAGADVISOR" serve --prometheus "$PROM_URL" --at 2026-11-29T00:15:00Z \
  --listen "127.0.0.1:$PORT" --interval 1s --log-level debug >"$WORK_DIR/daemon.log" 2>&1 &
DAEMON=$!
trap 'kill $DAEMON 2>/dev/null || true; cleanup' EXIT

wait_http_ok "$BASE/readyz" 30 || { cat "$WORK_DIR/daemon.log" >&2; fail "never ready"; }
curl -fsS "$BASE/metrics" >"$WORK_DIR/metrics.txt" || fail "/metrics down"

# value METRIC QUERY: the sample of METRIC for query QUERY, empty when absent.
value() {
  grep "^$1{" "$WORK_DIR/metrics.txt" | grep "query=\"$2\"" | awk '{print $NF}' | head -1
}
# kube_pod_info and kube_node_status_allocatable are in the fixture: these queries read series.
for query in pod_info node_allocatable; do
  for metric in dagadvisor_source_query_eval_seconds dagadvisor_source_query_exec_seconds \
                dagadvisor_source_query_samples dagadvisor_source_query_response_bytes \
                dagadvisor_source_query_series; do
    v=$(value "$metric" "$query")
    [ -n "$v" ] || { grep '^dagadvisor_source_query' "$WORK_DIR/metrics.txt" >&2; fail "$metric{query=\"$query\"} missing"; }
    awk -v v="$v" 'BEGIN { exit !(v > 0) }' || fail "$metric{query=\"$query\"} is $v, not > 0"
  done
  echo "ok: $query: eval $(value dagadvisor_source_query_eval_seconds "$query") s," \
    "$(value dagadvisor_source_query_samples "$query") samples," \
    "$(value dagadvisor_source_query_response_bytes "$query") bytes," \
    "$(value dagadvisor_source_query_series "$query") series"
done
# Every catalog query has its bytes; the exec time includes the evaluation.
n=$(grep -c '^dagadvisor_source_query_response_bytes{' "$WORK_DIR/metrics.txt")
[ "$n" -eq 15 ] || fail "response bytes for $n queries, expected the catalog's 15"
awk -v e="$(value dagadvisor_source_query_eval_seconds pod_info)" \
    -v x="$(value dagadvisor_source_query_exec_seconds pod_info)" 'BEGIN { exit !(x >= e) }' \
  || fail "pod_info: exec time below eval time"
grep 'msg="query decoded"' "$WORK_DIR/daemon.log" | grep 'query=pod_info' | grep -q 'backend_eval_ms=' \
  || { grep 'query decoded' "$WORK_DIR/daemon.log" | head -3 >&2; fail "no debug line with the backend's cost"; }
echo "ok: 15 queries' bytes exported; the debug log names each query's cost"
kill -0 "$DAEMON" || fail "daemon died"
