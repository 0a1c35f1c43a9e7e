#include "graph/run_estimates.h"

#include <algorithm>

namespace dagadvisor::graph {
namespace {

std::string taskKey(const model::WorkflowRun& run, TaskIndex t) {
  return run.namespace_ + "/" + run.dag + "\n" + run.tasks[t].id;
}

std::tuple<std::int64_t, std::int64_t, std::int64_t> shapeOf(const model::Pod& pod) {
  return {pod.requests.cpu_millis, pod.requests.memory_bytes, pod.requests.gpus};
}

}  // namespace

void RunTimeEstimates::add(const RunGraph& run, const model::ClusterSnapshot& cluster) {
  for (TaskIndex t = 0; run.run != nullptr && t < run.run->tasks.size(); ++t) {
    const model::Pod& pod = cluster.pod(run.run->tasks[t].pod);
    if (!taskFinished(pod)) {
      if (pod.started && pod.phase == model::PodPhase::kRunning) {
        double& task = running_by_task_[taskKey(*run.run, t)];
        task = std::max(task, run.run_seconds[t]);
        double& shape = running_by_shape_[shapeOf(pod)];
        shape = std::max(shape, run.run_seconds[t]);
      }
      continue;
    }
    Mean& task = by_task_[taskKey(*run.run, t)];
    task.sum += run.run_seconds[t];
    task.count += 1;
    Mean& shape = by_shape_[shapeOf(pod)];
    shape.sum += run.run_seconds[t];
    shape.count += 1;
  }
}

std::optional<double> RunTimeEstimates::estimate(const RunGraph& run, TaskIndex t,
                                                 const model::ClusterSnapshot& cluster) const {
  if (run.run == nullptr || t >= run.run->tasks.size()) {
    return std::nullopt;
  }
  if (auto it = by_task_.find(taskKey(*run.run, t)); it != by_task_.end()) {
    return it->second.sum / it->second.count;
  }
  const model::Pod& pod = cluster.pod(run.run->tasks[t].pod);
  if (auto it = by_shape_.find(shapeOf(pod)); it != by_shape_.end()) {
    return it->second.sum / it->second.count;
  }
  return std::nullopt;
}

double RunTimeEstimates::lowerBound(const RunGraph& run, TaskIndex t,
                                    const model::ClusterSnapshot& cluster) const {
  if (run.run == nullptr || t >= run.run->tasks.size()) {
    return 0;
  }
  if (auto it = running_by_task_.find(taskKey(*run.run, t)); it != running_by_task_.end()) {
    return it->second;
  }
  const model::Pod& pod = cluster.pod(run.run->tasks[t].pod);
  auto it = running_by_shape_.find(shapeOf(pod));
  return it != running_by_shape_.end() ? it->second : 0;
}

}  // namespace dagadvisor::graph
