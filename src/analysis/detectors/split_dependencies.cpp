#include "analysis/detectors/split_dependencies.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <set>
#include <utility>

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::Pod;
using model::TaskIndex;
using nlohmann::json;

constexpr std::size_t kMaxListedEdges = 20;

enum class Placement { kUnplaced, kSameNode, kSameZone, kCrossZone, kZoneUnknown };

struct Where {
  std::string node;                 // "" while unscheduled
  std::optional<std::string> zone;  // nullopt when the node or its zone label is unknown
};

struct Tally {
  std::size_t edges = 0;
  std::size_t unplaced = 0;
  std::size_t same_node = 0;
  std::size_t same_zone = 0;  // different nodes, same zone
  std::size_t cross_zone = 0;
  std::size_t zone_unknown = 0;  // different nodes, a zone not known
  double transfer_seconds = 0;
  std::size_t critical_split = 0;
  double critical_transfer_seconds = 0;
  json split_edges = json::array();

  std::size_t placed() const { return edges - unplaced; }
  std::size_t split() const { return same_zone + cross_zone + zone_unknown; }
};

Where whereRan(const ClusterSnapshot& cluster, model::PodId id, const std::string& zone_label) {
  if (id >= cluster.pods().size()) {
    return {};
  }
  const Pod& pod = cluster.pod(id);
  Where where{pod.node_name, std::nullopt};
  if (pod.node != model::kNoNode) {
    if (auto zone = cluster.node(pod.node).labels.get(zone_label); zone && !zone->empty()) {
      where.zone = std::string(*zone);
    }
  }
  return where;
}

Placement classify(const Where& a, const Where& b) {
  if (a.node.empty() || b.node.empty()) {
    return Placement::kUnplaced;
  }
  if (a.node == b.node) {
    return Placement::kSameNode;
  }
  if (!a.zone || !b.zone) {
    return Placement::kZoneUnknown;
  }
  return *a.zone == *b.zone ? Placement::kSameZone : Placement::kCrossZone;
}

// An unknown zone is costed as the same zone: a lower bound, never an invented cross-zone hop.
double transferCost(Placement placement, const config::SplitDependencies& params) {
  switch (placement) {
    case Placement::kSameNode:
      return params.same_node_transfer.count();
    case Placement::kCrossZone:
      return params.cross_zone_transfer.count();
    case Placement::kSameZone:
    case Placement::kZoneUnknown:
      return params.same_zone_transfer.count();
    case Placement::kUnplaced:
      break;
  }
  return 0;
}

std::set<std::pair<TaskIndex, TaskIndex>> criticalEdges(const graph::RunGraph& rg) {
  std::set<std::pair<TaskIndex, TaskIndex>> out;
  const auto& path = rg.critical_path.tasks;
  for (std::size_t i = 1; i < path.size(); ++i) {
    out.emplace(path[i - 1], path[i]);
  }
  return out;
}

void count(Placement placement, Tally& tally) {
  switch (placement) {
    case Placement::kUnplaced:
      ++tally.unplaced;
      break;
    case Placement::kSameNode:
      ++tally.same_node;
      break;
    case Placement::kSameZone:
      ++tally.same_zone;
      break;
    case Placement::kCrossZone:
      ++tally.cross_zone;
      break;
    case Placement::kZoneUnknown:
      ++tally.zone_unknown;
      break;
  }
}

json edgeJson(const model::WorkflowRun& run, TaskIndex parent, TaskIndex child, const Where& a,
              const Where& b, double seconds, bool critical) {
  return {{"parent", run.tasks[parent].id},
          {"child", run.tasks[child].id},
          {"parent_node", a.node},
          {"child_node", b.node},
          {"parent_zone", a.zone ? json(*a.zone) : json(nullptr)},
          {"child_zone", b.zone ? json(*b.zone) : json(nullptr)},
          {"transfer_seconds", seconds},
          {"critical", critical}};
}

