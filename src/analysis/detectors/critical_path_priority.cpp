#include "analysis/detectors/critical_path_priority.h"

#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/detectors/detector_util.h"
#include "analysis/node_eligibility.h"
#include "analysis/pending_diagnosis.h"
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

// Typical seconds of a task: its DAG's own history first; else the median over the other DAGs
// of the namespace that run a task of the same id (per-region or per-team copies of one
// pipeline, such as nightly_training and nightly_training_eu, each with a single run so far).
// Keys are views into the runs: one hash per task, no string built per pod.
class TaskEstimates {
 public:
  TaskEstimates(const std::vector<graph::RunGraph>& runs, const model::ClusterSnapshot& cluster)
      : by_dag_(typicalTaskSeconds(runs, cluster)) {
    std::unordered_map<TaskKey, std::vector<double>, TaskKeyHash> samples;
    for (const auto& [key, seconds] : by_dag_) {
      samples[namespaceKey(key)].push_back(seconds);
    }
    by_namespace_.reserve(samples.size());
    for (auto& [key, values] : samples) {
      by_namespace_.emplace(key, quantile(values, 0.5));
    }
  }

  std::optional<double> seconds(const model::WorkflowRun& run, TaskIndex t) const {
    const TaskKey key = taskKey(run, t);
    if (const auto it = by_dag_.find(key); it != by_dag_.end()) {
      return it->second;
    }
    if (const auto it = by_namespace_.find(namespaceKey(key)); it != by_namespace_.end()) {
      return it->second;
    }
    return std::nullopt;
  }

 private:
  static TaskKey namespaceKey(const TaskKey& key) { return {key.namespace_, {}, key.task}; }

  std::unordered_map<TaskKey, double, TaskKeyHash> by_dag_;
  std::unordered_map<TaskKey, double, TaskKeyHash> by_namespace_;
};

// Work still ahead of each task: done tasks weigh nothing, running ones what is left of their
// typical duration, pending ones all of it. nullopt when no unfinished task has an estimate.
std::optional<std::vector<double>> remainingWork(const graph::RunGraph& rg,
                                                 const model::ClusterSnapshot& cluster,
                                                 const TaskEstimates& estimates) {
  std::vector<double> work(rg.run->tasks.size(), 0.0);
  bool any = false;
  for (TaskIndex t = 0; t < work.size(); ++t) {
    const Pod* pod = taskPod(rg, t, cluster);
    if (pod == nullptr || pod->phase == model::PodPhase::kSucceeded ||
        pod->phase == model::PodPhase::kFailed) {
      continue;
    }
    const std::optional<double> typical = estimates.seconds(*rg.run, t);
    if (!typical) {
      continue;
    }
    const double elapsed = t < rg.run_seconds.size() ? rg.run_seconds[t] : 0.0;
    work[t] = std::max(0.0, *typical - elapsed);
    any = any || work[t] > 0;
  }
  return any ? std::optional(std::move(work)) : std::nullopt;
}

PendingPathTask pathTask(const PendingTask& p, UnixSeconds at) {
  PendingPathTask entry;
  entry.run = p.rg->run->id();
  entry.task = p.rg->run->tasks[p.task].id;
  entry.namespace_ = p.pod->namespace_;
  entry.pod = p.pod->name;
  entry.owner_kind = p.pod->owner_kind;
  entry.owner_name = p.pod->owner_name;
  entry.priority_class = p.pod->priority_class;
  entry.slack_seconds = p.slack;
  if (p.pod->created) {
    entry.waiting_seconds = std::max(0.0, at - *p.pod->created);
  }
  return entry;
}

json taskJson(const PendingPathTask& t) {
  json entry = {{"run", t.run},
                {"task", t.task},
                {"namespace", t.namespace_},
                {"pod", t.pod},
                {"owner_kind", t.owner_kind},
                {"owner_name", t.owner_name},
                {"priority_class", t.priority_class},
                {"slack_seconds", t.slack_seconds}};
  if (t.waiting_seconds) {
    entry["waiting_seconds"] = *t.waiting_seconds;
  }
  return entry;
}

