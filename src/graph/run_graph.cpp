#include "graph/run_graph.h"

#include <algorithm>
#include <limits>

#include "graph/cluster_whatif.h"

namespace dagadvisor::graph {
namespace {

std::string describeCycle(const model::WorkflowRun& run, const std::vector<TaskIndex>& cycle) {
  std::string text = "dependency cycle: ";
  for (std::size_t i = 0; i < cycle.size(); ++i) {
    text += (i == 0 ? "" : " -> ") + run.tasks[cycle[i]].id;
  }
  return text;
}

// Walks back from the last task to finish through the parent that finished last; returns the
// chain entry to exit. `finish` is each task's observed finish (or the analysis time).
std::vector<TaskIndex> observedChain(const TaskGraph& graph, const std::vector<double>& finish) {
  std::vector<TaskIndex> chain;
  if (finish.empty() || graph.hasCycle()) {
    return chain;
  }
  TaskIndex at = static_cast<TaskIndex>(
      std::distance(finish.begin(), std::max_element(finish.begin(), finish.end())));
  for (;;) {
    chain.push_back(at);
    const auto parents = graph.parents(at);
    if (parents.size() == 0) {
      break;
    }
    at = *std::max_element(parents.begin(), parents.end(),
                           [&](TaskIndex a, TaskIndex b) { return finish[a] < finish[b]; });
  }
  std::reverse(chain.begin(), chain.end());
  return chain;
}

RunGraph measureRun(const model::WorkflowRun& run, const model::ClusterSnapshot& cluster) {
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
  std::vector<double> finish(n, at);
  for (std::size_t t = 0; t < n; ++t) {
    const model::Pod& pod = cluster.pod(run.tasks[t].pod);
    const UnixSeconds created = pod.created.value_or(pod.started.value_or(at));
    out.first_created = std::min(out.first_created, created);
    const bool done = taskFinished(pod);
    out.finished = out.finished && done;
    if (pod.started) {
      const UnixSeconds end = done ? *pod.finished : at;
      out.run_seconds[t] = std::max(0.0, end - *pod.started);
      out.queue_seconds[t] = std::max(0.0, *pod.started - created);
      out.last_finished = std::max(out.last_finished, end);
      finish[t] = end;
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
    out.observed_chain = observedChain(out.graph, finish);
    for (TaskIndex t : out.observed_chain) {
      out.critical_path_wait_seconds += out.queue_seconds[t];
    }
  }
  return out;
}

void keepWhatIf(RunGraph& out, const Result<ClusterWhatIf>& whatif) {
  if (whatif.ok()) {
    out.whatif_makespan = whatif->makespan;
    out.whatif_basis = whatif->basis;
  }
}

// Without estimates, an unfinished run learns from its own finished tasks (by shape).
void addWhatIf(RunGraph& out, const model::ClusterSnapshot& cluster, const WhatIfOptions& options) {
  if (out.graph.size() == 0 || out.graph.size() > kMaxWhatIfTasks || out.graph.hasCycle()) {
    return;
  }
  if (out.finished || options.estimates != nullptr) {
    keepWhatIf(out, runClusterWhatIf(out, cluster, options));
    return;
  }
  RunTimeEstimates own;
  own.add(out, cluster);
  WhatIfOptions with_own = options;
  with_own.estimates = &own;
  keepWhatIf(out, runClusterWhatIf(out, cluster, with_own));
}

}  // namespace

std::string_view whatIfBasisName(WhatIfBasis basis) {
  switch (basis) {
    case WhatIfBasis::kEstimated:
      return "estimated";
    case WhatIfBasis::kLowerBound:
      return "lower_bound";
    case WhatIfBasis::kObserved:
      break;
  }
  return "observed";
}

bool taskFinished(const model::Pod& pod) {
  return (pod.phase == model::PodPhase::kSucceeded || pod.phase == model::PodPhase::kFailed) &&
         pod.finished.has_value();
}

RunGraph buildRunGraph(const model::WorkflowRun& run, const model::ClusterSnapshot& cluster) {
  RunGraph out = measureRun(run, cluster);
  addWhatIf(out, cluster, {});
  return out;
}

std::vector<RunGraph> buildRunGraphs(const std::vector<model::WorkflowRun>& runs,
                                     const model::ClusterSnapshot& cluster,
                                     const WhatIfTransfer& transfer) {
  std::vector<RunGraph> graphs;
  graphs.reserve(runs.size());
  for (const model::WorkflowRun& run : runs) {
    graphs.push_back(measureRun(run, cluster));
  }
  RunTimeEstimates estimates;
  const bool any_unfinished =
      std::any_of(graphs.begin(), graphs.end(), [](const RunGraph& g) { return !g.finished; });
  for (std::size_t i = 0; any_unfinished && i < graphs.size(); ++i) {
    estimates.add(graphs[i], cluster);
  }
  const WhatIfOptions options{{}, transfer, &estimates};
  for (RunGraph& graph : graphs) {
    addWhatIf(graph, cluster, options);
  }
  return graphs;
}

std::vector<model::PodId> finishedTasksWithParents(const std::vector<RunGraph>& graphs,
                                                   const model::ClusterSnapshot& cluster) {
  std::vector<model::PodId> pods;
  for (const RunGraph& g : graphs) {
    for (model::TaskIndex t = 0; t < g.run->tasks.size(); ++t) {
      const model::PodId id = g.run->tasks[t].pod;
      if (g.graph.parents(t).size() > 0 && id < cluster.pods().size() && cluster.pod(id).finished &&
          cluster.pod(id).started) {
        pods.push_back(id);
      }
    }
  }
  return pods;
}

}  // namespace dagadvisor::graph
