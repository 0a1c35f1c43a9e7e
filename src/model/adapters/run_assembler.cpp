#include "model/adapters/run_assembler.h"

#include <algorithm>
#include <utility>

namespace dagadvisor::model {
namespace {

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

void RunAssembler::add(const Pod& pod, PodId id, PodClaim claim) {
  Entry& entry = runs_[Key{pod.namespace_, claim.dag, claim.run}];
  WorkflowRun& run = entry.run;
  if (run.engine.empty()) {
    run.namespace_ = pod.namespace_;
    run.dag = claim.dag;
    run.run = claim.run;
    run.engine = engine_;
    run.selector.assign(claim.selector.begin(), claim.selector.end());
    run.dag_selector.assign(claim.dag_selector.begin(), claim.dag_selector.end());
  }
  const Rank rank{claim.attempt, claim.order};
  const std::uint32_t counted = claim.attempt ? 1 : 0;
  auto [it, inserted] = entry.index.try_emplace(std::string(claim.task), run.tasks.size());
  if (inserted) {
    run.tasks.push_back(Task{std::string(claim.task), id, counted, std::move(claim.parents)});
    entry.rank.push_back(rank);
    return;
  }
  Task& task = run.tasks[it->second];
  task.attempts += counted;
  if (entry.rank[it->second] < rank) {
    entry.rank[it->second] = rank;
    task.pod = id;
    if (claim.attempt) {
      task.parent_ids = std::move(claim.parents);
    }
  }
}

std::vector<WorkflowRun> RunAssembler::finish() {
  std::vector<WorkflowRun> out;
  out.reserve(runs_.size());
  for (auto& [key, entry] : runs_) {
    for (Task& task : entry.run.tasks) {
      // A task seen only through folded pods (a driver whose executor is gone) still ran once.
      task.attempts = std::max<std::uint32_t>(task.attempts, 1);
    }
    resolveEdges(entry.run, entry.index);
    out.push_back(std::move(entry.run));
  }
  runs_.clear();
  return out;
}

}  // namespace dagadvisor::model