json tasksJson(const std::vector<PendingPathTask>& tasks) {
  json out = json::array();
  for (const PendingPathTask& t : tasks) {
    out.push_back(taskJson(t));
  }
  return out;
}

bool hasPendingTask(const graph::RunGraph& rg, const model::ClusterSnapshot& cluster) {
  for (TaskIndex t = 0; t < rg.run->tasks.size(); ++t) {
    const Pod* pod = taskPod(rg, t, cluster);
    if (pod != nullptr && pod->isPendingUnscheduled()) {
      return true;
    }
  }
  return false;
}

struct Classified {
  std::vector<std::vector<PendingTask>> critical_by_run;  // one entry per input run
  std::map<std::string, std::vector<PendingTask>> rich_by_class;
  std::size_t runs_with_pending = 0;
  std::size_t runs_estimated = 0;  // of those, with an estimate of their remaining work
};

// Sorts the pending tasks of every run into critical (slack within max_critical_slack, some
// work ahead) and slack-rich (at least min_rich_slack), the latter by PriorityClass.
Classified classify(const std::vector<graph::RunGraph>& runs, const model::ClusterSnapshot& cluster,
                    const analysis::CriticalPathPrioritySettings& params) {
  const TaskEstimates estimates(runs, cluster);
  Classified out;
  for (const graph::RunGraph& rg : runs) {
    out.critical_by_run.emplace_back();
    if (rg.run == nullptr || rg.graph.hasCycle() || rg.graph.size() != rg.run->tasks.size() ||
        !hasPendingTask(rg, cluster)) {
      continue;
    }
    ++out.runs_with_pending;
    const auto work = remainingWork(rg, cluster, estimates);
    if (!work) {
      continue;
    }
    ++out.runs_estimated;
    const graph::CriticalPath path = graph::computeCriticalPath(rg.graph, *work);
    for (TaskIndex t = 0; t < path.slack.size(); ++t) {
      const Pod* pod = taskPod(rg, t, cluster);
      if (pod == nullptr || !pod->isPendingUnscheduled()) {
        continue;
      }
      const PendingTask pending{&rg, t, pod, path.slack[t]};
      if (pending.slack <= params.max_critical_slack.count() + kEpsilon && (*work)[t] > 0) {
        out.critical_by_run.back().push_back(pending);
      } else if (pending.slack >= params.min_rich_slack.count()) {
        out.rich_by_class[pod->priority_class].push_back(pending);
      }
    }
  }
  return out;
}

// What the run's critical pending pods could preempt, judged against the shortest wait among
// them: the wait a preemption would end soonest.
PreemptionExposure exposureOf(const model::ClusterSnapshot& cluster,
                              const NodeEligibility& eligibility,
                              const std::vector<PendingPathTask>& critical,
                              const analysis::CriticalPathPrioritySettings& params,
                              std::string_view dag_key) {
  std::vector<const Pod*> pods;
  double shortest_wait = -1;
  for (const PendingPathTask& t : critical) {
    if (const auto id = cluster.findPod(t.namespace_, t.pod)) {
      pods.push_back(&cluster.pod(*id));
    }
    const double wait = t.waiting_seconds.value_or(0.0);
    shortest_wait = shortest_wait < 0 ? wait : std::min(shortest_wait, wait);
  }
  return preemptionExposure(cluster, eligibility, pods, std::max(0.0, shortest_wait),
                            {params.priority_class, params.priority_value}, dag_key);
}

}  // namespace

json CriticalPathPriorityEvidence::toJson() const {
  json out = {{"critical_tasks", tasksJson(critical_tasks)},
              {"critical_waiting_seconds", critical_waiting_seconds},
              {"slack_rich_pending", slack_rich_pending},
              {"slack_rich_examples", tasksJson(slack_rich_examples)},
              {"preemption", preemption.toJson()}};
  scope.writeJson(out);
  return out;
}

