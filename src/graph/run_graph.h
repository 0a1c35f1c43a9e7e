#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "graph/critical_path.h"
#include "graph/task_graph.h"
#include "model/cluster.h"
#include "model/workflow.h"

namespace dagadvisor::graph {

/// What the cluster what-if's task run times are (cluster_whatif.h).
enum class WhatIfBasis {
  kObserved,   // the run finished: every task's observed run time
  kEstimated,  // unfinished: tasks not finished yet got an estimated run time (run_estimates.h)
  /// Unfinished, and some tasks had no estimate: they count only the time they have run so far
  /// (0 when pending), so the what-if makespan is a lower bound.
  kLowerBound,
};

/// "observed", "estimated" or "lower_bound": the word the report and API use.
std::string_view whatIfBasisName(WhatIfBasis basis);

/// The task's pod has succeeded or failed and has a finish time.
bool taskFinished(const model::Pod& pod);

struct WhatIfTransfer;

/// One run with its graph and observed timings: what every run-level detector and view reads.
struct RunGraph {
  const model::WorkflowRun* run = nullptr;  // owned by the cycle's run list
  TaskGraph graph{0, {}};
  std::vector<double>
      run_seconds;  // started → finished (→ analysis time while running; 0 unstarted)
  std::vector<double> queue_seconds;  // created → started (→ analysis time while waiting)
  CriticalPath critical_path;         // over run_seconds
  UnixSeconds first_created = 0;
  UnixSeconds last_finished = 0;      // or the analysis time while the run is unfinished
  bool finished = false;              // every task succeeded or failed
  double makespan = 0;                // last_finished − first_created
  std::vector<std::string> problems;  // the run's data problems plus graph ones (cycles)
  // Time the tasks of the observed critical chain spent waiting for a node (created → started):
  // the part of the makespan a better scheduler could win back.
  double critical_path_wait_seconds = 0;
  /// The observed critical chain, entry to exit: from the last task to finish, each step goes to
  /// the parent that finished last (the one the task really waited for).
  std::vector<TaskIndex> observed_chain;
  /// HEFT re-schedule on the observed nodes (cluster_whatif.h), for runs of at most
  /// kMaxWhatIfTasks tasks without a cycle; unset when it could not be computed.
  std::optional<double> whatif_makespan;
  /// Whether whatif_makespan rests on observed, estimated or partly unknown run times.
  WhatIfBasis whatif_basis = WhatIfBasis::kObserved;

  /// Share of the makespan the critical chain spent waiting for scheduling (0 … 1).
  double waitShare() const { return makespan > 0 ? critical_path_wait_seconds / makespan : 0; }

  /// critical path / makespan: 1 means no time was lost outside the critical path's work.
  double efficiency() const { return makespan > 0 ? critical_path.length / makespan : 0; }
};

/// Runs larger than this get no what-if: the shared-node slot search grows with the square of
/// the tasks overlapping on one node, and a cycle must never hang on one huge run.
inline constexpr std::size_t kMaxWhatIfTasks = 1000;

/// Builds the graph of `run` and measures it against the pods of `cluster` at cluster.at(). Its
/// what-if charges no transfer cost and, for an unfinished run, estimates run times from the
/// run's own finished tasks only (buildRunGraphs does better).
RunGraph buildRunGraph(const model::WorkflowRun& run, const model::ClusterSnapshot& cluster);

/// buildRunGraph for every run of a cycle (same order), with the what-if of each run charging
/// `transfer` and estimating unfinished tasks from the finished tasks of all `runs`. The graphs
/// point into `runs`, which must outlive them.
std::vector<RunGraph> buildRunGraphs(const std::vector<model::WorkflowRun>& runs,
                                     const model::ClusterSnapshot& cluster,
                                     const WhatIfTransfer& transfer);

/// The finished task pods that have parents in their run: those that fetched a parent's output,
/// so that what they received over the network measures a hand-off (analysis/transfer_prices.h).
std::vector<model::PodId> finishedTasksWithParents(const std::vector<RunGraph>& graphs,
                                                   const model::ClusterSnapshot& cluster);

}  // namespace dagadvisor::graph
