#include "graph/run_graph.h"

#include <algorithm>
#include <limits>

namespace dagadvisor::graph {
namespace {

bool isDone(const model::Pod& pod) {
  return pod.phase == model::PodPhase::kSucceeded || pod.phase == model::PodPhase::kFailed;
}

std::string describeCycle(const model::WorkflowRun& run, const std::vector<TaskIndex>& cycle) {
  std::string text = "dependency cycle: ";
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    text += (i == 0 ? "" : " -> ") + run.tasks[cycle[i]].id;
  }
  return text;
}

}  // namespace

RunGraph buildRunGraph(const model::WorkflowRun& run, const model::ClusterSnapshot& cluster) {
  RunGraph out;
  out.run = &run;
  out.graph = TaskGraph(run.tasks.size(), run.edges);
  out.problems = run.problems;
  out.finished = true;  // until a task is seen unfinished
  const UnixSeconds at = cluster.at();
  const std::size_t n = run.tasks.size();
  out.run_seconds.assign(n, 0.0);
  out.queue_seconds.assign(n, 0.0);
  out.first_created = std::numeric_limits<double>::max();
  for (std::size_t t = 0; t < n; ++t) {
    const model::Pod& pod = cluster.pod(run.tasks[t].pod);
    const UnixSeconds created = pod.created.value_or(pod.started.value_or(at));
    out.first_created = std::min(out.first_created, created);
    const bool done = isDone(pod) && pod.finished.has_value();
    out.finished = out.finished && done;
    if (pod.started) {
      const UnixSeconds end = done ? *pod.finished : at;
      out.run_seconds[t] = std::max(0.0, end - *pod.started);
      out.queue_seconds[t] = std::max(0.0, *pod.started - created);
      out.last_finished = std::max(out.last_finished, end);
    } else {
      out.queue_seconds[t] = std::max(0.0, at - created);
    }
  }
  if (!out.finished) {
    out.last_finished = at;
  }
  if (n == 0) {
    out.first_created = at;
  }
  out.makespan = std::max(0.0, out.last_finished - out.first_created);
  if (out.graph.hasCycle()) {
    out.problems.push_back(describeCycle(run, out.graph.findCycle()));
  } else {
    out.critical_path = computeCriticalPath(out.graph, out.run_seconds);
  }
  return out;
}

}  // namespace dagadvisor::graph