Tally tallyRun(const graph::RunGraph& rg, const ClusterSnapshot& cluster,
               const config::SplitDependencies& params) {
  const model::WorkflowRun& run = *rg.run;
  const auto critical = criticalEdges(rg);
  Tally tally;
  // Plain records first, JSON for the listed few: most runs split many edges and list 10.
  struct Split {
    TaskIndex parent;
    TaskIndex child;
    Where a;
    Where b;
    double seconds;
    bool on_path;
  };
  std::vector<Split> split;
  for (TaskIndex parent = 0; parent < rg.graph.size(); ++parent) {
    const Where a = whereRan(cluster, run.tasks[parent].pod, params.zone_label);
    for (TaskIndex child : rg.graph.children(parent)) {
      ++tally.edges;
      const Where b = whereRan(cluster, run.tasks[child].pod, params.zone_label);
      const Placement placement = classify(a, b);
      count(placement, tally);
      const double seconds = transferCost(placement, params);
      tally.transfer_seconds += seconds;
      const bool on_path = critical.count({parent, child}) > 0;
      if (on_path) {
        tally.critical_transfer_seconds += seconds;
      }
      if (placement != Placement::kUnplaced && placement != Placement::kSameNode) {
        tally.critical_split += on_path ? 1 : 0;
        split.push_back({parent, child, a, b, seconds, on_path});
      }
    }
  }
  std::stable_sort(split.begin(), split.end(),
                   [](const Split& x, const Split& y) { return x.seconds > y.seconds; });
  for (std::size_t i = 0; i < split.size() && i < kMaxListedEdges; ++i) {
    const Split& e = split[i];
    tally.split_edges.push_back(edgeJson(run, e.parent, e.child, e.a, e.b, e.seconds, e.on_path));
  }
  return tally;
}

bool worthReporting(const Tally& tally, double share, const config::SplitDependencies& params) {
  const auto min_split = static_cast<std::size_t>(std::max(params.min_split_edges, 1));
  const auto min_cross = static_cast<std::size_t>(std::max(params.min_cross_zone_edges, 1));
  return tally.split() >= min_split &&
         (share >= params.min_split_share || tally.cross_zone >= min_cross);
}

std::string summaryLine(const model::WorkflowRun& run, const Tally& tally, double share) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "%s: %zu of %zu placed dependency edges split across nodes (%.0f%%), %zu across "
                "zones; about %.0f s of transfer, %.0f s on the critical path",
                run.id().c_str(), tally.split(), tally.placed(), share * 100, tally.cross_zone,
                tally.transfer_seconds, tally.critical_transfer_seconds);
  return buf;
}

}  // namespace

const DetectorInfo& SplitDependencies::info() const {
  static const DetectorInfo kInfo{
      "split-dependencies",
      "DAG runs whose parent and child tasks ran on different nodes or zones"};
  return kInfo;
}

void SplitDependencies::analyze(const AnalysisInput& input, FindingSink& out) const {
  const auto& params = input.config.detectors.split_dependencies;
  for (const graph::RunGraph& rg : input.runs) {
    if (rg.run == nullptr || rg.graph.size() != rg.run->tasks.size()) {
      continue;
    }
    const Tally tally = tallyRun(rg, input.cluster, params);
    if (tally.placed() == 0) {
      continue;
    }
    const double share = static_cast<double>(tally.split()) / static_cast<double>(tally.placed());
    if (!worthReporting(tally, share, params)) {
      continue;
    }
    const model::WorkflowRun& run = *rg.run;
    Finding finding;
    finding.kind = std::string(info().kind);
    finding.severity = tally.cross_zone > 0 ? Severity::kWarning : Severity::kInfo;
    finding.target = "run/" + run.id();
    finding.summary = summaryLine(run, tally, share);
    finding.impact = tally.transfer_seconds;
    finding.evidence = {{"namespace", run.namespace_},
                        {"dag", run.dag},
                        {"run", run.run},
                        {"engine", run.engine},
                        {"edges", tally.edges},
                        {"placed_edges", tally.placed()},
                        {"unplaced_edges", tally.unplaced},
                        {"same_node_edges", tally.same_node},
                        {"split_node_edges", tally.split()},
                        {"same_zone_split_edges", tally.same_zone},
                        {"cross_zone_edges", tally.cross_zone},
                        {"zone_unknown_edges", tally.zone_unknown},
                        {"split_share", share},
                        {"estimated_transfer_seconds", tally.transfer_seconds},
                        {"critical_path_split_edges", tally.critical_split},
                        {"critical_path_transfer_seconds", tally.critical_transfer_seconds},
                        {"split_edges", tally.split_edges}};
    out.emit(std::move(finding));
  }
}

}  // namespace dagadvisor::analysis
