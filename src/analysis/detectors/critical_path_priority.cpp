#include "analysis/detectors/critical_path_priority.h"

#include <map>
#include <set>

#include "analysis/detectors/detector_util.h"
#include "graph/critical_path.h"

namespace dagadvisor::analysis {
namespace {

using model::Pod;
using model::TaskIndex;
using nlohmann::json;

constexpr double kEpsilon = 1e-6;
constexpr std::size_t kMaxListed = 10;

struct PendingTask {
  const graph::RunGraph* rg;
  TaskIndex task;
  const Pod* pod;
  double slack;
};

// Work still ahead of each task: done tasks weigh nothing, running ones what is left of their
// typical duration, pending ones all of it. nullopt when no unfinished task has an estimate.
std::optional<std::vector<double>> remainingWork(
    const graph::RunGraph& rg, const model::ClusterSnapshot& cluster,
    const std::unordered_map<std::string, double>& typical) {
  std::vector<double> work(rg.run->tasks.size(), 0.0);
  bool any = false;
  for (TaskIndex t = 0; t < work.size(); ++t) {
    const Pod* pod = taskPod(rg, t, cluster);
    if (pod == nullptr || pod->phase == model::PodPhase::kSucceeded ||
        pod->phase == model::PodPhase::kFailed) {
      continue;
    }
    const auto it = typical.find(taskKey(*rg.run, t));
    if (it == typical.end()) {
      continue;
    }
    const double elapsed = t < rg.run_seconds.size() ? rg.run_seconds[t] : 0.0;
    work[t] = std::max(0.0, it->second - elapsed);
    any = any || work[t] > 0;
  }
  return any ? std::optional(std::move(work)) : std::nullopt;
}

json taskJson(const PendingTask& p, UnixSeconds at) {
  json entry = {{"run", p.rg->run->id()},
                {"task", p.rg->run->tasks[p.task].id},
                {"namespace", p.pod->namespace_},
                {"pod", p.pod->name},
                {"owner_kind", p.pod->owner_kind},
                {"owner_name", p.pod->owner_name},
                {"priority_class", p.pod->priority_class},
                {"slack_seconds", p.slack}};
  if (p.pod->created) {
    entry["waiting_seconds"] = std::max(0.0, at - *p.pod->created);
  }
  return entry;
}

}  // namespace

const DetectorInfo& CriticalPathPriority::info() const {
  static const DetectorInfo kInfo{
      "critical-path-priority",
      "Pending critical-path tasks queued at no higher priority than slack-rich pending work"};
  return kInfo;
}

void CriticalPathPriority::analyze(const AnalysisInput& input, FindingSink& out) const {
  const auto& params = input.config.detectors.critical_path_priority;
  const model::ClusterSnapshot& cluster = input.cluster;
  const auto typical = typicalTaskSeconds(input.runs, cluster);
  std::vector<std::vector<PendingTask>> critical_by_run;
  std::map<std::string, std::vector<PendingTask>> rich_by_class;
  for (const graph::RunGraph& rg : input.runs) {
    critical_by_run.emplace_back();
    if (rg.run == nullptr || rg.graph.hasCycle() || rg.graph.size() != rg.run->tasks.size()) {
      continue;
    }
    const auto work = remainingWork(rg, cluster, typical);
    if (!work) {
      continue;
    }
    const graph::CriticalPath path = graph::computeCriticalPath(rg.graph, *work);
    for (TaskIndex t = 0; t < path.slack.size(); ++t) {
      const Pod* pod = taskPod(rg, t, cluster);
      if (pod == nullptr || !pod->isPendingUnscheduled()) {
        continue;
      }
      const PendingTask pending{&rg, t, pod, path.slack[t]};
      if (pending.slack <= params.max_critical_slack.count() + kEpsilon && (*work)[t] > 0) {
        critical_by_run.back().push_back(pending);
      } else if (pending.slack >= params.min_rich_slack.count()) {
        rich_by_class[pod->priority_class].push_back(pending);
      }
    }
  }
  for (const auto& critical : critical_by_run) {
    json tasks = json::array();
    json competitors = json::array();
    std::size_t competitor_count = 0;
    double waiting = 0;
    std::set<std::string> classes;
    for (const PendingTask& p : critical) {
      // Pods of different classes cannot be ordered without the classes' values, which the
      // metrics do not carry; equal classes (or none) surely queue at equal priority.
      const auto rich = rich_by_class.find(p.pod->priority_class);
      if (p.pod->priority_class == params.priority_class || rich == rich_by_class.end()) {
        continue;
      }
      tasks.push_back(taskJson(p, cluster.at()));
      waiting += tasks.back().value("waiting_seconds", 0.0);
      if (!classes.insert(p.pod->priority_class).second) {
        continue;
      }
      competitor_count += rich->second.size();
      for (std::size_t i = 0; i < rich->second.size() && competitors.size() < kMaxListed; ++i) {
        competitors.push_back(taskJson(rich->second[i], cluster.at()));
      }
    }
    if (tasks.empty()) {
      continue;
    }
    const model::WorkflowRun& run = *critical.front().rg->run;
    Finding finding;
    finding.kind = std::string(info().kind);
    finding.severity = Severity::kWarning;
    finding.target = "run/" + run.id();
    finding.summary = formatText(
        "%s: %zu critical-path task(s) pending at the same priority as %zu slack-rich task(s)",
        run.id().c_str(), tasks.size(), competitor_count);
    finding.impact = waiting;
    finding.evidence = {{"namespace", run.namespace_},
                        {"dag", run.dag},
                        {"run", run.run},
                        {"critical_tasks", std::move(tasks)},
                        {"critical_waiting_seconds", waiting},
                        {"slack_rich_pending", competitor_count},
                        {"slack_rich_examples", std::move(competitors)}};
    out.emit(std::move(finding));
  }
}

}  // namespace dagadvisor::analysis
