#include "model/adapters/labelled_pods.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace dagadvisor::model {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

std::vector<std::string> splitParents(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = trim(text.substr(0, comma));
    if (!item.empty()) {
      out.emplace_back(item);
    }
    if (comma == std::string_view::npos) {
      break;
    }
    text.remove_prefix(comma + 1);
  }
  return out;
}

// Later attempts replace earlier ones; pods without a creation time count as oldest.
bool isLaterAttempt(const Pod& candidate, const Pod& current) {
  return candidate.created.value_or(0) > current.created.value_or(0);
}

void addPod(WorkflowRun& run, std::unordered_map<std::string, TaskIndex>& index,
            const ClusterSnapshot& cluster, PodId id, std::string_view task_id,
            const config::WorkflowLabels& keys) {
  const Pod& pod = cluster.pod(id);
  auto parents = splitParents(pod.annotations.get(keys.dependencies_annotation).value_or(""));
  auto [it, inserted] = index.try_emplace(std::string(task_id), run.tasks.size());
  if (inserted) {
    run.tasks.push_back(Task{std::string(task_id), id, 1, std::move(parents)});
    return;
  }
  Task& task = run.tasks[it->second];
  ++task.attempts;
  if (isLaterAttempt(pod, cluster.pod(task.pod))) {
    task.pod = id;
    task.parent_ids = std::move(parents);
  }
}

void resolveEdges(WorkflowRun& run, const std::unordered_map<std::string, TaskIndex>& index) {
  for (TaskIndex child = 0; child < run.tasks.size(); ++child) {
    for (const std::string& parent : run.tasks[child].parent_ids) {
      auto it = index.find(parent);
      if (it == index.end()) {
        run.problems.push_back("task " + run.tasks[child].id + " depends on " + parent +
                               ", which has no pod in this run");
        continue;
      }
      run.edges.push_back(Edge{it->second, child});
    }
  }
}

}  // namespace

std::vector<WorkflowRun> buildLabelledRuns(const ClusterSnapshot& cluster,
                                           const config::WorkflowLabels& keys) {
  using RunKey = std::tuple<std::string_view, std::string_view, std::string_view>;
  std::map<RunKey, std::pair<WorkflowRun, std::unordered_map<std::string, TaskIndex>>> runs;
  for (PodId id = 0; id < cluster.pods().size(); ++id) {
    const Pod& pod = cluster.pod(id);
    const auto dag = pod.labels.get(keys.dag_label);
    const auto task = pod.labels.get(keys.task_label);
    if (!dag || !task || dag->empty() || task->empty()) {
      continue;
    }
    const std::string_view run_name = pod.labels.get(keys.run_label).value_or(*dag);
    auto& [run, index] = runs[RunKey{pod.namespace_, *dag, run_name}];
    if (run.tasks.empty()) {
      run.namespace_ = pod.namespace_;
      run.dag = *dag;
      run.run = run_name;
      run.engine = "labels";
    }
    addPod(run, index, cluster, id, *task, keys);
  }
  std::vector<WorkflowRun> out;
  out.reserve(runs.size());
  for (auto& [key, entry] : runs) {
    resolveEdges(entry.first, entry.second);
    out.push_back(std::move(entry.first));
  }
  return out;
}

}  // namespace dagadvisor::model
