#!/usr/bin/env bash
# sources.prometheus.staleness_markers on a TSDB that has them: a real Prometheus scrapes a
# kube-state-metrics exposition (a file served over loopback, every second) from which two pods
# are then removed, so Prometheus ends their series with staleness markers. With the setting on,
# liveness is one instant selection of kube_pod_created, whose series end at the same scrape as
# the pod's other families: the removed pods must be gone seconds later (a backfill
# would show them for 5 more minutes), running and pending counts must follow, and a window read
# must find them gone (pod_created_or_gone: one query for the gone pods and the new ones) and
# equal a full read of the same moment, as without the setting.
# Args: DAGADVISOR_BINARY INCREMENTAL_EQUALS_FULL
DAGADVISOR=$1
CHECK=$2
source "$(dirname "$0")/prometheus_harness.sh"
SERVER_PID=""
trap 'if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; wait "$SERVER_PID" 2>/dev/null || true; fi; cleanup' EXIT

CREATED=$(($(date +%s) - 600))
# name phase node
PODS="alive Running n1
gone-running Running n1
gone-pending Pending -"
exposition() {  # exposition PODS: what kube-state-metrics would serve for those pods
  echo "# TYPE kube_node_status_allocatable gauge"
  echo 'kube_node_status_allocatable{node="n1",resource="cpu",unit="core"} 16'
  echo "# TYPE kube_pod_info gauge"
  echo "$1" | awk '{ node = ($3 == "-") ? "" : $3
    printf "kube_pod_info{namespace=\"ns\",pod=\"%s\",uid=\"u-%s\",node=\"%s\",created_by_kind=\"Job\",created_by_name=\"%s\",priority_class=\"\"} 1\n", $1, $1, node, $1 }'
  echo "# TYPE kube_pod_status_phase gauge"
  echo "$1" | awk '{ printf "kube_pod_status_phase{namespace=\"ns\",pod=\"%s\",uid=\"u-%s\",phase=\"%s\"} 1\n", $1, $1, $2 }'
  echo "# TYPE kube_pod_created gauge"
  echo "$1" | awk -v created="$CREATED" '{ printf "kube_pod_created{namespace=\"ns\",pod=\"%s\",uid=\"u-%s\"} %d\n", $1, $1, created }'
}
serve() {  # serve PODS: replaces the served exposition at once
  exposition "$1" >"$WORK_DIR/site/metrics.tmp"
  mv "$WORK_DIR/site/metrics.tmp" "$WORK_DIR/site/metrics"
}
mkdir -p "$WORK_DIR/site" "$WORK_DIR/data"
serve "$PODS"
SERVER_PORT=$(free_port)
python3 -m http.server "$SERVER_PORT" --bind 127.0.0.1 --directory "$WORK_DIR/site" \
  >"$WORK_DIR/server.log" 2>&1 &
SERVER_PID=$!
wait_http_ok "http://127.0.0.1:$SERVER_PORT/metrics" 30 || { cat "$WORK_DIR/server.log" >&2; fail "file server not up"; }

PORT=$(free_port)
PROM_URL="http://127.0.0.1:$PORT"
cat >"$WORK_DIR/prometheus.yml" <<YAML
global: {scrape_interval: 1s}
scrape_configs:
  - {job_name: kube-state-metrics, honor_labels: true, static_configs: [{targets: ['127.0.0.1:$SERVER_PORT']}]}
YAML
prometheus --config.file="$WORK_DIR/prometheus.yml" --storage.tsdb.path="$WORK_DIR/data" \
  --web.listen-address="127.0.0.1:$PORT" --log.level=warn >"$WORK_DIR/prometheus.log" 2>&1 &
PROM_PID=$!
wait_http_ok "$PROM_URL/-/ready" 30 || { cat "$WORK_DIR/prometheus.log" >&2; fail "Prometheus not ready"; }

scraped() {  # scraped: the pods the newest scrape answered
  curl -fsS "$PROM_URL/api/v1/query" --data-urlencode 'query=kube_pod_info' |
    jq -r '[.data.result[].metric.pod] | sort | join(",")'
}
await_scraped() {  # await_scraped PODS FAILURE: waits up to 30 s for the scrapes to answer PODS
  for _ in $(seq 1 150); do
    [ "$(scraped)" = "$1" ] && return 0
    sleep 0.2
  done
  fail "$2"
}
await_scraped "alive,gone-pending,gone-running" "Prometheus never scraped the three pods"
sleep 2
BEFORE=$(date +%s)
sleep 1
serve "alive Running n1"
await_scraped "alive" "the removed pods still answer: no staleness markers written"
sleep 1
AFTER=$(date +%s)

