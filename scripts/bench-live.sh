#!/usr/bin/env bash
# What the daemon's cycles cost a live Prometheus (issue #50, item 5): the backfilled benchmarks
# (bench-incremental.sh) read one compacted block without a head; this one reads a TSDB that a
# real Prometheus wrote by scraping the real kube-state-metrics every 30 s, head block and WAL
# included. It starts the test bed's control plane (testbed/cluster.sh), plays the `scale` mix cut
# to SIZE of the reference cluster on it for DURATION, then, with the runs still arriving, runs
# the daemon's cycle (`incremental_equals_full --analyze`, the daemon's reader and cycle with the
# kustomize base's settings: staleness markers, no gzip, 6 h lookback) once as a full read and
# then WINDOWS times as window reads 60 s apart in real time, and prints per cycle Prometheus'
# CPU seconds and RSS growth (from /proc), the bytes and series received, and the daemon's CPU
# and RSS; then the TSDB's head series and Prometheus' RSS after the hour. Stops everything.
#
# Usage: [SIZE=0.25] [DURATION=3600] [TIME_SCALE=0.2] [WINDOWS=5] [PLAY_QPS=200]
#          scripts/bench-live.sh [WORK_DIR] [BUILD_DIR]
# SIZE: the fraction of the reference cluster (5,000 nodes): 0.25 is the quarter, 1,250 nodes,
#   ~37,500 pods (2,500 DaemonSet pods, 20,000 service replicas, 750 runs of 20 tasks). Arrivals
#   are as dense per node as the reference's, so a smaller SIZE is the same load on fewer nodes.
# DURATION: seconds of play, counted once the DaemonSets and Deployments have settled.
# TIME_SCALE: multiplies the scenario's times; 0.2 plays its ~5 h of arrivals in an hour, tasks
#   then running 6 s to 6 min.
# Needs the test bed's binaries (testbed/build.sh; TESTBED_BIN, default build/testbed/bin) and,
# at the full size, ~80 minutes and ~16 GB of memory (Prometheus alone reaches 10 GB); a trial,
# SIZE=0.025 DURATION=600, takes ~17 min (docs/performance.md, "A live TSDB").
set -euo pipefail
WORK=${1:-/tmp/dagadvisor-bench-live}
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD=${2:-build}
SIZE=${SIZE:-0.25}
DURATION=${DURATION:-3600}
TIME_SCALE=${TIME_SCALE:-0.2}
WINDOWS=${WINDOWS:-5}
PLAY_QPS=${PLAY_QPS:-200}
export TESTBED_BIN=${TESTBED_BIN:-$ROOT/build/testbed/bin}
export PATH="$TESTBED_BIN:$PATH"  # the kubectl of the cluster's own release
CLUSTER=$WORK/cluster
die() { echo "bench-live: $*" >&2; exit 1; }

[ -x "$TESTBED_BIN/play" ] || die "no test bed in $TESTBED_BIN: run testbed/build.sh first"
# A run killed hard leaves its parts running and their pids listed: stopping them is the
# user's call (testbed/cluster.sh stop DIR), since those pids may have been reused since.
[ ! -f "$CLUSTER/pids" ] || die "$CLUSTER/pids exists: a previous run's cluster may still run" \
  "(testbed/cluster.sh stop $CLUSTER)"
cmake --build "$BUILD" --target incremental_equals_full dagadvisor-sim >/dev/null
CHECK=$ROOT/$BUILD/tests/integration/incremental_equals_full
SIM=$ROOT/$BUILD/tools/simulator/dagadvisor-sim

# The `scale` scenario at SIZE: every count times SIZE and arrivals SIZE times as dense, so the
# load per node is the reference's. The output window starts at 0 because the plan plays each
# run (arrival - window_start) x TIME_SCALE after the start: scale.yaml's window in the middle of
# the day would start every earlier run at once.
read -r C6I R6I P4D REPLICAS RUNS EVERY < <(awk -v f="$SIZE" 'BEGIN {
  printf "%d %d %d %d %d %d\n", 3000*f+0.5, 1200*f+0.5, 800*f+0.5, 2000*f+0.5, 750*f+0.5, 24/f+0.5 }')
