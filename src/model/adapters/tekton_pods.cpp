#include "model/adapters/tekton_pods.h"

namespace dagadvisor::model {

bool claimTektonPod(const Pod& pod, PodId id, const config::WorkflowLabels& /*keys*/,
                    RunAssembler& runs) {
  const auto run = pod.labels.get("tekton.dev/pipelineRun");
  const auto task = pod.labels.get("tekton.dev/pipelineTask");
  if (!run || !task || run->empty() || task->empty()) {
    return false;
  }
  const auto pipeline = pod.labels.get("tekton.dev/pipeline");
  runs.add(pod, id,
           PodClaim{pipeline && !pipeline->empty() ? *pipeline : *run,
                    *run,
                    *task,
                    pod.created.value_or(0),
                    {},
                    true});
  return true;
}

}  // namespace dagadvisor::model
