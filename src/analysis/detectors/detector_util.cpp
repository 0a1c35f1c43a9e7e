#include "analysis/detectors/detector_util.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <functional>

#include "common/view_hash.h"

namespace dagadvisor::analysis {

double share(std::int64_t part, std::int64_t whole) {
  return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

std::string formatText(const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return buf;
}

double quantile(std::vector<double>& values, double q) {
  if (values.empty()) {
    return 0;
  }
  std::sort(values.begin(), values.end());
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(pos));
  const std::size_t upper = std::min(lower + 1, values.size() - 1);
  return values[lower] + (values[upper] - values[lower]) * (pos - static_cast<double>(lower));
}

bool isServicePod(const model::Pod& pod) {
  return pod.owner_kind == "ReplicaSet" || pod.owner_kind == "Deployment" ||
         pod.owner_kind == "StatefulSet";
}

bool isBatchPod(const model::Pod& pod, std::string_view dag_key) {
  return pod.labels.has(dag_key) || pod.owner_kind == "Job" || pod.owner_kind == "Workflow";
}

bool openToAll(const model::Node& node) {
  return !node.unschedulable &&
         std::none_of(node.taints.begin(), node.taints.end(), [](const model::Taint& t) {
           return t.effect == "NoSchedule" || t.effect == "NoExecute";
         });
}

const model::Pod* taskPod(const graph::RunGraph& rg, model::TaskIndex t,
                          const model::ClusterSnapshot& cluster) {
  const model::PodId id = rg.run->tasks[t].pod;
  return id < cluster.pods().size() ? &cluster.pod(id) : nullptr;
}

RunScope runScope(const model::WorkflowRun& run) {
  return {run.namespace_, run.dag, run.run, run.selector, run.dag_selector, run.engine};
}

bool noRunsToJudge(const AnalysisInput& input, FindingSink& out) {
  if (!input.runs.empty()) {
    return false;
  }
  out.noAdvice("no workflow runs were rebuilt from the pods");
  return true;
}

bool noNodesToJudge(const AnalysisInput& input, FindingSink& out) {
  if (!input.cluster.nodes().empty()) {
    return false;
  }
  out.noAdvice("the snapshot has no nodes");
  return true;
}

std::size_t TaskKeyHash::operator()(const TaskKey& k) const {
  return hashViews({k.namespace_, k.dag, k.task});
}

TaskKey taskKey(const model::WorkflowRun& run, model::TaskIndex t) {
  return {run.namespace_, run.dag, run.tasks[t].id};
}

std::unordered_map<TaskKey, double, TaskKeyHash> typicalTaskSeconds(
    const std::vector<graph::RunGraph>& runs, const model::ClusterSnapshot& cluster) {
  std::unordered_map<TaskKey, std::vector<double>, TaskKeyHash> samples;
  for (const graph::RunGraph& rg : runs) {
    if (rg.run == nullptr || rg.run_seconds.size() != rg.run->tasks.size()) {
      continue;
    }
    for (model::TaskIndex t = 0; t < rg.run->tasks.size(); ++t) {
      const model::Pod* pod = taskPod(rg, t, cluster);
      if (pod != nullptr && pod->phase == model::PodPhase::kSucceeded) {
        samples[taskKey(*rg.run, t)].push_back(rg.run_seconds[t]);
      }
    }
  }
  std::unordered_map<TaskKey, double, TaskKeyHash> out;
  out.reserve(samples.size());
  for (auto& [key, values] : samples) {
    out.emplace(key, quantile(values, 0.5));
  }
  return out;
}

}  // namespace dagadvisor::analysis
