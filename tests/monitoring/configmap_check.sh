#!/usr/bin/env bash
# The ConfigMap's dagadvisor.yaml is a configuration the daemon accepts, and a broken copy of it
# is refused (exit 2), so the check itself can fail.
# WEB_CONFIG, when given, is the file the pod sees at server.web_config_file (the mounted
# Secret's content): check-config reads and checks it there instead of at the pod's path.
# Args: DAGADVISOR_BINARY CONFIGMAP_YAML WORK_DIR [WEB_CONFIG]
set -euo pipefail
DAGADVISOR=$1
CONFIGMAP=$2
WORK=$3
WEB_CONFIG=${4:-}
mkdir -p "$WORK"
yq -r '.data["dagadvisor.yaml"]' "$CONFIGMAP" >"$WORK/dagadvisor.yaml"
[ -s "$WORK/dagadvisor.yaml" ] || { echo "FAIL: no data.dagadvisor.yaml in $CONFIGMAP" >&2; exit 1; }
if [ -n "$WEB_CONFIG" ]; then
  yq -y --arg path "$WEB_CONFIG" '.server.web_config_file = $path' "$WORK/dagadvisor.yaml" \
    >"$WORK/dagadvisor.local.yaml"
  mv "$WORK/dagadvisor.local.yaml" "$WORK/dagadvisor.yaml"
fi
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
