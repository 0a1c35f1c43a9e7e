#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

#include "graph/run_graph.h"
#include "model/cluster.h"

namespace dagadvisor::graph {

/// Run-time estimates for tasks that have not finished, learnt from tasks that have: what the
/// what-if of an unfinished run charges for its running and pending tasks.
class RunTimeEstimates {
 public:
  /// Learns the run times of the finished tasks of `run` (pods of `cluster`).
  void add(const RunGraph& run, const model::ClusterSnapshot& cluster);

  /// Expected run time of task `t` of `run`: the mean over the finished instances of the same
  /// task (namespace, DAG and task id) in the runs added, else the mean over finished tasks of
  /// the same shape (identical CPU, memory and GPU requests); nullopt when neither was seen.
  std::optional<double> estimate(const RunGraph& run, TaskIndex t,
                                 const model::ClusterSnapshot& cluster) const;

  /// Where estimate() has nothing: the longest time a running instance of the same task, else
  /// of the same shape, had run at the analysis time. Such tasks take at least that long; 0 when
  /// none runs.
  double lowerBound(const RunGraph& run, TaskIndex t, const model::ClusterSnapshot& cluster) const;

 private:
  struct Mean {
    double sum = 0;
    double count = 0;
  };
  using Shape = std::tuple<std::int64_t, std::int64_t, std::int64_t>;

  std::unordered_map<std::string, Mean> by_task_;
  std::map<Shape, Mean> by_shape_;
  std::unordered_map<std::string, double> running_by_task_;  // the longest time run so far
  std::map<Shape, double> running_by_shape_;
};

}  // namespace dagadvisor::graph