sed -e 's/^name: scale$/name: scale-live/' -e "s/count: 3000,/count: $C6I,/" \
    -e "s/count: 1200,/count: $R6I,/" -e "s/count: 800,/count: $P4D,/" \
    -e "s/replicas: 2000/replicas: $REPLICAS/" -e "s/every: 24, count: 750/every: $EVERY, count: $RUNS/" \
    -e 's/window_start: 10800/window_start: 0/' -e 's/window_end: 10920/window_end: 18000/' \
    config/scenarios/scale.yaml >"$WORK/scale-live.yaml"
"$SIM" plan --scenario "$WORK/scale-live.yaml" --time-scale "$TIME_SCALE" --out "$WORK/plan.json"
echo "== $((C6I + R6I + P4D)) nodes, $((40 * REPLICAS)) service replicas, $((4 * RUNS)) runs" \
  "of 20 tasks (each engine's every $EVERY s of the scenario), time scale $TIME_SCALE"

PLAYER=
stop_all() {
  if [ -n "$PLAYER" ]; then
    kill "$PLAYER" 2>/dev/null || true  # SIGTERM: it writes what happened so far
    wait "$PLAYER" 2>/dev/null || true
  fi
  "$ROOT/testbed/cluster.sh" stop "$CLUSTER" || true
}
trap stop_all EXIT
rm -rf "$CLUSTER"
SECONDS=0
TESTBED_SCRAPE_INTERVAL=30s "$ROOT/testbed/cluster.sh" start "$CLUSTER" >"$WORK/cluster.log" 2>&1 ||
  { tail -n 30 "$WORK/cluster.log" >&2; die "the cluster did not start"; }
# shellcheck disable=SC1091
source "$CLUSTER/env"
PROM_PID=$(awk '$2 == "prometheus" { print $1 }' "$CLUSTER/pids")
echo "== control plane up in ${SECONDS} s; Prometheus pid $PROM_PID at $PROM_URL"

# The workloads settle before the first run is played; how long that takes at the reference's
# density is one of the things this measures, so it has its own bound.
SETTLE=$((600 + 100 * (C6I + R6I + P4D) / 125))
SECONDS=0
"$TESTBED_BIN/play" --plan "$WORK/plan.json" --qps "$PLAY_QPS" --settle-timeout "${SETTLE}s" \
  --summary "$WORK/summary.json" >"$WORK/play.log" 2>&1 &
PLAYER=$!
until grep -q "workloads settled" "$WORK/play.log"; do
  kill -0 "$PLAYER" 2>/dev/null || { tail -n 20 "$WORK/play.log" >&2; die "the player stopped"; }
  [ "$SECONDS" -lt $((SETTLE + 120)) ] || die "the workloads did not settle in ${SETTLE}s"
  sleep 2
done
echo "== objects created and workloads settled in ${SECONDS} s; playing for ${DURATION} s"

# Prometheus' CPU seconds and RSS (kB) so far, from /proc.
CLK_TCK=$(getconf CLK_TCK)
prometheus_cost() {
  local cpu rss
  cpu=$(awk -v hz="$CLK_TCK" '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' \
    "/proc/$PROM_PID/stat")
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$PROM_PID/status")
  echo "$cpu $rss"
}
head_series() { curl -fsS "$PROM_URL/api/v1/status/tsdb" | jq -r .data.headStats.numSeries; }
prom_query() {  # prom_query PROMQL: the first sample's value, or 0
  curl -fsS "$PROM_URL/api/v1/query" --data-urlencode "query=$1" |
    jq -r '.data.result[0].value[1] // "0"'
}

# One line a minute through the play (Prometheus' growth over the hour), kept in samples.tsv.
echo -e "elapsed_s\tprometheus_cpu_s\tprometheus_rss_kb\thead_series" >"$WORK/samples.tsv"
SECONDS=0
while :; do
  read -r cpu rss < <(prometheus_cost)
  series=$(head_series)
  echo -e "$SECONDS\t$cpu\t$rss\t$series" >>"$WORK/samples.tsv"
  echo "  t+${SECONDS} s: Prometheus ${cpu} s CPU, $((rss / 1024)) MB, $series head series"
  [ "$SECONDS" -lt "$DURATION" ] || break
  kill -0 "$PLAYER" 2>/dev/null || { tail -n 20 "$WORK/play.log" >&2; die "the player stopped"; }
  sleep $((DURATION - SECONDS < 60 ? DURATION - SECONDS : 60))
