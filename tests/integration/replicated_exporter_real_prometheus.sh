#!/usr/bin/env bash
# Replicated exporters are merged, never double-counted (README; issue 55): a real Prometheus
# (Debian's) scrapes one kube-state-metrics endpoint (the real scrape of a Kubernetes 1.35
# cluster, tests/fixtures/exposition/, served on loopback) under two jobs, as two replicas or a
# duplicated scrape config would: every series is stored twice, told apart only by `job`. The
# analysis of both jobs at one instant must equal that of one job alone (the same Prometheus
# with sources.prometheus.selector job="ksm-a"): the summary, the findings, the recommendations
# and the runs.
# Args: DAGADVISOR_BINARY KSM_SCRAPE
DAGADVISOR=$1
KSM=$2
source "$(dirname "$0")/prometheus_harness.sh"

EXPORTER_PID=""
trap '[ -z "$EXPORTER_PID" ] || kill "$EXPORTER_PID" 2>/dev/null || true; cleanup' EXIT

# The scrape as a live /metrics endpoint, typed as the text format Prometheus expects.
EXPORTER_PORT=$(free_port)
python3 - "$KSM" "$EXPORTER_PORT" <<'PY' &
import http.server, sys
body = open(sys.argv[1], "rb").read()
class Metrics(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Metrics).serve_forever()
PY
EXPORTER_PID=$!
wait_http_ok "http://127.0.0.1:$EXPORTER_PORT/metrics" 30 || fail "the exporter did not start"

PROM_PORT=$(free_port)
PROM_URL="http://127.0.0.1:$PROM_PORT"
cat >"$WORK_DIR/prometheus.yml" <<YAML
global: {scrape_interval: 1s, scrape_timeout: 1s}
scrape_configs:
  - job_name: ksm-a
    static_configs: [{targets: ["127.0.0.1:$EXPORTER_PORT"]}]
  - job_name: ksm-b
    static_configs: [{targets: ["127.0.0.1:$EXPORTER_PORT"]}]
YAML
prometheus --config.file="$WORK_DIR/prometheus.yml" --storage.tsdb.path="$WORK_DIR/data" \
  --web.listen-address="127.0.0.1:$PROM_PORT" --log.level=warn >"$WORK_DIR/prometheus.log" 2>&1 &
PROM_PID=$!
wait_http_ok "$PROM_URL/-/ready" 30 || { cat "$WORK_DIR/prometheus.log" >&2; fail "Prometheus not ready"; }

# Both jobs have stored the scrape: each holds every kube_pod_info series of the fixture.
pods=$(grep -c '^kube_pod_info{' "$KSM")
stored() {  # stored JOB: kube_pod_info series of JOB now
  curl -s "$PROM_URL/api/v1/query" --data-urlencode "query=count(kube_pod_info{job=\"$1\"})" |
    jq -r '.data.result[0].value[1] // 0'
}
for _ in $(seq 300); do
  [ "$(stored ksm-a)" = "$pods" ] && [ "$(stored ksm-b)" = "$pods" ] && break
  sleep 0.1
done
[ "$(stored ksm-a)" = "$pods" ] && [ "$(stored ksm-b)" = "$pods" ] \
  || fail "the two jobs never both stored the scrape's $pods pods: $(stored ksm-a), $(stored ksm-b)"
# The instant Prometheus evaluated that at (rounded up), not the local clock: `date` may read a
# second before the samples the query saw.
AT=$(curl -s "$PROM_URL/api/v1/query" --data-urlencode 'query=count(kube_pod_info{job="ksm-b"})' |
  jq -r '.data.result[0].value[0] | ceil')
echo "ok: both jobs store the scrape's $pods pods; analysing at $AT"

printf 'sources:\n  prometheus:\n    selector: job="ksm-a"\n' >"$WORK_DIR/one-job.yaml"
"$DAGADVISOR" analyze --prometheus "$PROM_URL" --at "$AT" --output json >"$WORK_DIR/both.json" \
  || fail "analyze over both jobs exited $?"
"$DAGADVISOR" analyze --config "$WORK_DIR/one-job.yaml" --prometheus "$PROM_URL" --at "$AT" \
  --output json >"$WORK_DIR/one.json" || fail "analyze over one job exited $?"

# What the analysis says, without what differs between two runs anyway (timings, bytes).
essence() {
  jq -S '{summary, warnings,
          findings: [.findings[] | {kind, target, severity, evidence}],
          recommendations: [.recommendations[] | {id, kind, target, severity}],
          dags: [.dags[] | {id, makespan_seconds, critical_path}],
          nodes}' "$1"
}
essence "$WORK_DIR/one.json" >"$WORK_DIR/one.essence"
essence "$WORK_DIR/both.json" >"$WORK_DIR/both.essence"
[ "$(jq '.summary.pods' "$WORK_DIR/one.essence")" -gt 0 ] || fail "the one-job analysis saw no pods"
diff -u "$WORK_DIR/one.essence" "$WORK_DIR/both.essence" >&2 \
  || fail "two scrapes of one exporter give another analysis than one scrape"
echo "ok: two jobs scraping one exporter give the one-scrape analysis: $(jq -c .summary "$WORK_DIR/both.essence")"
