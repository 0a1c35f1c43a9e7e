#!/usr/bin/env bash
# dagadvisor inside a real monitoring stack, end to end on real parts:
#   dagadvisor-sim serve (one per scenario, live /metrics)  ─┐
#   dagadvisor serve    (one per scenario, cluster=<name>)  ─┼─> Prometheus (alerts/ rules loaded)
#                                                            └─> Alertmanager (config/alertmanager)
# One Prometheus holds every scenario as its own cluster (a target label), as a Thanos or Mimir
# holding several clusters would; each daemon reads its cluster through sources.prometheus.selector.
# Asserts: the planted problems fire their alerts into Alertmanager, `healthy` fires none, and
# every dashboard panel's query returns finite data for the scenario listed in panel_scenarios.json.
# `for:` durations are shortened to 10 s in a test-only copy of the rules (nothing else changes).
# Args: DAGADVISOR_BINARY SIMULATOR_BINARY REPO_DIR
DAGADVISOR=$1
SIM=$2
REPO=$3
HERE=$(cd "$(dirname "$0")" && pwd)
source "$REPO/tests/integration/prometheus_harness.sh"

# name:speed:alerts that must fire:alerts that may also fire (comma-separated; "-" = none).
# Any other alert firing for a scenario fails the test. Speed "-": no simulator, the daemon reads
# a closed port (its source is down).
SCENARIOS=(
  "gpu-hoarding:1:DagadvisorGpuNodeHoarding,DagadvisorStrandedGpus:DagadvisorCriticalPathRunWaiting"
  "seed:1:DagadvisorGpuNodeHoarding,DagadvisorCriticalPathRunWaiting:DagadvisorStrandedGpus"
  "latency-spike:4:DagadvisorSchedulingLatencySLOBurn:-"
  "healthy:1:-:-"
  "unreachable:-:DagadvisorSourceDown,DagadvisorAnalysisStale:-"
)
ALERT_DEADLINE_S=150  # counted from the moment every reachable daemon has its first analysis

CHILDREN=()
stop_children() {
  local pid
  for pid in "${CHILDREN[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${CHILDREN[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
}
trap 'stop_children; cleanup' EXIT

# Starts the live window shortly before the planted moment: the first latency spike plus 2 min,
# else 1 min before the simulator's suggested analysis time.
window_offset() {
  local truth=$1
  jq -r 'if (.scheduling_latency.spikes | length) > 0 then .scheduling_latency.spikes[0].start + 120
          else .suggested_analysis_time - 60 end - .window.start' "$truth"
}

PROM_PORT=$(free_port)
AM_PORT=$(free_port)
PROM_URL="http://127.0.0.1:$PROM_PORT"
AM_URL="http://127.0.0.1:$AM_PORT"
SIM_TARGETS=""
DAEMON_TARGETS=""
READY_URLS=()  # /readyz of the daemons whose source is up

start_daemon() {  # start_daemon CLUSTER PROMETHEUS_URL: it reads only its cluster's series
  local name=$1 url=$2 port
  port=$(free_port)
  printf '%s\n' "sources:" \
    "  prometheus: {url: \"$url\", selector: 'cluster=\"$name\"', timeout: 10s}" \
    "server: {listen: \"127.0.0.1:$port\"}" \
    "analysis: {cluster: \"$name\", interval: 2s}" >"$WORK_DIR/$name/dagadvisor.yaml"
  "$DAGADVISOR" serve --config "$WORK_DIR/$name/dagadvisor.yaml" >"$WORK_DIR/$name/daemon.log" 2>&1 &
  CHILDREN+=($!)
  DAEMON_TARGETS+="'127.0.0.1:$port', "
  [ "$url" = "$PROM_URL" ] && READY_URLS+=("http://127.0.0.1:$port/readyz")
  echo "$name: daemon :$port reading $url"
}

