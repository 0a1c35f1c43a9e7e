#pragma once

#include <string>
#include <vector>

#include "config/config.h"
#include "model/adapters/run_assembler.h"
#include "model/cluster.h"
#include "model/workflow.h"

namespace dagadvisor::model {

/// Claims a pod of the seed's convention: labelled with a DAG id (`dag-id`), a run (`dag-run`;
/// pods without it form one run per DAG) and a task id (`task-id`), with an annotation
/// (`workflow.dependencies`) listing parent task ids separated by commas. Keys come from config.
/// Retries (several pods with one task id) become attempts; the latest pod represents the task.
/// Returns false (and adds nothing) for any other pod.
bool claimLabelledPod(const Pod& pod, PodId id, const config::WorkflowLabels& keys,
                      RunAssembler& runs);
/// The pod annotations claimLabelledPod reads: the configured dependencies annotation.
std::vector<std::string> labelledPodAnnotations(const config::WorkflowLabels& keys);

/// Rebuilds the runs of the seed's convention alone (see claimLabelledPod). Unknown parents are
/// reported as problems and dropped. Runs are returned sorted by namespace, DAG and run.
std::vector<WorkflowRun> buildLabelledRuns(const ClusterSnapshot& cluster,
                                           const config::WorkflowLabels& keys);

}  // namespace dagadvisor::model
