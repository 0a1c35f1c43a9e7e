#pragma once

#include "config/config.h"
#include "model/adapters/run_assembler.h"
#include "model/cluster.h"

namespace dagadvisor::model {

/// Claims a pod of a Spark application (label `spark-app-selector`): one application is one run
/// of one task, named after `spark-app-name` (else the selector). The driver represents the task;
/// executors fold into it without counting as attempts (executors without `spark-app-name`,
/// which older Spark versions set on the driver only, are claimed but left out).
bool claimSparkPod(const Pod& pod, PodId id, const config::WorkflowLabels& keys,
                   RunAssembler& runs);

}  // namespace dagadvisor::model