for entry in "${SCENARIOS[@]}"; do
  IFS=: read -r name speed _ <<<"$entry"
  dir="$WORK_DIR/$name"
  mkdir -p "$dir"
  if [ "$speed" = - ]; then
    start_daemon "$name" "http://127.0.0.1:$(free_port)"
    continue
  fi
  "$SIM" generate --scenario "$REPO/config/scenarios/$name.yaml" --out "$dir" --step 300 >/dev/null \
    || fail "$name: simulator generate failed"
  offset=$(window_offset "$dir/ground_truth.json")
  yq -y ".output.window_start = $offset" "$REPO/config/scenarios/$name.yaml" >"$dir/live.yaml"
  sim_port=$(free_port)
  "$SIM" serve --scenario "$dir/live.yaml" --listen "127.0.0.1:$sim_port" --speed "$speed" \
    >"$dir/sim.log" 2>&1 &
  CHILDREN+=($!)
  SIM_TARGETS+="      - {targets: ['127.0.0.1:$sim_port'], labels: {cluster: $name}}"$'\n'
  start_daemon "$name" "$PROM_URL"
  echo "$name: simulator :$sim_port from t=${offset}s at ${speed}x"
done

# The test-only rules: the same file with every `for:` at 10 s.
sed -E 's/^( +)for: .*/\1for: 10s/' "$REPO/alerts/dagadvisor.rules.yml" >"$WORK_DIR/rules.yml"
# The shipped route example, its webhooks pointed at a closed loopback port.
sed 's#http://alert-router.monitoring.svc:8080#http://127.0.0.1:9#' \
  "$REPO/config/alertmanager/alertmanager.yml" >"$WORK_DIR/alertmanager.yml"
cat >"$WORK_DIR/prometheus.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: [rules.yml]
alerting:
  alertmanagers:
    - static_configs: [{targets: ['127.0.0.1:$AM_PORT']}]
scrape_configs:
  - job_name: simulator
    honor_labels: true
    static_configs:
$SIM_TARGETS
  - job_name: dagadvisor
    static_configs:
      - targets: [${DAEMON_TARGETS%, }]
EOF
promtool check config "$WORK_DIR/prometheus.yml" >/dev/null || fail "generated prometheus.yml is invalid"

prometheus-alertmanager --config.file="$WORK_DIR/alertmanager.yml" --storage.path="$WORK_DIR/am" \
  --web.listen-address="127.0.0.1:$AM_PORT" --cluster.listen-address= --log.level=warn \
  >"$WORK_DIR/alertmanager.log" 2>&1 &
CHILDREN+=($!)
prometheus --config.file="$WORK_DIR/prometheus.yml" --storage.tsdb.path="$WORK_DIR/data" \
  --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$WORK_DIR/prometheus.log" 2>&1 &
PROM_PID=$!
wait_http_ok "$AM_URL/-/ready" 30 || { cat "$WORK_DIR/alertmanager.log" >&2; fail "Alertmanager not ready"; }
wait_http_ok "$PROM_URL/-/ready" 30 || { cat "$WORK_DIR/prometheus.log" >&2; fail "Prometheus not ready"; }
START=$(date +%s)
echo "ok: Prometheus :$PROM_PORT and Alertmanager :$AM_PORT ready after ${SECONDS} s"
# On a loaded machine the first analyses can take a while; the alert deadline starts after them.
for url in "${READY_URLS[@]}"; do
  wait_http_ok "$url" 90 || fail "daemon never ready: $url"
done
ALERTS_FROM=$(date +%s)
echo "ok: every daemon with a source has analysed, after ${SECONDS} s"

instant() {  # instant PROMQL → the JSON result vector
  curl -fsS --max-time 10 "$PROM_URL/api/v1/query" --data-urlencode "query=$1" | jq -c '.data.result'
}
over_test() {  # over_test PROMQL → every value since Prometheus started, as a panel would show
  curl -fsS --max-time 10 "$PROM_URL/api/v1/query_range" --data-urlencode "query=$1" \
    --data-urlencode "start=$START" --data-urlencode "end=$(date +%s)" --data-urlencode step=2 \
    | jq -c '[.data.result[].values[][1]]'
}
am_alerts() {  # the "alertname cluster" pairs Alertmanager holds (active ones)
  curl -fsS --max-time 5 "$AM_URL/api/v2/alerts?active=true" \
    | jq -r '.[] | "\(.labels.alertname) \(.labels.cluster // "-")"' | sort -u
}

