#!/usr/bin/env bash
# The reference cluster (5,000 nodes, 150,000 pods, 3,000 runs) generates; prints time and size.
# Usage: scale_test.sh <dagadvisor-sim> <scale.yaml>
set -euo pipefail
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
line="$("$1" generate --scenario "$2" --out "$WORK")"
echo "$line"
[[ "$line" == *"nodes=5000 "* ]] || { echo "FAIL: expected 5000 nodes" >&2; exit 1; }
pods=$(sed -E 's/.* pods=([0-9]+) .*/\1/' <<<"$line")
[[ "$pods" -ge 145000 ]] || { echo "FAIL: expected ~150000 pods, got $pods" >&2; exit 1; }
[[ "$(tail -n 1 "$WORK/metrics.om")" == "# EOF" ]] || { echo "FAIL: no # EOF" >&2; exit 1; }
ls -l "$WORK"
