#!/usr/bin/env bash
# Validates the Kubernetes manifests offline with the `kubernetes-models` npm packages (their
# OpenAPI schemas and validate()), installed once into CACHE_DIR from the npm registry.
# Fails, never skips, when node/npm or the packages are missing.
# Args: CACHE_DIR MANIFEST.yaml...
set -euo pipefail
CACHE=$1
shift
PACKAGES=(kubernetes-models@5.1.0 @kubernetes-models/prometheus-operator@6.0.0 js-yaml@4.3.2)

command -v node >/dev/null || { echo "FAIL: node is not installed (scripts/setup.sh)" >&2; exit 1; }
command -v npm >/dev/null || { echo "FAIL: npm is not installed (scripts/setup.sh)" >&2; exit 1; }
mkdir -p "$CACHE"
stamp="$CACHE/.installed-$(echo "${PACKAGES[*]}" | md5sum | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  echo "installing ${PACKAGES[*]} into $CACHE"
  npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error --engine-strict=false \
    "${PACKAGES[@]}" >"$CACHE/npm.log" 2>&1 \
    || { cat "$CACHE/npm.log" >&2; echo "FAIL: npm could not install the validator packages" >&2; exit 1; }
  touch "$stamp"
fi
cp "$(dirname "$0")/validate_manifests.mjs" "$CACHE/validate_manifests.mjs"
node "$CACHE/validate_manifests.mjs" "$@"
