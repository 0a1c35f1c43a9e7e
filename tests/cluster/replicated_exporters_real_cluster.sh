#!/usr/bin/env bash
# Replicated exporters are merged, never double-counted (README): two kube-state-metrics replicas
# scraped as one job, as a Deployment's two endpoints are, give the analysis that one gives. A
# second Prometheus beside the cluster's scrapes the same targets but one replica; `dagadvisor
# analyze` at the same moment on each, once the cluster is still, must say the same.
# Args: DAGADVISOR DAGADVISOR_SIM TESTBED_BIN
DAGADVISOR=$1
DAGADVISOR_SIM=$2
TESTBED_BIN=$3
source "$(dirname "$0")/cluster_harness.sh"

TESTBED_KSM_REPLICAS=2 start_cluster
ONE_REPLICA_PORT=$(free_port)
python3 - "$TESTBED_DIR/prometheus.yml" "$WORK_DIR/one-replica.yml" <<'PY'
import sys, yaml
config = yaml.safe_load(open(sys.argv[1]))
for job in config["scrape_configs"]:
    if job["job_name"] == "kube-state-metrics":
        targets = job["static_configs"][0]["targets"]
        assert len(targets) == 2, targets
        job["static_configs"][0]["targets"] = targets[:1]
yaml.safe_dump(config, open(sys.argv[2], "w"))
PY
prometheus --config.file "$WORK_DIR/one-replica.yml" --storage.tsdb.path "$WORK_DIR/one-replica" \
  --web.listen-address "127.0.0.1:$ONE_REPLICA_PORT" --log.level warn \
  >"$WORK_DIR/one-replica.log" 2>&1 &
PIDS+=($!)
ONE_REPLICA_URL="http://127.0.0.1:$ONE_REPLICA_PORT"

scraped_replicas() {  # scraped_replicas URL COUNT
  curl -fsS "$1/api/v1/query" --data-urlencode 'query=sum(up{job="kube-state-metrics"})' |
    jq -e --arg count "$2" '.data.result[0].value[1] == $count'
}
wait_until 60 "the cluster's Prometheus scrapes both replicas" scraped_replicas "$PROM_URL" 2
wait_until 60 "the other Prometheus scrapes one" scraped_replicas "$ONE_REPLICA_URL" 1
scrapes_scheduler() {  # scrapes_scheduler URL
  curl -fsS "$1/api/v1/query" --data-urlencode 'query=up{job="kube-scheduler"}' |
    jq -e '.data.result[0].value[1] == "1"'
}
both_scrape_scheduler() { scrapes_scheduler "$PROM_URL" && scrapes_scheduler "$ONE_REPLICA_URL"; }
wait_until 60 "both scrape the scheduler" both_scrape_scheduler
# The workloads come after both servers scrape: each must see the scheduler place them (its
# histograms' increase), or the two analyses differ by what one server saw before it started.
# gpu-hoarding's nodes, log collectors and online services (no runs: a still cluster).
play_scenario "$ROOT/config/scenarios/gpu-hoarding.yaml" 0.05 '.runs = []'
PLAYER=${PIDS[-1]}
wait "$PLAYER" || fail "the player failed: $(tail -5 "$WORK_DIR/play.log")"
ok "the workloads are placed"

# Still for several scrapes of both, then read at one moment.
sleep 20
AT=$(date +%s)
sleep 6
analyze() {  # analyze URL OUT
  "$DAGADVISOR" analyze --prometheus "$1" --at "$AT" -o json >"$2" 2>"$2.log" ||
    fail "analyze on $1: $(tail -3 "$2.log")"
}
analyze "$PROM_URL" "$WORK_DIR/two.json"
analyze "$ONE_REPLICA_URL" "$WORK_DIR/one.json"

# The cluster's Prometheus does hold every kube-state-metrics series twice.
series() {  # series URL
  curl -fsS "$1/api/v1/query" --data-urlencode "query=count(kube_node_status_allocatable)" \
    --data-urlencode "time=$AT" | jq -r '.data.result[0].value[1]'
}
TWICE=$(series "$PROM_URL")
ONCE=$(series "$ONE_REPLICA_URL")
[ "$TWICE" -eq $((2 * ONCE)) ] && [ "$ONCE" -gt 0 ] ||
  fail "kube_node_status_allocatable: $TWICE series with two replicas, $ONCE with one"
ok "two replicas export every series twice ($TWICE series of allocatable, $ONCE from one)"

# The same analysis, the timings and the read's own figures aside, and the scheduler's histograms:
# those are rates over the rate window, and each server scrapes the scheduler at its own moments.
NORMALISE='del(.analysis_seconds, .bytes_received, .data_age_seconds, .generated_at, .source,
  .queries, .scheduling) | walk(if type == "object" then del(.seconds) else . end)'
jq -S "$NORMALISE" "$WORK_DIR/two.json" >"$WORK_DIR/two.normal.json"
jq -S "$NORMALISE" "$WORK_DIR/one.json" >"$WORK_DIR/one.normal.json"
diff "$WORK_DIR/one.normal.json" "$WORK_DIR/two.normal.json" >&2 ||
  fail "two replicas give another analysis than one"
PLANNED=$(jq -c '[.objects[] | select(.kind == "Node")]
  | {nodes: length, gpus: (map(.status.allocatable["nvidia.com/gpu"] // "0" | tonumber) | add)}' \
  "$WORK_DIR/plan.json")
jq -e --argjson planned "$PLANNED" \
  '.summary.nodes == $planned.nodes and .summary.gpus_allocatable == $planned.gpus' \
  "$WORK_DIR/two.json" >/dev/null ||
  fail "the analysis counts $(jq -c .summary "$WORK_DIR/two.json"), the plan $PLANNED"
ok "two replicas give the analysis one gives: $(jq -c .summary "$WORK_DIR/two.json")"
