#!/usr/bin/env bash
# Builds a kustomization with `kubectl kustomize`, validates every object against the Kubernetes
# and Prometheus Operator schemas (validate_manifests.sh), checks what the base or the overlay
# must hold (kustomize_expect.py), runs promtool on the PrometheusRule's groups and, given the
# daemon, `dagadvisor check-config` on the ConfigMap it built.
# Args: CACHE_DIR KUSTOMIZATION_DIR WORK_DIR base|overlay REPO [DAGADVISOR_BINARY]
set -euo pipefail
CACHE=$1 DIR=$2 WORK=$3 MODE=$4 REPO=$5 DAGADVISOR=${6:-}
HERE=$(cd "$(dirname "$0")" && pwd)
command -v kubectl >/dev/null || { echo "FAIL: kubectl is not installed (scripts/setup.sh)" >&2; exit 1; }
rm -rf "$WORK"
mkdir -p "$WORK"
kubectl kustomize "$DIR" >"$WORK/built.yaml" 2>"$WORK/kustomize.log" \
  || { cat "$WORK/kustomize.log" >&2; echo "FAIL: kubectl kustomize $DIR" >&2; exit 1; }
"$HERE/validate_manifests.sh" "$CACHE" "$WORK/built.yaml"
python3 "$HERE/kustomize_expect.py" "$MODE" "$WORK/built.yaml" "$REPO" "$WORK"
promtool check rules "$WORK/prometheusrule.rules.yml"
if [ -n "$DAGADVISOR" ]; then
  # The overlay mounts its web config from a Secret; kustomize_expect.py wrote its content.
  web=""
  [ "$MODE" = overlay ] && web="$WORK/web-config.yml"
  "$HERE/configmap_check.sh" "$DAGADVISOR" "$WORK/configmap.yaml" "$WORK/configmap" $web
fi
echo "ok: $DIR builds, validates and holds what a $MODE must"
