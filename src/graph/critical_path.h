#pragma once

#include <vector>

#include "graph/task_graph.h"

namespace dagadvisor::graph {

/// Longest path through a DAG whose tasks weigh `duration[t]` (and edges `transfer(e)` = 0 here;
/// transfer costs come with the HEFT work). `slack[t]` is how long task t could be delayed
/// without lengthening the path; zero-slack tasks are critical.
struct CriticalPath {
  double length = 0;
  std::vector<TaskIndex> tasks;  // entry to exit
  std::vector<double> earliest_start;
  std::vector<double> slack;
};

/// Computes the critical path in O(V + E) over the topological order. Returns an empty result
/// for a graph with a cycle (the caller reports the cycle). Ties go to the lower task index,
/// so the answer is deterministic.
CriticalPath computeCriticalPath(const TaskGraph& graph, const std::vector<double>& duration);

}  // namespace dagadvisor::graph
