#pragma once

#include "config/config.h"
#include "model/adapters/run_assembler.h"
#include "model/cluster.h"

namespace dagadvisor::model {

/// Claims a pod of a Tekton PipelineRun: label `tekton.dev/pipelineRun` names the run,
/// `tekton.dev/pipelineTask` the task and `tekton.dev/pipeline` the DAG (the run's name when
/// absent). Retry pods (`-retryN`) become attempts. Pods of TaskRuns outside a pipeline are not
/// claimed (they are single tasks, not DAGs).
bool claimTektonPod(const Pod& pod, PodId id, const config::WorkflowLabels& keys,
                    RunAssembler& runs);

}  // namespace dagadvisor::model
