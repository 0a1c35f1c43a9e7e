#include "analysis/detectors/split_dependencies.h"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/detectors/detector_util.h"

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::Pod;
using model::TaskIndex;
using nlohmann::json;

// Every split run is a finding, and on a large DAG-blind cluster most runs are split: the edge
// list is most of a finding's JSON, so it names only the costliest few.
constexpr std::size_t kMaxListedEdges = 5;
constexpr int kNoZone = -1;
constexpr TaskIndex kNoTask = std::numeric_limits<TaskIndex>::max();

enum class Placement { kUnplaced, kSameNode, kSameZone, kCrossZone, kZoneUnknown };

// Zones as small integers, one label lookup per node and cycle: edges then compare numbers.
struct ZoneIndex {
  std::vector<int> zone_of_node;  // by NodeId; kNoZone when unlabelled
  std::vector<std::string> names;
};

ZoneIndex indexZones(const ClusterSnapshot& cluster, const std::string& zone_label) {
  ZoneIndex index;
  std::unordered_map<std::string, int> ids;
  index.zone_of_node.reserve(cluster.nodes().size());
  for (const model::Node& node : cluster.nodes()) {
    const auto zone = node.labels.get(zone_label);
    if (!zone || zone->empty()) {
      index.zone_of_node.push_back(kNoZone);
      continue;
    }
    const auto [it, added] = ids.try_emplace(std::string(*zone), static_cast<int>(ids.size()));
    if (added) {
      index.names.push_back(it->first);
    }
    index.zone_of_node.push_back(it->second);
  }
  return index;
}

// Where a task's pod ran: a node of the snapshot, or only a node name when the node is gone.
struct Where {
  const Pod* pod = nullptr;  // nullptr when the task points past the snapshot's pods
  model::NodeId node = model::kNoNode;
  int zone = kNoZone;

  bool placed() const { return pod != nullptr && !pod->node_name.empty(); }
};

Where whereRan(const ClusterSnapshot& cluster, model::PodId id, const ZoneIndex& zones) {
  Where where;
  if (id >= cluster.pods().size()) {
    return where;
  }
  where.pod = &cluster.pod(id);
  where.node = where.pod->node;
  if (where.node != model::kNoNode && where.node < zones.zone_of_node.size()) {
    where.zone = zones.zone_of_node[where.node];
  }
  return where;
}

Placement classify(const Where& a, const Where& b) {
  if (!a.placed() || !b.placed()) {
    return Placement::kUnplaced;
  }
  // Node ids when both nodes are known; a node gone from the snapshot only has its name.
  const bool same_node = a.node != model::kNoNode && b.node != model::kNoNode
                             ? a.node == b.node
                             : a.pod->node_name == b.pod->node_name;
  if (same_node) {
    return Placement::kSameNode;
  }
  if (a.zone == kNoZone || b.zone == kNoZone) {
    return Placement::kZoneUnknown;
  }
  return a.zone == b.zone ? Placement::kSameZone : Placement::kCrossZone;
}

// An unknown zone is costed as the same zone: a lower bound, never an invented cross-zone hop.
double transferCost(Placement placement, const config::TransferModel& model) {
  switch (placement) {
    case Placement::kSameNode:
      return model.same_node.count();
    case Placement::kCrossZone:
      return model.cross_zone.count();
    case Placement::kSameZone:
    case Placement::kZoneUnknown:
      return model.same_zone.count();
    case Placement::kUnplaced:
      break;
  }
  return 0;
}

struct SplitEdge {
  TaskIndex parent;
  TaskIndex child;
  double seconds;
  bool critical;
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
  std::vector<SplitEdge> split_edges;

  std::size_t placed() const { return edges - unplaced; }
  std::size_t split() const { return same_zone + cross_zone + zone_unknown; }

  void count(Placement placement) {
    switch (placement) {
      case Placement::kUnplaced:
        ++unplaced;
        break;
      case Placement::kSameNode:
        ++same_node;
        break;
      case Placement::kSameZone:
        ++same_zone;
        break;
      case Placement::kCrossZone:
        ++cross_zone;
        break;
      case Placement::kZoneUnknown:
        ++zone_unknown;
        break;
    }
  }
};

// Buffers reused from run to run, so that a cycle allocates per run only what it reports.
struct Scratch {
  std::vector<Where> where;              // by task
  std::vector<TaskIndex> next_critical;  // by task: its successor on the critical path
};

