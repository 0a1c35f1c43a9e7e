#pragma once

#include <vector>

#include "common/result.h"
#include "graph/heft.h"
#include "graph/run_graph.h"
#include "model/cluster.h"

namespace dagadvisor::graph {

/// A run re-scheduled by HEFT on the nodes it was observed on.
struct ClusterWhatIf {
  std::vector<model::NodeId> nodes;  // the processors, in NodeId order
  HeftSchedule schedule;             // processor p is nodes[p]
  double makespan = 0;               // HEFT's makespan: no queueing, dependencies kept
  /// Critical path with each task at its cost on its fastest node: no schedule beats it.
  double lower_bound = 0;
};

/// Re-schedules a finished run on the nodes its tasks ran on: each node holds several tasks at
/// once while their requests fit its allocatable (other workloads ignored), a task's cost on a
/// node is its observed run time scaled by the two nodes' relative speeds (`node_speed` by
/// NodeId, 2 = twice as fast; empty = all equal) and data transfer is taken as part of the
/// observed run times. Errors: the run is unfinished, has a cycle, or a task never got a node.
Result<ClusterWhatIf> runClusterWhatIf(const RunGraph& run, const model::ClusterSnapshot& cluster,
                                       const std::vector<double>& node_speed = {});

/// Relative node speeds (by NodeId) from tasks with the same DAG and task id that ran on
/// different nodes: a node's speed is the geometric mean, over such tasks, of the task's mean
/// run time divided by its run time on that node. Nodes without such evidence get 1.
std::vector<double> estimateNodeSpeeds(const std::vector<RunGraph>& runs,
                                       const model::ClusterSnapshot& cluster);

}  // namespace dagadvisor::graph
