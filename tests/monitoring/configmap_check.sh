#!/usr/bin/env bash
# The ConfigMap's dagadvisor.yaml is a configuration the daemon accepts, and a broken copy of it
# is refused (exit 2), so the check itself can fail.
# Args: DAGADVISOR_BINARY CONFIGMAP_YAML WORK_DIR
set -euo pipefail
DAGADVISOR=$1
CONFIGMAP=$2
WORK=$3
mkdir -p "$WORK"
yq -r '.data["dagadvisor.yaml"]' "$CONFIGMAP" >"$WORK/dagadvisor.yaml"
[ -s "$WORK/dagadvisor.yaml" ] || { echo "FAIL: no data.dagadvisor.yaml in $CONFIGMAP" >&2; exit 1; }
"$DAGADVISOR" check-config --config "$WORK/dagadvisor.yaml" \
  || { echo "FAIL: dagadvisor check-config refused the ConfigMap's dagadvisor.yaml" >&2; exit 1; }
echo "ok: check-config accepts the ConfigMap"
sed 's/threads: 4/threads: 400/' "$WORK/dagadvisor.yaml" >"$WORK/broken.yaml"
set +e
"$DAGADVISOR" check-config --config "$WORK/broken.yaml" >"$WORK/broken.log" 2>&1
rc=$?
set -e
[ "$rc" -eq 2 ] || { cat "$WORK/broken.log" >&2; echo "FAIL: a broken copy gave exit $rc, not 2" >&2; exit 1; }
echo "ok: check-config refuses a broken copy (exit 2)"