printf 'sources:\n  prometheus:\n    staleness_markers: true\n' >"$WORK_DIR/markers.yaml"
check() {  # check DESCRIPTION FILE JQ_EXPRESSION (must print true)
  [ "$(jq -r "$3" "$2")" = "true" ] || { jq -c . "$2" | head -c 3000 >&2; fail "$1 ($3)"; }
  echo "ok: $1"
}
live='[.data.result[].metric.pod] | sort'
for at in BEFORE AFTER; do
  "$DAGADVISOR" snapshot record --config "$WORK_DIR/markers.yaml" --prometheus "$PROM_URL" \
    --at "${!at}" --out "$WORK_DIR/$at" >/dev/null || fail "snapshot record ($at) failed"
  "$DAGADVISOR" analyze --config "$WORK_DIR/markers.yaml" --prometheus "$PROM_URL" --at "${!at}" \
    --output json >"$WORK_DIR/$at.json" || fail "analyze ($at) failed"
done
check "pod_live is an instant selection" "$WORK_DIR/AFTER/manifest.json" \
  '[.queries[] | select(.name == "pod_live") | .promql] == ["max by (namespace, pod, uid) (kube_pod_created{})"]'
check "before the removal every pod is live" "$WORK_DIR/BEFORE/pod_live.json" \
  "$live == [\"alive\", \"gone-pending\", \"gone-running\"]"
check "and running or pending" "$WORK_DIR/BEFORE.json" \
  '.summary.running_pods == 2 and .summary.pending_pods == 1'
check "seconds after it only the pod still scraped is live" "$WORK_DIR/AFTER/pod_live.json" \
  "$live == [\"alive\"]"
check "the removed pods are neither running nor pending" "$WORK_DIR/AFTER.json" \
  '.summary.pods == 3 and .summary.running_pods == 1 and .summary.pending_pods == 0'

# A window read from BEFORE to AFTER finds the two pods gone and equals a full read of AFTER.
"$CHECK" --costs --staleness-markers "$PROM_URL" 3600 360 1800 "$BEFORE" "$AFTER" \
  >"$WORK_DIR/check.txt" 2>&1 ||
  { cat "$WORK_DIR/check.txt" >&2; fail "with staleness markers an incremental read differs from the full read"; }
grep -q "^t=$AFTER read=window .* | equal$" "$WORK_DIR/check.txt" ||
  { cat "$WORK_DIR/check.txt" >&2; fail "no window read equal to the full read"; }
# One query answers which pods are gone and which are new (both created before the window: gone).
grep -Eq "^ +window +pod_created_or_gone +requests=1 .*series=2 " "$WORK_DIR/check.txt" ||
  { cat "$WORK_DIR/check.txt" >&2; fail "the window read did not find the two removed pods gone"; }
echo "ok: a window read finds the removed pods gone and equals the full read"

# With the setting off, the first full read asks whether the TSDB writes markers anyway: here two
# pods' series ended with one seconds ago, so the reader says what the setting would save. Before
# the removal nothing ended: nothing said.
"$CHECK" --no-compare "$PROM_URL" 3600 360 1800 "$BEFORE" >"$WORK_DIR/off-before.txt" 2>&1 ||
  { cat "$WORK_DIR/off-before.txt" >&2; fail "a read with staleness_markers off failed"; }
grep -q "staleness_markers: true" "$WORK_DIR/off-before.txt" &&
  { cat "$WORK_DIR/off-before.txt" >&2; fail "markers said seen before any series ended"; }
"$CHECK" --no-compare "$PROM_URL" 3600 360 1800 "$AFTER" >"$WORK_DIR/off-after.txt" 2>&1 ||
  { cat "$WORK_DIR/off-after.txt" >&2; fail "a read with staleness_markers off failed"; }
grep -q "level=warn .*Prometheus writes staleness markers" "$WORK_DIR/off-after.txt" ||
  { cat "$WORK_DIR/off-after.txt" >&2; fail "with the setting off the reader did not see the markers"; }
echo "ok: with staleness_markers off the reader sees the markers and says what the setting saves"
