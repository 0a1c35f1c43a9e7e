#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/result.h"
#include "config/config.h"
#include "graph/heft.h"
#include "graph/run_estimates.h"
#include "graph/run_graph.h"
#include "model/cluster.h"

namespace dagadvisor::graph {

/// The what-if's transfer-cost model: a parent → child edge whose tasks land on different nodes
/// costs `same_zone_seconds`, or `cross_zone_seconds` when the nodes' zones (node label
/// `zone_label`) differ; an unknown zone counts as the same zone. On one node it costs nothing.
struct WhatIfTransfer {
  double same_zone_seconds = 0;
  double cross_zone_seconds = 0;
  std::string zone_label = "topology.kubernetes.io/zone";

  /// The configured model (analysis.transfer) and zone label (cluster_labels.zone).
  static WhatIfTransfer fromConfig(const config::Config& config);
};

/// Inputs of runClusterWhatIf beyond the run; the defaults give the plain re-schedule.
struct WhatIfOptions {
  std::vector<double> node_speed;  // by NodeId, 2 = twice as fast; empty = all equal
  WhatIfTransfer transfer;         // default: no transfer cost
  /// Run times for the tasks of an unfinished run that have not finished; nullptr: none known.
  const RunTimeEstimates* estimates = nullptr;
};

/// A run re-scheduled by HEFT on the nodes it was observed on.
struct ClusterWhatIf {
  std::vector<model::NodeId> nodes;  // the processors, in NodeId order
  HeftSchedule schedule;             // processor p is nodes[p]
  double makespan = 0;               // HEFT's makespan: no queueing, dependencies kept
  /// Critical path with each task at its cost on its fastest node and no transfer: no schedule
  /// beats it.
  double lower_bound = 0;
  WhatIfBasis basis = WhatIfBasis::kObserved;
  std::size_t estimated_tasks = 0;    // unfinished tasks charged an estimate
  std::size_t unestimated_tasks = 0;  // unfinished tasks without one (elapsed time, or 0)
};

/// Re-schedules a run on the nodes its tasks ran on: each node holds several tasks at once while
/// their requests fit its allocatable (other workloads ignored); a task's cost on a node is its
/// run time scaled by the two nodes' relative speeds; an edge split across nodes pays
/// options.transfer. Finished tasks take their observed run time; unfinished ones
/// max(elapsed, estimate), or the elapsed time when there is no estimate (basis kLowerBound). A
/// task without a node that fits none of the run's nodes adds the first schedulable node of
/// the cluster that fits it (a pending GPU task brings a GPU node). Errors: a cycle, or a task
/// that fits no node of the cluster.
Result<ClusterWhatIf> runClusterWhatIf(const RunGraph& run, const model::ClusterSnapshot& cluster,
                                       const WhatIfOptions& options = {});

/// Relative node speeds (by NodeId) from tasks with the same DAG and task id that ran on
/// different nodes: a node's speed is the geometric mean, over such tasks, of the task's mean
/// run time divided by its run time on that node. Nodes without such evidence get 1.
std::vector<double> estimateNodeSpeeds(const std::vector<RunGraph>& runs,
                                       const model::ClusterSnapshot& cluster);

}  // namespace dagadvisor::graph
