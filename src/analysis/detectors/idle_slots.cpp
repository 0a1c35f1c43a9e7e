#include "analysis/detectors/idle_slots.h"

#include <string>
#include <vector>

#include "analysis/detectors/detector_util.h"

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::Pod;
using model::TaskIndex;
using nlohmann::json;

constexpr std::size_t kMaxListedNodes = 5;

// When the task became ready: its last parent's finish, or its own creation without parents.
// nullopt while a parent is unfinished or its times are unknown.
std::optional<UnixSeconds> readySince(const graph::RunGraph& rg, TaskIndex t, const Pod& pod,
                                      const ClusterSnapshot& cluster) {
  if (!pod.created) {
    return std::nullopt;
  }
  UnixSeconds ready = *pod.created;
  for (TaskIndex parent : rg.graph.parents(t)) {
    const Pod* p = taskPod(rg, parent, cluster);
    if (p == nullptr || p->phase != model::PodPhase::kSucceeded || !p->finished) {
      return std::nullopt;
    }
    ready = std::max(ready, *p->finished);
  }
  return ready;
}

// The first few nodes with room; stopping early keeps the scan short on large clusters.
std::vector<std::string> nodesWithRoom(const ClusterSnapshot& cluster,
                                       const model::ResourceVector& demand) {
  std::vector<std::string> names;
  for (model::NodeId id = 0; id < cluster.nodes().size() && names.size() < kMaxListedNodes; ++id) {
    if (openToAll(cluster.node(id)) && cluster.freeOn(id).fits(demand)) {
      names.push_back(cluster.node(id).name);
    }
  }
  return names;
}

json taskJson(const IdleReadyTask& t) {
  return {{"task", t.task},
          {"namespace", t.namespace_},
          {"pod", t.pod},
          {"ready_wait_seconds", t.ready_wait_seconds},
          {"cpu_millis", t.requests.cpu_millis},
          {"memory_bytes", t.requests.memory_bytes},
          {"gpus", t.requests.gpus},
          {"nodes_with_room", t.nodes_with_room}};
}

}  // namespace

json IdleSlotsEvidence::toJson() const {
  json tasks = json::array();
  for (const IdleReadyTask& t : ready_tasks) {
    tasks.push_back(taskJson(t));
  }
  json out = {{"ready_tasks", std::move(tasks)},
              {"lost_slot_seconds", lost_slot_seconds},
              {"makespan_seconds", makespan_seconds}};
  if (whatif_makespan_seconds) {
    out["whatif_makespan_seconds"] = *whatif_makespan_seconds;
  }
  if (whatif) {
    out["whatif_verdict"] = graph::whatIfVerdictName(whatif->verdict);
    out["whatif_gain_seconds"] = whatif->gain_seconds;
  }
  scope.writeJson(out);
  return out;
}

const DetectorInfo& IdleSlots::info() const {
  static const DetectorInfo kInfo{IdleSlotsEvidence::kKind,
                                  "Ready tasks pending while a node has room for them"};
  return kInfo;
}

void IdleSlots::analyze(const AnalysisInput& input, FindingSink& out) const {
  if (noRunsToJudge(input, out)) {
    return;
  }
  const auto& params = input.config.detectors.get<analysis::IdleSlotsSettings>();
  const ClusterSnapshot& cluster = input.cluster;
  for (const graph::RunGraph& rg : input.runs) {
    if (rg.run == nullptr || rg.graph.size() != rg.run->tasks.size()) {
      continue;
    }
    IdleSlotsEvidence evidence;
    for (TaskIndex t = 0; t < rg.run->tasks.size(); ++t) {
      const Pod* pod = taskPod(rg, t, cluster);
      if (pod == nullptr || !pod->isPendingUnscheduled()) {
        continue;
      }
      const auto ready = readySince(rg, t, *pod, cluster);
      const double wait = ready ? cluster.at() - *ready : 0.0;
      if (!ready || wait < params.min_ready_wait.count()) {
        continue;
      }
      std::vector<std::string> nodes = nodesWithRoom(cluster, pod->requests);
      if (nodes.empty()) {
        continue;
      }
      evidence.lost_slot_seconds += wait;
      evidence.ready_tasks.push_back(
          {rg.run->tasks[t].id, pod->namespace_, pod->name, wait, pod->requests, std::move(nodes)});
    }
    if (evidence.ready_tasks.empty()) {
      continue;
    }
    const model::WorkflowRun& run = *rg.run;
    evidence.scope = runScope(run);
    evidence.makespan_seconds = rg.makespan;
    evidence.whatif_makespan_seconds = rg.whatif_makespan;
    evidence.whatif = graph::readWhatIf(rg);
    const double lost = evidence.lost_slot_seconds;
    const std::string summary =
        formatText("%s: %zu ready task(s) pending %.0f s in all while nodes have room for them",
                   run.id().c_str(), evidence.ready_tasks.size(), lost);
    Finding finding = findingOf(std::move(evidence));
    finding.severity = Severity::kWarning;
    finding.target = "run/" + run.id();
    finding.summary = summary;
    finding.impact = lost;
    out.emit(std::move(finding));
  }
}

std::vector<config::Field> IdleSlotsSettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"min_ready_wait", &min_ready_wait, config::Rule::kNonNegative,
       "A ready task is reported once it has waited this long since its last parent finished."},
  };
}

}  // namespace dagadvisor::analysis
