#include "analysis/detectors/shard_candidate.h"

#include <algorithm>
#include <map>

#include "analysis/detectors/detector_util.h"

namespace dagadvisor::analysis {
namespace {

using model::TaskIndex;
using nlohmann::json;

struct Dominant {
  std::string task;
  double seconds = 0;
  double share = 0;
  const graph::RunGraph* rg = nullptr;
};

// The longest task on the run's critical path, with its share of the path.
std::optional<Dominant> dominantTask(const graph::RunGraph& rg) {
  if (rg.run == nullptr || !rg.finished || rg.critical_path.length <= 0) {
    return std::nullopt;
  }
  Dominant best;
  for (TaskIndex t : rg.critical_path.tasks) {
    if (t < rg.run_seconds.size() && rg.run_seconds[t] > best.seconds) {
      best = {rg.run->tasks[t].id, rg.run_seconds[t], 0, &rg};
    }
  }
  best.share = best.seconds / rg.critical_path.length;
  return best.task.empty() ? std::nullopt : std::optional(best);
}

std::size_t nodesWithRoom(const model::ClusterSnapshot& cluster,
                          const model::ResourceVector& demand, std::size_t enough) {
  std::size_t count = 0;
  for (model::NodeId id = 0; id < cluster.nodes().size() && count < enough; ++id) {
    count += openToAll(cluster.node(id)) && cluster.freeOn(id).fits(demand) ? 1 : 0;
  }
  return count;
}

// The dominant task when one task id dominates every run of the DAG, else nullopt.
std::optional<std::vector<Dominant>> sameDominant(const std::vector<Dominant>& runs,
                                                  double min_share) {
  for (const Dominant& d : runs) {
    if (d.task != runs.front().task || d.share < min_share) {
      return std::nullopt;
    }
  }
  return runs;
}

}  // namespace

json ShardCandidateEvidence::toJson() const {
  return {{"namespace", namespace_},
          {"dag", dag},
          {"task", task},
          {"runs", runs},
          {"median_task_seconds", median_task_seconds},
          {"median_critical_share", median_critical_share},
          {"median_makespan_seconds", median_makespan_seconds},
          {"idle_nodes", idle_nodes},
          {"chunks", chunks},
          {"expected_saving_seconds", expected_saving_seconds},
          {"expected_makespan_seconds", expectedMakespanSeconds()}};
}

const DetectorInfo& ShardCandidate::info() const {
  static const DetectorInfo kInfo{
      ShardCandidateEvidence::kKind,
      "One task dominating the critical path of recurring runs while nodes idle"};
  return kInfo;
}

void ShardCandidate::analyze(const AnalysisInput& input, FindingSink& out) const {
  if (noRunsToJudge(input, out)) {
    return;
  }
  const auto& params = input.config.detectors.get<analysis::ShardCandidateSettings>();
  std::map<std::string, std::vector<Dominant>> by_dag;
  for (const graph::RunGraph& rg : input.runs) {
    if (const auto d = dominantTask(rg)) {
      by_dag[rg.run->namespace_ + "/" + rg.run->dag].push_back(*d);
    }
  }
  const auto min_runs = static_cast<std::size_t>(params.min_runs);
  std::size_t most_runs = 0;
  for (const auto& [dag, runs] : by_dag) {
    most_runs = std::max(most_runs, runs.size());
  }
  if (most_runs < min_runs) {
    out.noAdvice(
        formatText("no DAG has %zu finished runs to compare (at most %zu)", min_runs, most_runs));
    return;
  }
  for (const auto& [dag, runs] : by_dag) {
    const auto dominant =
        runs.size() >= min_runs ? sameDominant(runs, params.min_critical_share) : std::nullopt;
    if (!dominant) {
      continue;
    }
    const Dominant& latest = dominant->back();
    const model::Pod* pod = taskPod(*latest.rg, 0, input.cluster);
    for (TaskIndex t = 0; t < latest.rg->run->tasks.size(); ++t) {
      if (latest.rg->run->tasks[t].id == latest.task) {
        pod = taskPod(*latest.rg, t, input.cluster);
      }
    }
    const auto max_chunks = static_cast<std::size_t>(params.max_chunks);
    const std::size_t idle =
        pod == nullptr ? 0 : nodesWithRoom(input.cluster, pod->requests, max_chunks - 1);
    if (idle < static_cast<std::size_t>(params.min_idle_nodes) || idle == 0) {
      continue;
    }
    std::vector<double> seconds, makespans, shares;
    for (const Dominant& d : *dominant) {
      seconds.push_back(d.seconds);
      makespans.push_back(d.rg->makespan);
      shares.push_back(d.share);
    }
    const std::size_t chunks = idle + 1;  // the task's own slot plus one per idle node
    const double task_seconds = quantile(seconds, 0.5);
    const double saving = task_seconds * (1 - 1.0 / static_cast<double>(chunks));
    const double makespan = quantile(makespans, 0.5);
    ShardCandidateEvidence evidence;
    evidence.namespace_ = latest.rg->run->namespace_;
    evidence.dag = latest.rg->run->dag;
    evidence.task = latest.task;
    evidence.runs = dominant->size();
    evidence.median_task_seconds = task_seconds;
    evidence.median_critical_share = quantile(shares, 0.5);
    evidence.median_makespan_seconds = makespan;
    evidence.idle_nodes = idle;
    evidence.chunks = chunks;
    evidence.expected_saving_seconds = saving;
    Finding finding = findingOf(std::move(evidence));
    finding.severity = Severity::kInfo;
    finding.target = "dag/" + dag;
    finding.summary = formatText(
        "%s: task %s takes %.0f%% of the critical path in %zu runs; %zu chunks would save about "
        "%.0f s of a %.0f s makespan",
        dag.c_str(), latest.task.c_str(), quantile(shares, 0.5) * 100, dominant->size(), chunks,
        saving, makespan);
    finding.impact = saving;
    out.emit(std::move(finding));
  }
}

std::vector<config::Field> ShardCandidateSettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"min_runs", &min_runs, config::Rule::kAtLeastOne,
       "A DAG needs at least this many finished runs..."},
      {"min_critical_share", &min_critical_share, config::Rule::kShare,
       "...in each of which one task takes at least this share of the critical path..."},
      {"min_idle_nodes", &min_idle_nodes, config::Rule::kNonNegative,
       "...while at least this many nodes could each run one more copy of that task."},
      {"max_chunks", &max_chunks, config::Rule::kAtLeastTwo,
       "The advice splits the task into at most this many parallel chunks."},
  };
}

}  // namespace dagadvisor::analysis
