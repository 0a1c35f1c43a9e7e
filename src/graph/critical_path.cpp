#include "graph/critical_path.h"

#include <algorithm>
#include <limits>

namespace dagadvisor::graph {

CriticalPath computeCriticalPath(const TaskGraph& graph, const std::vector<double>& duration) {
  CriticalPath out;
  const auto& order = graph.topologicalOrder();
  const std::size_t n = graph.size();
  if (n == 0 || graph.hasCycle() || duration.size() != n) {
    return out;
  }
  constexpr TaskIndex kNone = std::numeric_limits<TaskIndex>::max();
  out.earliest_start.assign(n, 0.0);
  std::vector<TaskIndex> best_parent(n, kNone);
  for (TaskIndex t : order) {
    for (TaskIndex p : graph.parents(t)) {
      const double finish = out.earliest_start[p] + duration[p];
      // Parents come in ascending index order, so a strict comparison keeps the lowest on ties.
      if (finish > out.earliest_start[t]) {
        out.earliest_start[t] = finish;
        best_parent[t] = p;
      }
    }
  }
  TaskIndex exit = 0;
  for (TaskIndex t = 0; t < n; ++t) {
    if (out.earliest_start[t] + duration[t] > out.earliest_start[exit] + duration[exit]) {
      exit = t;
    }
  }
  out.length = out.earliest_start[exit] + duration[exit];
  for (TaskIndex t = exit; t != kNone; t = best_parent[t]) {
    out.tasks.push_back(t);
  }
  std::reverse(out.tasks.begin(), out.tasks.end());

  // Latest finish walking backwards; slack = latest start − earliest start.
  std::vector<double> latest_finish(n, out.length);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    for (TaskIndex c : graph.children(*it)) {
      latest_finish[*it] = std::min(latest_finish[*it], latest_finish[c] - duration[c]);
    }
  }
  out.slack.resize(n);
  for (TaskIndex t = 0; t < n; ++t) {
    out.slack[t] = std::max(0.0, latest_finish[t] - duration[t] - out.earliest_start[t]);
  }
  return out;
}

}  // namespace dagadvisor::graph
