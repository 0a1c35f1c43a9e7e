#!/usr/bin/env bash
# The daemon against the oracle: the simulator plants problems and writes what it planted;
# its metrics go through promtool into a real Prometheus; `dagadvisor analyze` must find
# exactly the planted hoarded GPU nodes (none on `healthy`). Two independent answers compared.
# Args: DAGADVISOR_BINARY SIMULATOR_BINARY SCENARIO_YAML...
DAGADVISOR=$1
SIM=$2
shift 2
source "$(dirname "$0")/prometheus_harness.sh"

for scenario in "$@"; do
  name=$(basename "$scenario" .yaml)
  out="$WORK_DIR/$name"
  "$SIM" generate --scenario "$scenario" --out "$out" >/dev/null || fail "$name: simulator failed"
  start_prometheus_with_openmetrics "$out/metrics.om"
  at=$(jq -r .suggested_analysis_time "$out/ground_truth.json")
  "$DAGADVISOR" analyze --prometheus "$PROM_URL" --at "$at" --output json >"$out/report.json" \
    || fail "$name: analyze exited $?"
  planted=$(jq -c '[.hoarded_gpu_nodes[].node] | sort' "$out/ground_truth.json")
  found=$(jq -c '[.findings[] | select(.kind == "gpu-node-hoarding") | .target | ltrimstr("node/")] | sort' "$out/report.json")
  [ "$planted" = "$found" ] || fail "$name: planted hoarded nodes $planted, found $found"
  echo "ok: $name: hoarded GPU nodes $found"
  if [ "$name" = healthy ]; then
    n=$(jq '.recommendations | length' "$out/report.json")
    [ "$n" -eq 0 ] || { jq '.recommendations[].title' "$out/report.json" >&2; fail "healthy: $n recommendation(s)"; }
    echo "ok: healthy: no recommendation"
  fi
  kill "$PROM_PID"; wait "$PROM_PID" 2>/dev/null || true; PROM_PID=""
  rm -rf "$WORK_DIR/data"
done
