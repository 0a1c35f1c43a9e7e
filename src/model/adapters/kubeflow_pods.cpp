#include "model/adapters/kubeflow_pods.h"

#include "model/adapters/argo_pods.h"

namespace dagadvisor::model {
namespace {

constexpr std::string_view kRunIdLabel = "pipeline/runid";
constexpr std::string_view kComponentKey = "pipelines.kubeflow.org/v2_component";
constexpr std::string_view kWorkflowLabel = "workflows.argoproj.io/workflow";
constexpr std::string_view kNodeNameAnnotation = "workflows.argoproj.io/node-name";
constexpr std::string_view kRootPrefix = "root.";
constexpr std::string_view kDriverSuffix = "-driver";
constexpr std::string_view kExecutorSuffix = ".executor";

bool endsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

std::optional<KubeflowNode> kubeflowNode(std::string_view argo_task) {
  if (argo_task.substr(0, kRootPrefix.size()) != kRootPrefix) {
    return std::nullopt;  // root-driver, or not a task of the pipeline's root DAG
  }
  argo_task.remove_prefix(kRootPrefix.size());
  if (endsWith(argo_task, kExecutorSuffix)) {
    argo_task.remove_suffix(kExecutorSuffix.size());
    return KubeflowNode{std::string(argo_task), false};
  }
  if (endsWith(argo_task, kDriverSuffix)) {
    argo_task.remove_suffix(kDriverSuffix.size());
    return KubeflowNode{std::string(argo_task), true};
  }
  return KubeflowNode{std::string(argo_task), false};
}

bool claimKubeflowPod(const Pod& pod, PodId id, const config::WorkflowLabels& /*keys*/,
                      RunAssembler& runs) {
  const auto workflow = pod.labels.get(kWorkflowLabel);
  const auto run_id = pod.labels.get(kRunIdLabel);
  if (!workflow ||
      (!run_id && !pod.labels.has(kComponentKey) && !pod.annotations.has(kComponentKey))) {
    return false;
  }
  const auto node_name = pod.annotations.get(kNodeNameAnnotation);
  if (!node_name) {
    return false;  // without the node name it is a plain Argo pod to us
  }
  const auto node = kubeflowNode(argoTaskName(*workflow, *node_name));
  if (node) {
    runs.add(pod, id,
             PodClaim{argoDagName(*workflow),
                      run_id.value_or(*workflow),
                      node->task,
                      pod.created.value_or(0),
                      {},
                      !node->driver,
                      {run_id ? std::pair{kRunIdLabel, *run_id}
                              : std::pair{kWorkflowLabel, *workflow}}});
  }
  return true;
}

std::vector<std::string> kubeflowPodAnnotations(const config::WorkflowLabels& /*keys*/) {
  return {std::string(kComponentKey), std::string(kNodeNameAnnotation)};
}

}  // namespace dagadvisor::model
