#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "model/adapters/run_assembler.h"
#include "model/cluster.h"
#include "model/workflow.h"

namespace dagadvisor::model {

/// One engine's pod adapter: `claim` adds the pod to `runs` and returns true when the pod
/// belongs to this engine, and returns false (adding nothing) otherwise.
struct EngineAdapter {
  std::string_view engine;  // WorkflowRun::engine of the runs it builds
  bool (*claim)(const Pod& pod, PodId id, const config::WorkflowLabels& keys, RunAssembler& runs);
  // The pod annotations `claim` reads; null when it reads none.
  std::vector<std::string> (*annotations)(const config::WorkflowLabels& keys) = nullptr;
};

/// Every adapter in claim order: the first that claims a pod owns it, so the more specific
/// engines come first (KFP before Argo, Airflow before the seed convention, whose `dag-id` and
/// `task-id` labels look like Airflow's once exported by kube-state-metrics).
const std::vector<EngineAdapter>& engineAdapters();

/// The pod annotations the adapters of the engines in `keys.engines` read, each once, sorted, in
/// kube-state-metrics' spelling (LabelSet::normalizeKey): all the model needs of a cluster's
/// kube_pod_annotations, which otherwise holds every annotation exported of every pod.
std::vector<std::string> podAnnotationsRead(const config::WorkflowLabels& keys);

/// Rebuilds every run in `cluster` with the adapters of the engines listed in `keys.engines`,
/// each pod claimed by at most one engine. Runs without any declared edge (every engine but the
/// seed convention) get edges inferred from timing when `keys.infer_edges` is set. Sorted by
/// engine in claim order, then by namespace, DAG and run.
std::vector<WorkflowRun> buildRuns(const ClusterSnapshot& cluster,
                                   const config::WorkflowLabels& keys);

}  // namespace dagadvisor::model