void markCriticalPath(const graph::RunGraph& rg, Scratch& scratch) {
  scratch.next_critical.assign(rg.graph.size(), kNoTask);
  const auto& path = rg.critical_path.tasks;
  for (std::size_t i = 1; i < path.size(); ++i) {
    if (path[i - 1] < scratch.next_critical.size()) {
      scratch.next_critical[path[i - 1]] = path[i];
    }
  }
}

Tally tallyRun(const graph::RunGraph& rg, const ClusterSnapshot& cluster, const ZoneIndex& zones,
               const config::TransferModel& transfer, Scratch& scratch) {
  const model::WorkflowRun& run = *rg.run;
  scratch.where.clear();
  for (const model::Task& task : run.tasks) {
    scratch.where.push_back(whereRan(cluster, task.pod, zones));
  }
  markCriticalPath(rg, scratch);
  Tally tally;
  for (TaskIndex parent = 0; parent < rg.graph.size(); ++parent) {
    for (TaskIndex child : rg.graph.children(parent)) {
      ++tally.edges;
      const Placement placement = classify(scratch.where[parent], scratch.where[child]);
      tally.count(placement);
      const double seconds = transferCost(placement, transfer);
      tally.transfer_seconds += seconds;
      const bool critical = scratch.next_critical[parent] == child;
      if (critical) {
        tally.critical_transfer_seconds += seconds;
      }
      if (placement != Placement::kUnplaced && placement != Placement::kSameNode) {
        tally.critical_split += critical ? 1 : 0;
        tally.split_edges.push_back({parent, child, seconds, critical});
      }
    }
  }
  return tally;
}

bool worthReporting(const Tally& tally, double share,
                    const analysis::SplitDependenciesSettings& params) {
  const auto min_split = static_cast<std::size_t>(params.min_split_edges);
  const auto min_cross = static_cast<std::size_t>(params.min_cross_zone_edges);
  return tally.split() >= min_split &&
         (share >= params.min_split_share || tally.cross_zone >= min_cross) &&
         tally.transfer_seconds >= params.min_run_transfer.count();
}

std::optional<std::string> zoneName(const ZoneIndex& zones, int zone) {
  return zone == kNoZone ? std::nullopt
                         : std::optional(zones.names[static_cast<std::size_t>(zone)]);
}

// The costliest few only: most split runs split many edges.
std::vector<ListedSplitEdge> listedEdges(const model::WorkflowRun& run,
                                         std::vector<SplitEdge> edges, const Scratch& scratch,
                                         const ZoneIndex& zones) {
  const std::size_t listed = std::min(edges.size(), kMaxListedEdges);
  std::partial_sort(edges.begin(), edges.begin() + static_cast<std::ptrdiff_t>(listed), edges.end(),
                    [](const SplitEdge& x, const SplitEdge& y) {
                      return x.seconds != y.seconds
                                 ? x.seconds > y.seconds
                                 : std::pair(x.parent, x.child) < std::pair(y.parent, y.child);
                    });
  std::vector<ListedSplitEdge> out;
  for (std::size_t i = 0; i < listed; ++i) {
    const SplitEdge& e = edges[i];
    const Where& a = scratch.where[e.parent];
    const Where& b = scratch.where[e.child];
    out.push_back({run.tasks[e.parent].id, run.tasks[e.child].id, a.pod->node_name,
                   b.pod->node_name, zoneName(zones, a.zone), zoneName(zones, b.zone), e.seconds,
                   e.critical});
  }
  return out;
}

json optionalString(const std::optional<std::string>& value) {
  return value ? json(*value) : json(nullptr);
}

json edgeJson(const ListedSplitEdge& e) {
  return {{"parent", e.parent},
          {"child", e.child},
          {"parent_node", e.parent_node},
          {"child_node", e.child_node},
          {"parent_zone", optionalString(e.parent_zone)},
          {"child_zone", optionalString(e.child_zone)},
          {"transfer_seconds", e.transfer_seconds},
          {"critical", e.critical}};
}

std::string summaryLine(const std::string& run_id, const Tally& tally, double share) {
  return formatText(
      "%s: %zu of %zu placed dependency edges split across nodes (%.0f%%), %zu across zones; "
      "about %.0f s of transfer, %.0f s on the critical path",
      run_id.c_str(), tally.split(), tally.placed(), share * 100, tally.cross_zone,
      tally.transfer_seconds, tally.critical_transfer_seconds);
}

