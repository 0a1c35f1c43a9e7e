#pragma once

#include <vector>

#include "config/config.h"
#include "model/cluster.h"
#include "model/workflow.h"

namespace dagadvisor::model {

/// Rebuilds runs from the seed's convention: pods labelled with a DAG id (`dag-id`), a run
/// (`dag-run`; pods without it form one run per DAG) and a task id (`task-id`), and an annotation
/// (`workflow.dependencies`) listing parent task ids separated by commas. Keys come from config.
/// Retries (several pods with one task id) become attempts; the latest pod represents the task.
/// Unknown parents are reported as problems and dropped. Runs are returned sorted by id.
std::vector<WorkflowRun> buildLabelledRuns(const ClusterSnapshot& cluster,
                                           const config::WorkflowLabels& keys);

}  // namespace dagadvisor::model
