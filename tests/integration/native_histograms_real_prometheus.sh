#!/usr/bin/env bash
# Native histograms end to end: the simulator serves kube-scheduler's SLI histogram only as a
# native histogram (protobuf exposition, as a scheduler with native histograms would), a real
# Prometheus scrapes it with --enable-feature=native-histograms, and dagadvisor must read its
# quantiles through the native branch of its query. Promtool cannot backfill native histograms,
# hence a live scrape. Expected values: Prometheus' own histogram_quantile at the same instant,
# and, independently, the simulator's raw observations (within one native bucket).
# Usage: native_histograms_real_prometheus.sh DAGADVISOR DAGADVISOR_SIM SCENARIO
set -euo pipefail
BIN=$1 SIM=$2 SCENARIO=$3
# shellcheck source=prometheus_harness.sh
source "$(dirname "$0")/prometheus_harness.sh"
SIM_PID=""
trap 'if [ -n "$SIM_PID" ]; then kill "$SIM_PID" 2>/dev/null || true; wait "$SIM_PID" 2>/dev/null || true; fi; cleanup' EXIT

"$SIM" generate --scenario "$SCENARIO" --out "$WORK_DIR/truth" >/dev/null
SIM_PORT=$(free_port)
PORT=$(free_port)
PROM_URL="http://127.0.0.1:$PORT"
cat >"$WORK_DIR/prometheus.yml" <<YAML
global: {scrape_interval: 1s}
scrape_configs:
  - {job_name: sim, honor_labels: true, static_configs: [{targets: ['127.0.0.1:$SIM_PORT']}]}
  - job_name: sim-native
    honor_labels: true
    metrics_path: /metrics/native
    static_configs: [{targets: ['127.0.0.1:$SIM_PORT']}]
YAML
prometheus --config.file="$WORK_DIR/prometheus.yml" --storage.tsdb.path="$WORK_DIR/data" \
  --enable-feature=native-histograms --web.listen-address="127.0.0.1:$PORT" \
  --log.level=warn >"$WORK_DIR/prometheus.log" 2>&1 &
PROM_PID=$!
wait_http_ok "$PROM_URL/-/ready" 30 || { cat "$WORK_DIR/prometheus.log" >&2; fail "Prometheus not ready"; }

# Prometheus already scrapes every second when the simulator starts, so rate() misses at most
# the first second of simulated time; at 240× the whole scenario (2 h) is served in 30 s, and
# the histograms then stay put.
"$SIM" serve --scenario "$SCENARIO" --listen "127.0.0.1:$SIM_PORT" --speed 240 \
  --histograms native >"$WORK_DIR/sim.log" 2>&1 &
SIM_PID=$!
wait_http_ok "http://127.0.0.1:$SIM_PORT/metrics" 30 || { cat "$WORK_DIR/sim.log" >&2; fail "simulator not serving"; }
curl -fsS "http://127.0.0.1:$SIM_PORT/metrics" | grep -q '^scheduler_pod_scheduling_sli_duration_seconds_bucket' &&
  fail "the text exposition still carries the classic SLI histogram"

promql() {  # promql QUERY TIME → the first sample's value, or nothing
  curl -fsS "$PROM_URL/api/v1/query" --data-urlencode "query=$1" --data-urlencode "time=$2" |
    jq -r '.data.result[0].value[1] // empty'
}
RATE='rate(scheduler_pod_scheduling_sli_duration_seconds[5m])'
sleep 33
AT=$(( $(date +%s) - 1 ))
[ -n "$(promql "histogram_count(sum($RATE))" "$AT")" ] || fail "Prometheus holds no native SLI histogram"
[ -z "$(promql 'count(scheduler_pod_scheduling_sli_duration_seconds_bucket)' "$AT")" ] ||
  fail "classic SLI buckets present: the test would not exercise the native branch"

"$BIN" analyze --prometheus "$PROM_URL" --at "$AT" -o json >"$WORK_DIR/report.json" 2>"$WORK_DIR/analyze.log" ||
  { cat "$WORK_DIR/analyze.log" >&2; fail "analyze failed"; }
latency() { jq -r ".scheduling.latency[0].$1 // empty" "$WORK_DIR/report.json"; }
[ "$(jq -r .scheduling.latency_metric "$WORK_DIR/report.json")" = scheduler_pod_scheduling_sli_duration_seconds ] ||
  fail "latency metric: $(jq -c .scheduling "$WORK_DIR/report.json")"

close() {  # close NAME GOT WANT RELATIVE_TOLERANCE
  awk -v g="$2" -v w="$3" -v t="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= t * w) }' ||
    fail "$1: dagadvisor $2, expected $3 (±$(awk -v t="$4" 'BEGIN{print t * 100}') %)"
  echo "ok: $1 = $2 (expected $3)"
}
for q in 50 95 99; do
  want=$(promql "histogram_quantile(0.$q, sum($RATE))" "$AT")
  close "p$q against Prometheus' own histogram_quantile" "$(latency "p${q}_seconds")" "$want" 1e-9
done
close "pods per second against histogram_count" "$(latency pods_per_second)" \
  "$(promql "histogram_count(sum($RATE))" "$AT")" 1e-9
# Independently, the simulator's raw observations over its whole window: Prometheus
# interpolates inside the schema-3 bucket (2^(1/8), 9 % wide) holding the true quantile, so the
# answer is in that bucket, or the next one since rate() cannot see the first second's pods.
bucket() { awk -v v="$1" 'BEGIN { x = log(v) / log(2) * 8; i = int(x); if (i < x) i++; print i }'; }
got=$(latency p95_seconds)
want=$(jq -r .scheduling_latency.window.p95 "$WORK_DIR/truth/ground_truth.json")
off=$(( $(bucket "$got") - $(bucket "$want") ))
[ "${off#-}" -le 1 ] || fail "p95 $got is $off native buckets away from the raw p95 $want"
echo "ok: p95 $got is in native bucket $(bucket "$got"), the raw p95 $want in $(bucket "$want")"
echo "PASS: native histograms read through a real Prometheus"
