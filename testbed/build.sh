#!/usr/bin/env bash
# Builds the test cluster's parts from their Go modules (testbed/go.mod pins every version):
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl, kwok,
# kube-state-metrics and the workload driver, into build/testbed/bin (or $TESTBED_BIN), each
# reporting its real version; and kwok's stages (its stock ones from its module, then ours).
# Then the metrics backends of their own module (testbed/backends/build.sh): Prometheus 3 and
# VictoriaMetrics.
# Go's build cache makes a second run take seconds.
source "$(dirname "$0")/go_module.sh" testbed

version_of() { go list -m -f '{{.Version}}' "$1"; }
kubernetes=$(version_of k8s.io/kubernetes)
ksm=$(version_of k8s.io/kube-state-metrics/v2)
minor=${kubernetes#v1.}
minor=${minor%%.*}
# Kubernetes' binaries read their version from variables its own build sets (else v0.0.0-master);
# kube-state-metrics from Prometheus' version package. kwok and etcd carry theirs in the source.
ldflags=(
  -s -w
  -X "k8s.io/component-base/version.gitVersion=$kubernetes"
  -X "k8s.io/component-base/version.gitMajor=1"
  -X "k8s.io/component-base/version.gitMinor=$minor"
  -X "k8s.io/component-base/version.gitTreeState=clean"
  -X "k8s.io/client-go/pkg/version.gitVersion=$kubernetes"
  -X "github.com/prometheus/common/version.Version=${ksm#v}"
)
mkdir -p "$BIN"
go build -trimpath -ldflags "${ldflags[*]}" -o "$BIN/" tool ./cmd/...

# kwok's configuration: its stock stages (nodes start and beat; pods run once bound; Job pods
# complete; deletion), the project's own end of a task pod (testbed/kwok/pod-complete.yaml), and
# kwok's stock kubelet resource metrics (container_cpu_usage_seconds_total and
# container_memory_working_set_bytes per container, served per node) with the use each pod's
# kwok.x-k8s.io/usage-cpu and usage-memory annotations give.
kwok_dir=$(go list -m -f '{{.Dir}}' sigs.k8s.io/kwok)
{
  for part in stage/node/fast/node-initialize stage/node/heartbeat/node-heartbeat \
    stage/pod/fast/pod-ready stage/pod/fast/pod-complete stage/pod/fast/pod-delete \
    metrics/usage/usage-from-annotation metrics/resource/metrics-resource; do
    cat "$kwok_dir/kustomize/$part.yaml"
    echo "---"
  done
  cat kwok/pod-complete.yaml
} >"$BIN/kwok.yaml"
rm -f "$BIN/kwok-stages.yaml"

# The workflow engines' CRDs, from their own modules at pinned releases (checked against the Go
# checksum database like any module): the player creates Argo Workflows and WorkflowTemplates and
# Tekton PipelineRuns and TaskRuns, and the daemon LISTs them from the API server.
module_dir() {  # module_dir MODULE@VERSION
  (cd / && GOFLAGS= go mod download -json "$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
}
argo=$(module_dir github.com/argoproj/argo-workflows/v4@v4.0.5)
tekton=$(module_dir github.com/tektoncd/pipeline@v1.6.0)
mkdir -p "$BIN/crds"
cp "$argo/manifests/base/crds/minimal/argoproj.io_workflows.yaml" \
  "$argo/manifests/base/crds/minimal/argoproj.io_workflowtemplates.yaml" \
  "$tekton/config/300-crds/300-pipelinerun.yaml" "$tekton/config/300-crds/300-taskrun.yaml" \
  "$BIN/crds/"
chmod u+w "$BIN"/crds/*.yaml

# Prometheus 3 and VictoriaMetrics, from their own module (their k8s.io requirements are of
# another release than this module's).
TESTBED_BIN=$BIN "$ROOT/testbed/backends/build.sh"
