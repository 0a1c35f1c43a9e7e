# Sourced by the test bed's build scripts: sets ROOT (the repository) and BIN (where the binaries
# go: build/testbed/bin, or $TESTBED_BIN), and enters the Go module in folder $1 of the
# repository with its go.mod read-only (every version pinned there).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=${TESTBED_BIN:-$ROOT/build/testbed/bin}
command -v go >/dev/null 2>&1 || { echo "testbed: Go 1.26 or newer must be on PATH" >&2; exit 1; }
export GOFLAGS=-mod=readonly
cd "$ROOT/$1"
