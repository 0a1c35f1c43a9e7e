#!/usr/bin/env bash
# Sets up, builds and runs every test: formatting, the warnings-as-errors build with all tests
# (unit, integration on a real Prometheus, e2e, simulator), then the same tests under
# ASan+UBSan, then a few seconds of each libFuzzer target (clang, build-fuzz).
# Usage: scripts/test.sh [--quick]   (--quick skips the sanitizer and fuzz builds)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
"$ROOT/scripts/setup.sh"
JOBS=$(nproc)

echo "== format check (clang-format $(clang-format --version | grep -o '[0-9]*\.[0-9.]*' | head -1))"
git ls-files '*.cpp' '*.h' | xargs clang-format --dry-run --Werror
echo "== format check (gofmt)"
UNFORMATTED=$(gofmt -l testbed)
[ -z "$UNFORMATTED" ] || { echo "not gofmt-formatted: $UNFORMATTED" >&2; exit 1; }

# Each build and test phase reports its wall and CPU time (docs/testing.md, "CI time").
timed() {  # timed LABEL COMMAND...
  local label=$1; shift
  /usr/bin/time -f "== $label: %e s wall, %U s user, %S s sys" "$@"
}

run_suite() {  # run_suite BUILD_DIR CTEST_ARGS CMAKE_ARGS...
  local dir=$1 ctest_args=$2; shift 2
  echo "== build $dir ($*)"
  cmake -S . -B "$dir" -G Ninja -DDAGADVISOR_WERROR=ON "$@" >/dev/null
  timed "build $dir" cmake --build "$dir" -j"$JOBS"
  echo "== test $dir"
  # shellcheck disable=SC2086
  (cd "$dir" && timed "test $dir" ctest -j"$JOBS" --output-on-failure --timeout 300 $ctest_args)
}

# The real control plane of the cluster tests, from its Go modules (testbed/go.mod), and the
# other metrics backends, Prometheus 3 and VictoriaMetrics (testbed/backends/go.mod), before the
# configuration, which registers their tests where they were built: minutes cold, seconds once
# Go's build cache holds them.
timed "build testbed" env TESTBED_BIN="$ROOT/build/testbed/bin" "$ROOT/testbed/build.sh"
# Little debug info in either pass: on a 2-core machine the assembler and linker spend a third of the
# build on it; sanitizer reports still name functions and lines through -g1.
run_suite build "" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -DNDEBUG" \
  -DDAGADVISOR_BUILD_BENCHMARKS=ON -DDAGADVISOR_CLUSTER_TESTS=ON
if [ "${1:-}" != "--quick" ]; then
  # Graphviz' fontconfig leaks at exit; nothing of ours is suppressed.
  export LSAN_OPTIONS="suppressions=$ROOT/tests/lsan.supp"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  # Tests labelled slow (the 150,000-pod generation, the detector sweep over every scenario, the
  # native-histogram wait, the real-cluster tests) already ran above; under ASan they only cost
  # time.
  # lld: the sanitized binaries (ASan's runtime, debug info) link in half the time of ld.bfd.
  run_suite build-asan "-LE slow" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g1" \
    -DDAGADVISOR_SANITIZE=ON -DDAGADVISOR_LINKER=lld
  # A smoke of every parser of outside input: DAGADVISOR_FUZZ_SECONDS (3) of libFuzzer each on
  # its seed corpus. scripts/fuzz.sh runs them for longer; scripts/tsan.sh is the TSan pass.
  echo "== build build-fuzz (libFuzzer targets, clang)"
  timed "build build-fuzz" "$ROOT/scripts/fuzz-build.sh" build-fuzz -DDAGADVISOR_LINKER=lld
  echo "== test build-fuzz"
  (cd build-fuzz && timed "test build-fuzz" ctest -j"$JOBS" --output-on-failure -L fuzz)
fi
echo "== all tests passed"
