#!/usr/bin/env bash
# The Alertmanager route example is valid (amtool check-config) and routes dagadvisor's alerts
# where its comments say (amtool config routes test).
# Args: ALERTMANAGER_YML
set -euo pipefail
CONFIG=$1
amtool check-config "$CONFIG"
route() {  # route EXPECTED_RECEIVER LABEL=VALUE...
  local want=$1
  shift
  amtool config routes test --config.file="$CONFIG" --verify.receivers="$want" "$@" >/dev/null 2>&1 \
    || { echo "FAIL: $* goes to $(amtool config routes test --config.file="$CONFIG" "$@" 2>/dev/null), not $want" >&2; exit 1; }
  echo "ok: $* -> $want"
}
route monitoring-oncall alertname=DagadvisorAbsent severity=critical
route monitoring-oncall alertname=DagadvisorSourceDown severity=warning cluster=prod
route platform-pager alertname=DagadvisorSchedulingLatencySLOBurn severity=critical cluster=prod
route platform-team alertname=DagadvisorGpuNodeHoarding severity=warning cluster=prod node=gpu-1
route platform-team alertname=SomethingElse
