#!/usr/bin/env bash
# Installs exactly the Debian 12 packages dagadvisor needs that are not installed yet.
# Idempotent and quiet when everything is there. Needs root (or sudo) only when it installs.
set -euo pipefail

PACKAGES=(
  # build; clang and its runtime libraries (libFuzzer, sanitizers) for the fuzz targets
  g++ cmake ninja-build pkg-config clang-format clang libclang-rt-14-dev
  # the linker of the sanitizer and fuzz passes of scripts/test.sh (faster than ld.bfd)
  lld
  # libraries (each for one reason, see README "Dependencies")
  prometheus-cpp-dev libcivetweb-dev civetweb libcurl4-openssl-dev nlohmann-json3-dev
  libcxxopts-dev libyaml-cpp-dev libsimdjson-dev libgraphviz-dev zlib1g-dev libssl-dev
  # tests: Catch2 v2, Google Benchmark, and the real Prometheus/Alertmanager with promtool/amtool
  catch2 libbenchmark-dev prometheus prometheus-alertmanager curl jq
  # peak RSS of the analyze process in the openb tests (/usr/bin/time -f %M)
  time
  # serving: headless browser test of the web page, loopback load test
  chromium wrk
  # monitoring tests: dashboards/rules lint (PyYAML), ConfigMap extraction (yq); the manifest
  # validator needs node and npm (Debian's `npm` if no other Node.js is installed)
  python3-yaml yq
  # monitoring mixin: jsonnet renders mixin/ (and jsonnetfmt checks its format)
  jsonnet
)
# `kubectl kustomize` builds config/kubernetes/; any kubectl will do (Debian's kubernetes-client
# ships /usr/bin/kubectl and conflicts with other kubectl packages, so only when none is there).
if ! command -v kubectl >/dev/null 2>&1; then
  PACKAGES+=(kubernetes-client)
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

# The test scripts run the python3 PATH finds first, which may be another interpreter than
# Debian's (a pyenv one): it needs PyYAML too, which python3-yaml gives Debian's only.
ensure_pyyaml() {
  python3 -c 'import yaml' 2>/dev/null && return 0
  echo "setup: installing PyYAML 6.0.3 for $(command -v python3)" >&2
  python3 -m pip install --quiet 'PyYAML==6.0.3'
}

if [ ${#missing[@]} -eq 0 ]; then
  ensure_pyyaml
  exit 0
fi

echo "setup: installing ${#missing[@]} Debian package(s): ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done" >&2
ensure_pyyaml
