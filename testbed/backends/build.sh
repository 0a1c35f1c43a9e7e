#!/usr/bin/env bash
# Builds the metrics backends the integration tests run beside Debian's Prometheus 2.42, from
# their Go modules (testbed/backends/go.mod pins every version): Prometheus 3 (prometheus3 and its
# promtool3, without the web UI's assets and without any service discovery but file and http)
# and VictoriaMetrics single-node (victoria-metrics), into build/testbed/bin (or $TESTBED_BIN),
# each reporting its real version. A module of its own: Prometheus 3 requires k8s.io modules of
# another release than the test cluster's (testbed/go.mod).
# Go's build cache makes a second run take seconds.
source "$(dirname "$0")/../go_module.sh" testbed/backends
# Both projects release binaries built without cgo; VictoriaMetrics then uses its pure-Go zstd.
export CGO_ENABLED=0

go mod download github.com/prometheus/prometheus  # its VERSION file, on a cold module cache too
prometheus_dir=$(go list -m -f '{{.Dir}}' github.com/prometheus/prometheus)
prometheus_module=$(go list -m -f '{{.Version}}' github.com/prometheus/prometheus)
prometheus_version=$(cat "$prometheus_dir/VERSION")  # v0.316.0 is Prometheus 3.16.0
vm_version=$(go list -m -f '{{.Version}}' github.com/VictoriaMetrics/VictoriaMetrics)

# Prometheus reads its version from Prometheus' common version package (as its .promu.yml sets
# it); VictoriaMetrics from lib/buildinfo, as "<app>-<date>-<tag>" (its Makefile), of which it
# shows the vX.Y.Z part.
prometheus_ldflags=(
  -s -w
  -X "github.com/prometheus/common/version.Version=$prometheus_version"
  -X "github.com/prometheus/common/version.Revision=$prometheus_module"
  -X "github.com/prometheus/common/version.Branch=module"
)
vm_ldflags=(
  -s -w
  -X "github.com/VictoriaMetrics/VictoriaMetrics/lib/buildinfo.Version=victoria-metrics-tags-$vm_version"
)
mkdir -p "$BIN"
# remove_all_sd: Prometheus' plugins/ registers every service discovery unless this tag is set
# (file and http stay); the tests configure none, and it spares a third of the packages.
go build -trimpath -tags remove_all_sd -ldflags "${prometheus_ldflags[*]}" \
  -o "$BIN/prometheus3" github.com/prometheus/prometheus/cmd/prometheus
go build -trimpath -tags remove_all_sd -ldflags "${prometheus_ldflags[*]}" \
  -o "$BIN/promtool3" github.com/prometheus/prometheus/cmd/promtool
go build -trimpath -ldflags "${vm_ldflags[*]}" \
  -o "$BIN/victoria-metrics" github.com/VictoriaMetrics/VictoriaMetrics/app/victoria-metrics
