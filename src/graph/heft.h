#pragma once

#include <cstddef>
#include <vector>

#include "common/result.h"
#include "graph/task_graph.h"
#include "graph/transfer_cost.h"

namespace dagadvisor::graph {

/// A busy (or free) stretch of one processor's time line.
struct Interval {
  double start = 0;
  double finish = 0;
};

/// Earliest start ≥ `ready` at which a task of `duration` fits on a processor that is busy during
/// `busy` (sorted by start, non-overlapping): the first gap long enough, or the end of the last
/// busy interval. This is HEFT's insertion policy and the idle-slot test on observed nodes.
double findIdleSlot(const std::vector<Interval>& busy, double ready, double duration);

/// What HEFT schedules: a DAG, P processors, the cost of every task on every processor and the
/// transfer model. A cost of +infinity means the task cannot run on that processor.
struct HeftProblem {
  const TaskGraph* graph = nullptr;
  std::size_t processors = 0;
  std::vector<double> cost;  // task-major: cost[t * processors + p]
  TransferCost transfer;     // edge numbering of transfer_cost.h; default: no transfer cost
  /// Optional shared processors (Kubernetes nodes): when both are set, processor p runs several
  /// tasks at once as long as the demands of the tasks running together fit capacity[p]; a task
  /// starts at the earliest time ≥ its ready time at which it fits for its whole duration.
  /// Empty: each processor runs one task at a time (the paper's model).
  std::vector<model::ResourceVector> demand;    // by task
  std::vector<model::ResourceVector> capacity;  // by processor
};

/// Where and when one task runs.
struct ScheduledTask {
  TaskIndex task = 0;
  std::size_t processor = 0;
  double start = 0;
  double finish = 0;
};

/// A gap on a processor between time 0 and the makespan.
struct IdleSlot {
  std::size_t processor = 0;
  double start = 0;
  double finish = 0;
};

/// The HEFT schedule and the numbers it was built from.
struct HeftSchedule {
  std::vector<double> upward_rank;       // by task: mean cost + max over children (c̄ + rank)
  std::vector<TaskIndex> priority;       // tasks in scheduling order (rank descending)
  std::vector<ScheduledTask> placement;  // by task
  double makespan = 0;
  std::vector<IdleSlot> idle_slots;  // every gap of positive length, by processor then start
  /// The critical path by mean costs (entry to exit): from the highest-ranked entry task, each
  /// step takes the child maximising c̄ + rank. Its length is the largest upward rank.
  std::vector<TaskIndex> critical_path;
  double critical_path_length = 0;
};

/// Earliest start ≥ `ready` at which a task of `duration` needing `demand` fits on a processor
/// of `capacity` that already runs `placed` (start, finish, demand of each): the insertion policy
/// for shared processors. +infinity when `demand` exceeds `capacity` itself.
struct PlacedTask {
  double start = 0;
  double finish = 0;
  model::ResourceVector demand;
};
double findCapacitySlot(const std::vector<PlacedTask>& placed,
                        const model::ResourceVector& capacity, double ready, double duration,
                        const model::ResourceVector& demand);

/// Schedules with HEFT (Topcuoglu, Hariri, Wu, IEEE TPDS 2002): upward ranks from mean
/// computation and communication costs, then each task in rank order goes to the processor
/// giving the earliest finish time, inserted into the first idle slot that fits. Deterministic:
/// rank ties go to the task earlier in the graph's topological order, finish-time ties to the
/// lower processor index. O(V log V + (V + E) × P) plus the slot searches.
/// Errors: no processors, a cost array of the wrong size, a negative or NaN cost, a task with
/// no processor it can run on, a cycle, a transfer model that does not cover every edge, or
/// demand/capacity arrays of the wrong size.
Result<HeftSchedule> scheduleHeft(const HeftProblem& problem);

}  // namespace dagadvisor::graph