const DetectorInfo& CriticalPathPriority::info() const {
  static const DetectorInfo kInfo{
      CriticalPathPriorityEvidence::kKind,
      "Pending critical-path tasks queued at no higher priority than slack-rich pending work"};
  return kInfo;
}

void CriticalPathPriority::analyze(const AnalysisInput& input, FindingSink& out) const {
  const auto& params = input.config.detectors.get<analysis::CriticalPathPrioritySettings>();
  const model::ClusterSnapshot& cluster = input.cluster;
  if (input.runs.empty()) {
    out.noAdvice("no workflow runs were rebuilt");
    return;
  }
  const Classified classified = classify(input.runs, cluster, params);
  if (classified.runs_with_pending > 0 && classified.runs_estimated == 0) {
    out.noAdvice(
        "no run with pending tasks has a finished task of its DAG or namespace to estimate "
        "durations from");
    return;
  }
  const std::string dag_key = model::LabelSet::normalizeKey(input.config.workflow_labels.dag_label);
  const auto& critical_by_run = classified.critical_by_run;
  const auto& rich_by_class = classified.rich_by_class;
  std::optional<NodeEligibility> eligibility;  // built once, for the first run with a finding
  for (const auto& critical : critical_by_run) {
    CriticalPathPriorityEvidence evidence;
    std::set<std::string> classes;
    for (const PendingTask& p : critical) {
      // Pods of different classes cannot be ordered without the classes' values, which the
      // metrics do not carry; equal classes (or none) surely queue at equal priority.
      const auto rich = rich_by_class.find(p.pod->priority_class);
      if (p.pod->priority_class == params.priority_class || rich == rich_by_class.end()) {
        continue;
      }
      evidence.critical_tasks.push_back(pathTask(p, cluster.at()));
      evidence.critical_waiting_seconds +=
          evidence.critical_tasks.back().waiting_seconds.value_or(0.0);
      if (!classes.insert(p.pod->priority_class).second) {
        continue;
      }
      evidence.slack_rich_pending += rich->second.size();
      for (std::size_t i = 0;
           i < rich->second.size() && evidence.slack_rich_examples.size() < kMaxListed; ++i) {
        evidence.slack_rich_examples.push_back(pathTask(rich->second[i], cluster.at()));
      }
    }
    if (evidence.critical_tasks.empty()) {
      continue;
    }
    const model::WorkflowRun& run = *critical.front().rg->run;
    evidence.scope = runScope(run);
    if (!eligibility) {
      eligibility.emplace(cluster, DiagnosisOptions{}.gpu_taint_key);
    }
    evidence.preemption =
        exposureOf(cluster, *eligibility, evidence.critical_tasks, params, dag_key);
    const std::string summary = formatText(
        "%s: %zu critical-path task(s) pending at the same priority as %zu slack-rich task(s)",
        run.id().c_str(), evidence.critical_tasks.size(), evidence.slack_rich_pending);
    const double waiting = evidence.critical_waiting_seconds;
    Finding finding = findingOf(std::move(evidence));
    finding.severity = Severity::kWarning;
    finding.target = "run/" + run.id();
    finding.summary = summary;
    finding.impact = waiting;
    out.emit(std::move(finding));
  }
}

std::vector<config::Field> CriticalPathPrioritySettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"max_critical_slack", &max_critical_slack, config::Rule::kNonNegative,
       "A pending task is critical when its slack in the run's remaining work is at most this "
       "(durations of unfinished tasks are estimated from other runs of the same DAG)..."},
      {"min_rich_slack", &min_rich_slack, config::Rule::kNonNegative,
       "...and slack-rich when its slack is at least this."},
      {"priority_class", &priority_class, config::Rule::kNonEmpty,
       "The PriorityClass the advice creates for critical-path tasks."},
      {"priority_value", &priority_value, config::Rule::kNonNegative,
       "The value of that PriorityClass: higher than the workflows' other pods, and below the "
       "system classes (1000000000 and up)."},
  };
}

}  // namespace dagadvisor::analysis
