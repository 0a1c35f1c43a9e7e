#include "analysis/detectors/idle_slots.h"

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
json nodesWithRoom(const ClusterSnapshot& cluster, const model::ResourceVector& demand) {
  json names = json::array();
  for (model::NodeId id = 0; id < cluster.nodes().size() && names.size() < kMaxListedNodes; ++id) {
    if (openToAll(cluster.node(id)) && cluster.freeOn(id).fits(demand)) {
      names.push_back(cluster.node(id).name);
    }
  }
  return names;
}

}  // namespace

const DetectorInfo& IdleSlots::info() const {
  static const DetectorInfo kInfo{"idle-slots",
                                  "Ready tasks pending while a node has room for them"};
  return kInfo;
}

void IdleSlots::analyze(const AnalysisInput& input, FindingSink& out) const {
  if (noRunsToJudge(input, out)) {
    return;
  }
  const auto& params = input.config.detectors.idle_slots;
  const ClusterSnapshot& cluster = input.cluster;
  for (const graph::RunGraph& rg : input.runs) {
    if (rg.run == nullptr || rg.graph.size() != rg.run->tasks.size()) {
      continue;
    }
    json tasks = json::array();
    double lost = 0;
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
      json nodes = nodesWithRoom(cluster, pod->requests);
      if (nodes.empty()) {
        continue;
      }
      lost += wait;
      tasks.push_back({{"task", rg.run->tasks[t].id},
                       {"namespace", pod->namespace_},
                       {"pod", pod->name},
                       {"ready_wait_seconds", wait},
                       {"cpu_millis", pod->requests.cpu_millis},
                       {"memory_bytes", pod->requests.memory_bytes},
                       {"gpus", pod->requests.gpus},
                       {"nodes_with_room", std::move(nodes)}});
    }
    if (tasks.empty()) {
      continue;
    }
    const model::WorkflowRun& run = *rg.run;
    Finding finding;
    finding.kind = std::string(info().kind);
    finding.severity = Severity::kWarning;
    finding.target = "run/" + run.id();
    finding.summary =
        formatText("%s: %zu ready task(s) pending %.0f s in all while nodes have room for them",
                   run.id().c_str(), tasks.size(), lost);
    finding.impact = lost;
    finding.evidence = {{"namespace", run.namespace_},
                        {"dag", run.dag},
                        {"run", run.run},
                        {"ready_tasks", std::move(tasks)},
                        {"lost_slot_seconds", lost},
                        {"makespan_seconds", rg.makespan}};
    if (rg.whatif_makespan) {
      finding.evidence["whatif_makespan_seconds"] = *rg.whatif_makespan;
    }
    out.emit(std::move(finding));
  }
}

}  // namespace dagadvisor::analysis
