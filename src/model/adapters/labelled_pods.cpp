#include "model/adapters/labelled_pods.h"

#include <string_view>

namespace dagadvisor::model {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string> splitParents(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    if (!item.empty()) {
      out.emplace_back(item);
    }
    if (comma == std::string_view::npos) {
      break;
    }
    text.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace

bool claimLabelledPod(const Pod& pod, PodId id, const config::WorkflowLabels& keys,
                      RunAssembler& runs) {
  const auto dag = pod.labels.get(keys.dag_label);
  const auto task = pod.labels.get(keys.task_label);
  if (!dag || !task || dag->empty() || task->empty()) {
    return false;
  }
  // A DAG without run labels is one run; its DAG label then selects it.
  const auto run = pod.labels.get(keys.run_label);
  PodClaim claim{*dag,
                 run.value_or(*dag),
                 *task,
                 pod.created.value_or(0),
                 splitParents(pod.annotations.get(keys.dependencies_annotation).value_or("")),
                 true};  // pods without a creation time count as the oldest attempt
  claim.dag_selector = {{keys.dag_label, *dag}};
  claim.selector.emplace_back(keys.dag_label, *dag);
  if (run) {
    claim.selector.emplace_back(keys.run_label, *run);
  }
  runs.add(pod, id, std::move(claim));
  return true;
}

std::vector<std::string> labelledPodAnnotations(const config::WorkflowLabels& keys) {
  return {keys.dependencies_annotation};
}

std::vector<WorkflowRun> buildLabelledRuns(const ClusterSnapshot& cluster,
                                           const config::WorkflowLabels& keys) {
  RunAssembler runs("labels");
  for (PodId id = 0; id < cluster.pods().size(); ++id) {
    claimLabelledPod(cluster.pod(id), id, keys, runs);
  }
  return runs.finish();
}

}  // namespace dagadvisor::model
