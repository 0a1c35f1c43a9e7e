#include "model/adapters/inferred_edges.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace dagadvisor::model {

std::size_t inferEdgesFromTiming(WorkflowRun& run, const ClusterSnapshot& cluster, double window) {
  std::vector<std::pair<UnixSeconds, TaskIndex>> by_finish;
  for (TaskIndex t = 0; t < run.tasks.size(); ++t) {
    const Pod& pod = cluster.pod(run.tasks[t].pod);
    if (pod.finished && pod.created) {
      by_finish.emplace_back(*pod.finished, t);
    }
  }
  std::sort(by_finish.begin(), by_finish.end());
  const std::size_t before = run.edges.size();
  for (TaskIndex child = 0; child < run.tasks.size(); ++child) {
    const auto created = cluster.pod(run.tasks[child].pod).created;
    if (!created) {
      continue;
    }
    auto it = std::lower_bound(by_finish.begin(), by_finish.end(),
                               std::make_pair(*created - window, TaskIndex{0}));
    for (; it != by_finish.end() && it->first <= *created; ++it) {
      const TaskIndex parent = it->second;
      if (*cluster.pod(run.tasks[parent].pod).created < *created) {
        run.edges.push_back(Edge{parent, child, true});
      }
    }
  }
  const std::size_t added = run.edges.size() - before;
  if (added > 0) {
    run.problems.push_back(std::to_string(added) + " dependencies " +
                           std::string(kInferredEdgesNote) +
                           ": the engine's pods do not carry them");
  }
  return added;
}

void inferEdgesIfMissing(WorkflowRun& run, const ClusterSnapshot& cluster,
                         const config::WorkflowLabels& keys) {
  if (keys.infer_edges && run.edges.empty() && run.engine != "labels") {
    inferEdgesFromTiming(run, cluster, keys.inference_window.count());
  }
}

}  // namespace dagadvisor::model
