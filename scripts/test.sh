#!/usr/bin/env bash
# Sets up, builds and runs every test: formatting, the warnings-as-errors build with all tests
# (unit, integration on a real Prometheus, e2e, simulator), then the same tests under
# ASan+UBSan. Usage: scripts/test.sh [--quick]   (--quick skips the sanitizer build)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
"$ROOT/scripts/setup.sh"
JOBS=$(nproc)

echo "== format check (clang-format $(clang-format --version | grep -o '[0-9]*\.[0-9.]*' | head -1))"
git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run --Werror

run_suite() {  # run_suite BUILD_DIR CMAKE_ARGS...
  local dir=$1; shift
  echo "== build $dir ($*)"
  cmake -S . -B "$dir" -G Ninja -DDAGADVISOR_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j"$JOBS"
  echo "== test $dir"
  (cd "$dir" && ctest -j"$JOBS" --output-on-failure --timeout 300)
}

run_suite build -DCMAKE_BUILD_TYPE=RelWithDebInfo
if [ "${1:-}" != "--quick" ]; then
  # Graphviz' fontconfig leaks at exit; nothing of ours is suppressed.
  export LSAN_OPTIONS="suppressions=$ROOT/tests/lsan.supp"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  run_suite build-asan -DCMAKE_BUILD_TYPE=Debug -DDAGADVISOR_SANITIZE=ON
fi
echo "== all tests passed"
