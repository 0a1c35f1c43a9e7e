#pragma once

#include <span>
#include <string>
#include <vector>

#include "config/config.h"
#include "model/adapters/object_source.h"
#include "model/cluster.h"
#include "model/workflow.h"

namespace dagadvisor::model {

/// Applies workflow objects to the runs rebuilt from pods. An object describes a run of the same
/// engine, in the object's namespace ("" = any), whose name is the object's name: the run name
/// (kRun), "<dag>/<run>" (kDagRun) or the DAG name (kDag); the narrower scope wins. A described
/// run gets the object's edges as exact ones (inferred = false) in place of every inferred edge
/// (and the note about them), and each task's attempts rise to what the object counted. Tasks
/// the object names but no pod ran for, tasks it does not name, and the object's own gaps are
/// problems of the run, never errors. Linear in runs, objects, tasks and edges. Returns, per
/// run, whether an object described it.
std::vector<bool> applyWorkflowObjects(std::vector<WorkflowRun>& runs,
                                       const std::vector<SourcedObject>& objects);

/// buildRuns() with the objects of every source applied: each source is asked once with the runs
/// rebuilt from pods, their warnings are appended to `warnings`, and edges are inferred from
/// timing (keys.infer_edges) only for the runs no object describes.
std::vector<WorkflowRun> buildRunsWithObjects(const ClusterSnapshot& cluster,
                                              const config::WorkflowLabels& keys,
                                              std::span<const ObjectSourcePtr> sources,
                                              std::vector<std::string>& warnings);

}  // namespace dagadvisor::model
