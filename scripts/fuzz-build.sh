#!/usr/bin/env bash
# Configures and builds the libFuzzer targets with clang into BUILD_DIR (default build-fuzz):
# only the libraries the targets link, instrumented with -fsanitize=fuzzer-no-link,address,
# undefined (cmake/Sanitizers.cmake). Used by scripts/fuzz.sh and the fuzz pass of scripts/test.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
BUILD=${1:-build-fuzz}
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DDAGADVISOR_FUZZ=ON -DDAGADVISOR_BUILD_TESTS=OFF -DDAGADVISOR_WERROR=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" "${@:2}" >/dev/null
cmake --build "$BUILD" --target fuzz_targets -j"$(nproc)"