# Every expected alert must reach Alertmanager (polled, bounded).
expected=()
for entry in "${SCENARIOS[@]}"; do
  IFS=: read -r name _ alerts _ <<<"$entry"
  [ "$alerts" = "-" ] && continue
  for a in ${alerts//,/ }; do expected+=("$a $name"); done
done
missing=("${expected[@]}")
while [ ${#missing[@]} -gt 0 ] && [ $(( $(date +%s) - ALERTS_FROM )) -lt $ALERT_DEADLINE_S ]; do
  held=$(am_alerts || true)
  still=()
  for e in "${missing[@]}"; do grep -qxF "$e" <<<"$held" || still+=("$e"); done
  missing=("${still[@]}")
  [ ${#missing[@]} -gt 0 ] && sleep 1
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Alertmanager holds:" >&2; am_alerts >&2 || true
  instant 'ALERTS' >&2
  for entry in "${SCENARIOS[@]}"; do tail -5 "$WORK_DIR/${entry%%:*}/daemon.log" >&2; done
  fail "alerts never reached Alertmanager: ${missing[*]}"
fi
echo "ok: in Alertmanager after $(( $(date +%s) - START )) s: ${expected[*]}"

# Nothing fired at any time of the test for a scenario beyond what it planted; healthy fired
# nothing at all.
firing=$(instant 'count by (alertname, cluster) (max_over_time(ALERTS{alertstate="firing"}[10m]))' \
  | jq -r '.[] | "\(.metric.alertname) \(.metric.cluster // "-")"' | sort -u)
echo "fired during the test:"; sed 's/^/  /' <<<"$firing"
for entry in "${SCENARIOS[@]}"; do
  IFS=: read -r name _ alerts allowed <<<"$entry"
  while read -r alert cluster; do
    [ "$cluster" = "$name" ] || continue
    [[ ",$alerts,$allowed," == *",$alert,"* ]] || fail "$name: unexpected alert $alert"
  done <<<"$firing"
done
if grep -q ' -$' <<<"$firing"; then fail "alerts without a cluster fire: $firing"; fi
grep -q ' healthy$' <<<"$(am_alerts)" && fail "healthy: Alertmanager holds an alert"
echo "ok: healthy fires none, and no scenario fires an alert it did not plant"

# The route example's inhibition: a source down suppresses the stale-analysis alert.
state=$(curl -fsS "$AM_URL/api/v2/alerts" | jq -r '.[] | select(.labels.alertname == "DagadvisorAnalysisStale"
  and .labels.cluster == "unreachable") | .status.state')
[ "$state" = suppressed ] || fail "DagadvisorAnalysisStale not inhibited by DagadvisorSourceDown (state: $state)"
echo "ok: Alertmanager inhibits DagadvisorAnalysisStale while DagadvisorSourceDown fires"

# Every panel's query returns finite data on the scenario built for it, at some time of the test
# (what a time-series panel shows; a daemon series may skip a cycle).
python3 "$HERE/panel_queries.py" "$REPO" "$HERE/panel_scenarios.json" >"$WORK_DIR/panels.tsv" \
  || fail "panel_scenarios.json does not cover every panel"
checked=0
empty=0
while IFS=$'\t' read -r scenario where expr; do
  values=$(over_test "$expr") || values='[]'
  if [ "$(jq '[.[] | select(. != "NaN" and . != "+Inf" and . != "-Inf")] | length' <<<"$values")" -gt 0 ]; then
    checked=$((checked + 1))
  else
    echo "FAIL: $where on $scenario: no finite data for: $expr" >&2
    empty=$((empty + 1))
  fi
done <"$WORK_DIR/panels.tsv"
[ "$empty" -eq 0 ] || fail "$empty panel queries returned no data"
echo "ok: $checked panel queries returned data on their scenarios"
echo "ok: all checks done after ${SECONDS} s"
