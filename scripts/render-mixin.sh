#!/usr/bin/env bash
# Renders the monitoring mixin (mixin/) into the files the repository ships:
#   alerts/dagadvisor.rules.yml            recording rules + alerts (Prometheus rule_files)
#   config/kubernetes/base/prometheusrule.yaml  the same groups as a Prometheus Operator PrometheusRule
#   dashboards/*.json                      the Grafana dashboards
# Usage: scripts/render-mixin.sh           rewrite the files
#        scripts/render-mixin.sh --check   exit 1 if a committed file differs from the mixin (CI)
# Needs Debian's `jsonnet` (scripts/setup.sh).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
command -v jsonnet >/dev/null || { echo "FAIL: jsonnet is not installed (scripts/setup.sh)" >&2; exit 1; }
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
mkdir -p "$OUT/alerts" "$OUT/dashboards" "$OUT/config/kubernetes/base"
cd "$REPO/mixin"
jsonnet -S rules.jsonnet >"$OUT/alerts/dagadvisor.rules.yml"
jsonnet -S prometheusrule.jsonnet >"$OUT/config/kubernetes/base/prometheusrule.yaml"
jsonnet -S -m "$OUT/dashboards" dashboards.jsonnet >/dev/null
cd "$OUT"
rendered=(alerts/dagadvisor.rules.yml config/kubernetes/base/prometheusrule.yaml dashboards/*.json)

if [ "${1:-}" = "--check" ]; then
  stale=()
  for f in "${rendered[@]}"; do
    cmp -s "$f" "$REPO/$f" || stale+=("$f")
  done
  # A dashboard JSON that the mixin no longer renders is stale too.
  for f in "$REPO"/dashboards/*.json; do
    [ -e "dashboards/$(basename "$f")" ] || stale+=("dashboards/$(basename "$f") (not in the mixin)")
  done
  if [ ${#stale[@]} -gt 0 ]; then
    for f in "${stale[@]}"; do
      echo "FAIL: $f is out of date with mixin/ (run scripts/render-mixin.sh)" >&2
      [ -e "$f" ] && [ -e "$REPO/$f" ] && diff -u "$REPO/$f" "$f" | head -20 >&2
    done
    exit 1
  fi
  echo "ok: ${#rendered[@]} rendered files match mixin/"
  exit 0
fi
for f in "${rendered[@]}"; do
  cp "$f" "$REPO/$f"
done
echo "rendered ${#rendered[@]} files from mixin/"
