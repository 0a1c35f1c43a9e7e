#!/usr/bin/env bash
# Duplicate label sets are never summed (issue 55): a proxy in front of a real Prometheus
# (bad_backend.py duplicate-series) sends every series twice with the same label set, with the
# same or a conflicting value. analyze must fail (exit 1) naming the query and the series, where
# it used to report the summed cluster (4 GPUs read as 8, or 33 with conflicting values).
# Args: DAGADVISOR_BINARY BAD_BACKEND_PY FIXTURE_OM
DAGADVISOR=$1
BACKEND=$2
FIXTURE=$3
source "$(dirname "$0")/../integration/prometheus_harness.sh"
source "$(dirname "$0")/bad_backend.sh"
trap stop_all EXIT

AT=$UPSTREAM_AT
start_upstream "$FIXTURE"
"$DAGADVISOR" analyze --prometheus "$PROM_URL" --at "$AT" --output json >"$WORK_DIR/direct.json" \
  || fail "analyze on the real Prometheus exited $?"
[ "$(jq '.summary.gpus_allocatable' "$WORK_DIR/direct.json")" = 4 ] \
  || fail "the fixture's cluster has 4 GPUs, analyze says $(jq -c .summary "$WORK_DIR/direct.json")"

for conflict in 0 1; do
  export BAD_BACKEND_CONFLICT=$conflict
  start_backend duplicate-series
  set +e
  "$DAGADVISOR" analyze --prometheus "$BACKEND_URL" --at "$AT" --output json >"$WORK_DIR/dup.json" \
    2>"$WORK_DIR/dup.err"
  rc=$?
  set -e
  [ "$rc" -eq 1 ] || fail "conflict=$conflict: analyze exited $rc on repeated series, GPUs $(jq -c .summary.gpus_allocatable "$WORK_DIR/dup.json" 2>/dev/null)"
  grep -qE 'query [a-z_]+: the answer repeats the series \{[^}]+\}' "$WORK_DIR/dup.err" \
    || fail "conflict=$conflict: the error names no query and series: $(cat "$WORK_DIR/dup.err")"
  echo "ok: conflict=$conflict: analyze fails: $(head -c 220 "$WORK_DIR/dup.err")"
done
