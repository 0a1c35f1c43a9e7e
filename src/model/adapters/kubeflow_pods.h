#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "model/adapters/run_assembler.h"
#include "model/cluster.h"

namespace dagadvisor::model {

/// A KFP v2 pod's place in the user's pipeline: the user task and whether the pod is the task's
/// driver (KFP's bookkeeping pod that runs before the executor).
struct KubeflowNode {
  std::string task;
  bool driver = false;
};

/// Maps an Argo task name of a compiled KFP v2 pipeline (argoTaskName) to the user task:
/// `root.train-driver` → train (driver), `root.train.executor` → train, nested pipelines keep
/// their path (`root.sub.train.executor` → sub.train). nullopt for the run-level `root-driver`.
std::optional<KubeflowNode> kubeflowNode(std::string_view argo_task);

/// Claims a Kubeflow Pipelines v2 pod (label `pipeline/runid`, or `pipelines.kubeflow.org/
/// v2_component`, on an Argo pod): the run is the KFP run id, driver and executor pods fold into
/// one task represented by the executor (the driver is overhead, not an attempt). The run-level
/// root driver is claimed but belongs to no task. Returns false for any other pod.
bool claimKubeflowPod(const Pod& pod, PodId id, const config::WorkflowLabels& keys,
                      RunAssembler& runs);
/// The pod annotations claimKubeflowPod reads.
std::vector<std::string> kubeflowPodAnnotations(const config::WorkflowLabels& keys);

}  // namespace dagadvisor::model