SplitDependenciesEvidence evidenceOf(const model::WorkflowRun& run, const Tally& tally,
                                     double share, std::vector<ListedSplitEdge> split_edges) {
  SplitDependenciesEvidence e;
  e.scope = runScope(run);
  e.engine = run.engine;
  e.edges = tally.edges;
  e.unplaced_edges = tally.unplaced;
  e.same_node_edges = tally.same_node;
  e.same_zone_split_edges = tally.same_zone;
  e.cross_zone_edges = tally.cross_zone;
  e.zone_unknown_edges = tally.zone_unknown;
  e.split_share = share;
  e.estimated_transfer_seconds = tally.transfer_seconds;
  e.critical_path_split_edges = tally.critical_split;
  e.critical_path_transfer_seconds = tally.critical_transfer_seconds;
  e.split_edges = std::move(split_edges);
  return e;
}

Finding makeFinding(const model::WorkflowRun& run, const Tally& tally, double share,
                    std::vector<ListedSplitEdge> split_edges) {
  Finding finding = findingOf(evidenceOf(run, tally, share, std::move(split_edges)));
  finding.severity = tally.cross_zone > 0 ? Severity::kWarning : Severity::kInfo;
  const std::string run_id = run.id();
  finding.target = "run/" + run_id;
  finding.summary = summaryLine(run_id, tally, share);
  finding.impact = tally.transfer_seconds;
  return finding;
}

}  // namespace

json SplitDependenciesEvidence::toJson() const {
  json edges_json = json::array();
  for (const ListedSplitEdge& e : split_edges) {
    edges_json.push_back(edgeJson(e));
  }
  json out = {{"engine", engine},
              {"edges", edges},
              {"placed_edges", placedEdges()},
              {"unplaced_edges", unplaced_edges},
              {"same_node_edges", same_node_edges},
              {"split_node_edges", splitNodeEdges()},
              {"same_zone_split_edges", same_zone_split_edges},
              {"cross_zone_edges", cross_zone_edges},
              {"zone_unknown_edges", zone_unknown_edges},
              {"split_share", split_share},
              {"estimated_transfer_seconds", estimated_transfer_seconds},
              {"critical_path_split_edges", critical_path_split_edges},
              {"critical_path_transfer_seconds", critical_path_transfer_seconds},
              {"split_edges", std::move(edges_json)}};
  scope.writeJson(out);
  return out;
}

const DetectorInfo& SplitDependencies::info() const {
  static const DetectorInfo kInfo{
      SplitDependenciesEvidence::kKind,
      "DAG runs whose parent and child tasks ran on different nodes or zones"};
  return kInfo;
}

void SplitDependencies::analyze(const AnalysisInput& input, FindingSink& out) const {
  if (noRunsToJudge(input, out)) {
    return;
  }
  const auto& params = input.config.detectors.get<analysis::SplitDependenciesSettings>();
  const ZoneIndex zones = indexZones(input.cluster, input.config.cluster_labels.zone);
  Scratch scratch;
  std::size_t placed_edges = 0;
  for (const graph::RunGraph& rg : input.runs) {
    if (rg.run == nullptr || rg.graph.size() != rg.run->tasks.size()) {
      continue;
    }
    Tally tally = tallyRun(rg, input.cluster, zones, input.config.analysis.transfer, scratch);
    placed_edges += tally.placed();
    if (tally.placed() == 0) {
      continue;
    }
    const double share = static_cast<double>(tally.split()) / static_cast<double>(tally.placed());
    if (worthReporting(tally, share, params)) {
      auto listed = listedEdges(*rg.run, std::move(tally.split_edges), scratch, zones);
      out.emit(makeFinding(*rg.run, tally, share, std::move(listed)));
    }
  }
  if (placed_edges == 0) {
    out.noAdvice("no dependency edge of any run has both its pods placed on a node");
  }
}

std::vector<config::Field> SplitDependenciesSettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"min_split_edges", &min_split_edges, config::Rule::kAtLeastOne,
       "A run is reported when at least this many of its dependencies (parent -> child) ran on two "
       "different nodes..."},
      {"min_split_share", &min_split_share, config::Rule::kShare,
       "...and they are at least this share of the dependencies whose two pods were placed (a "
       "number from 0 to 1)..."},
      {"min_cross_zone_edges", &min_cross_zone_edges, config::Rule::kAtLeastOne,
       "...or at least this many of them crossed zones, whatever the share."},
      {"min_run_transfer", &min_run_transfer, config::Rule::kNonNegative,
       "...and only when its split dependencies cost at least this much in all, by the transfer "
       "model (analysis.transfer): a few dependencies split by chance are not worth a change of "
       "pod templates. The zone label is cluster_labels.zone."},
  };
}

}  // namespace dagadvisor::analysis
