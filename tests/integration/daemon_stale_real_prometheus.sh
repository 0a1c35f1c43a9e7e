#!/usr/bin/env bash
# A broken Prometheus never takes the daemon down: it keeps serving the last good analysis,
# marked stale, says why on /readyz and /metrics, and recovers when Prometheus comes back.
# Args: DAGADVISOR_BINARY FIXTURE_OM
DAGADVISOR=$1
FIXTURE=$2
source "$(dirname "$0")/prometheus_harness.sh"

start_prometheus_with_openmetrics "$FIXTURE"
PROM_PORT=${PROM_URL##*:}
PORT=$(free_port)
BASE="http://127.0.0.1:$PORT"
"$DAGADVISOR" serve --prometheus "$PROM_URL" --at 2026-11-29T00:15:00Z \
  --listen "127.0.0.1:$PORT" --interval 1s >"$WORK_DIR/daemon.log" 2>&1 &
DAEMON=$!
trap 'kill $DAEMON 2>/dev/null || true; cleanup' EXIT

wait_http_ok "$BASE/readyz" 30 || { cat "$WORK_DIR/daemon.log" >&2; fail "never ready"; }
echo "ok: ready on a good Prometheus"

# Prometheus goes away.
kill "$PROM_PID"; wait "$PROM_PID" 2>/dev/null || true; PROM_PID=""

# Within a few cycles /readyz turns 503 and names the failure (polled, bounded).
for _ in $(seq 1 100); do
  code=$(curl -s -o "$WORK_DIR/ready.txt" -w '%{http_code}' "$BASE/readyz")
  [ "$code" = 503 ] && break
  sleep 0.1
done
[ "$code" = 503 ] || fail "/readyz stayed $code with Prometheus down"
grep -q "127.0.0.1:$PROM_PORT" "$WORK_DIR/ready.txt" || fail "/readyz does not say why: $(cat "$WORK_DIR/ready.txt")"
echo "ok: /readyz 503: $(head -c 200 "$WORK_DIR/ready.txt")"

curl -fsS "$BASE/api/v1/recommendations" >"$WORK_DIR/recs.json" || fail "API down with Prometheus down"
[ "$(jq -r '.stale == true and any(.recommendations[]; .kind == "gpu-node-hoarding")' "$WORK_DIR/recs.json")" = true ] \
  || { cat "$WORK_DIR/recs.json" >&2; fail "last good analysis not served as stale"; }
echo "ok: last good analysis still served, stale=true"

curl -fsS "$BASE/metrics" >"$WORK_DIR/metrics.txt" || fail "/metrics down"
grep -q '^dagadvisor_analysis_stale{.*} 1' "$WORK_DIR/metrics.txt" || fail "dagadvisor_analysis_stale is not 1"
grep -q '^dagadvisor_source_up{.*} 0' "$WORK_DIR/metrics.txt" || fail "dagadvisor_source_up is not 0"
grep -q '^dagadvisor_cycles_total{.*result="failure".*} [1-9]' "$WORK_DIR/metrics.txt" || fail "failures not counted"
echo "ok: /metrics says stale, source down, failures counted"

# Prometheus returns on the same port; the next good cycle makes it ready again.
prometheus --config.file="$WORK_DIR/prometheus.yml" --storage.tsdb.path="$WORK_DIR/data" \
  --storage.tsdb.retention.time=100y --web.listen-address="127.0.0.1:$PROM_PORT" \
  --log.level=warn >>"$WORK_DIR/prometheus.log" 2>&1 &
PROM_PID=$!
wait_http_ok "$BASE/readyz" 30 || fail "did not recover after Prometheus came back"
echo "ok: recovered"
kill -0 "$DAEMON" || fail "daemon died"