done
# Prometheus' own rate without reads (scrapes, head, compactions): in a cycle's Prometheus CPU
# this much a second of the cycle's wall is not the cycle's.
IDLE_RATE=$(tail -n 2 "$WORK/samples.tsv" |
  awk 'NR == 1 { t = $1; c = $2 } NR == 2 { printf "%.3f", ($2 - c) / ($1 - t) }')
API_PODS=$(kubectl get pods -A -o name | wc -l)
KSM_PODS=$(prom_query 'count(kube_pod_info)')
PENDING=$(prom_query 'sum(kube_pod_status_phase{phase="Pending"})')
echo "== after ${DURATION} s: $API_PODS pods in the API server, $KSM_PODS in kube-state-metrics'" \
  "last scrape ($PENDING Pending); the cycles, runs still arriving:"

times=()
now=$(date +%s)
for k in $(seq 0 "$WINDOWS"); do times+=($((now + 60 * k))); done
"$CHECK" --analyze --staleness-markers --no-gzip --prometheus-pid "$PROM_PID" "$PROM_URL" \
  21600 360 900 "${times[@]}" >"$WORK/cycles.txt" 2>"$WORK/analyze.log" ||
  { cat "$WORK/cycles.txt" >&2; die "a cycle failed (log: $WORK/analyze.log)"; }
read -r _ PROM_RSS < <(prometheus_cost)
SERIES=$(head_series)
# Whether the hour's data is whole: a kube-state-metrics scrape that outgrows Prometheus' 10 s
# timeout at this size leaves a gap that every read after it inherits.
KSM='{job="kube-state-metrics"}['$((DURATION + 60 * WINDOWS + 120))'s]'
KSM_SCRAPES=$(prom_query "sum(count_over_time(up$KSM))")
KSM_FAILED=$(prom_query "sum(count_over_time(up$KSM)) - sum(sum_over_time(up$KSM))")
KSM_LONGEST=$(prom_query "max(max_over_time(scrape_duration_seconds$KSM))")

kill "$PLAYER"
wait "$PLAYER" || true
PLAYER=
RUNS_STARTED=$(jq '[.runs[] | select(any(.tasks[]; .pod))] | length' "$WORK/summary.json")
RUNS_ENDED=$(jq '[.runs[] | select(.outcome != "")] | length' "$WORK/summary.json")
TASK_PODS=$(jq '[.runs[].tasks[] | select(.pod)] | length' "$WORK/summary.json")

echo
echo "| cycle | pods read | Prometheus CPU s | Prometheus RSS growth MB | received MB | series |" \
  "daemon CPU s | daemon RSS (peak) MB | wall s |"
echo "|---|---|---|---|---|---|---|---|---|"
sed -n 's/^cycle //p' "$WORK/cycles.txt" | tr ' ' '\n' | awk -F= '
  NF == 2 { v[$1] = $2 }
  $1 == "prometheus_rss_kb" {
    printf "| %s | %d | %.2f | %+.1f | %.1f | %d | %.2f | %.0f (%.0f) | %.2f |\n", v["read"],
      v["pods"], v["prometheus_cpu_s"], v["prometheus_rss_growth_kb"] / 1024, v["bytes"] / 1e6,
      v["series"], v["cpu_s"], v["rss_kb"] / 1024, v["peak_rss_kb"] / 1024, v["wall_s"] }'
echo
echo "SIZE $SIZE, DURATION $DURATION s, time scale $TIME_SCALE, scrapes every 30 s;" \
  "$RUNS_STARTED runs started, $RUNS_ENDED ended, $TASK_PODS task pods created"
read -r _ PLAYED_CPU PLAYED_RSS PLAYED_SERIES < <(tail -n 1 "$WORK/samples.tsv")
echo "Prometheus at the end of the play: $PLAYED_SERIES head series, RSS $((PLAYED_RSS / 1024)) MB," \
  "$PLAYED_CPU CPU s since it started, $IDLE_RATE CPU s a second without reads;" \
  "after the cycles: $SERIES head series, RSS $((PROM_RSS / 1024)) MB"
printf "kube-state-metrics: %d scrapes, %d failed, the longest %.2f s\n" "$KSM_SCRAPES" "$KSM_FAILED" \
  "$KSM_LONGEST"
echo "(everything in $WORK: samples.tsv, cycles.txt, analyze.log with the cycles' stage times)"
