#include "model/adapters/tekton_pods.h"

namespace dagadvisor::model {

bool claimTektonPod(const Pod& pod, PodId id, const config::WorkflowLabels& /*keys*/,
                    RunAssembler& runs) {
  constexpr std::string_view kRunLabel = "tekton.dev/pipelineRun";
  const auto run = pod.labels.get(kRunLabel);
  const auto task = pod.labels.get("tekton.dev/pipelineTask");
  if (!run || !task || run->empty() || task->empty()) {
    return false;
  }
  constexpr std::string_view kPipelineLabel = "tekton.dev/pipeline";
  const auto pipeline = pod.labels.get(kPipelineLabel);
  const bool named = pipeline && !pipeline->empty();
  PodClaim claim{named ? *pipeline : *run, *run, *task, pod.created.value_or(0), {}, true};
  claim.selector = {{kRunLabel, *run}};
  if (named) {
    claim.dag_selector = {{kPipelineLabel, *pipeline}};
  }
  runs.add(pod, id, std::move(claim));
  return true;
}

}  // namespace dagadvisor::model
