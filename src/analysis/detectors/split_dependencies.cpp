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
#include "analysis/transfer_measurement.h"
#include "analysis/transfer_prices.h"

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::Pod;
using model::TaskIndex;
using nlohmann::json;

// Every split run is a finding, and on a large DAG-blind cluster most runs are split: the edge
// list is most of a finding's JSON, so it names only the costliest few.
constexpr std::size_t kMaxListedEdges = 5;
constexpr std::size_t kMaxListedTasks = 5;
constexpr int kNoZone = ZoneIndex::kNoZone;
constexpr TaskIndex kNoTask = std::numeric_limits<TaskIndex>::max();

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
  std::size_t sequential = 0;
  std::size_t inferred = 0;
  double transfer_seconds = 0;  // modelled
  std::size_t critical_split = 0;
  double critical_transfer_seconds = 0;
  std::vector<SplitEdge> split_edges;
  std::vector<TaskIndex> crossing_children;  // children with a parent in another zone, once each

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
  std::vector<std::pair<TaskIndex, TaskIndex>> inferred;  // edges guessed from timing, sorted
};

void collectInferred(const model::WorkflowRun& run, Scratch& scratch) {
  scratch.inferred.clear();
  for (const model::Edge& e : run.edges) {
    if (e.inferred) {
      scratch.inferred.emplace_back(e.parent, e.child);
    }
  }
  std::sort(scratch.inferred.begin(), scratch.inferred.end());
}

void markCriticalPath(const graph::RunGraph& rg, Scratch& scratch) {
  scratch.next_critical.assign(rg.graph.size(), kNoTask);
  const auto& path = rg.critical_path.tasks;
  for (std::size_t i = 1; i < path.size(); ++i) {
    if (path[i - 1] < scratch.next_critical.size()) {
      scratch.next_critical[path[i - 1]] = path[i];
    }
  }
}

// The parent had finished when the child was scheduled: only a choice made before the child
// exists (its zone per run) can place it near the parent's output.
bool sequential(const Where& parent, const Where& child) {
  return parent.pod->finished && child.pod->scheduled &&
         *parent.pod->finished <= *child.pod->scheduled;
}

void countSplit(Tally& tally, const Scratch& scratch, TaskIndex parent, TaskIndex child,
                Placement placement, double seconds) {
  const bool critical = scratch.next_critical[parent] == child;
  tally.critical_split += critical ? 1 : 0;
  tally.sequential += sequential(scratch.where[parent], scratch.where[child]) ? 1 : 0;
  tally.inferred +=
      std::binary_search(scratch.inferred.begin(), scratch.inferred.end(), std::pair(parent, child))
          ? 1
          : 0;
  tally.split_edges.push_back({parent, child, seconds, critical});
  if (placement == Placement::kCrossZone &&
      (tally.crossing_children.empty() || tally.crossing_children.back() != child)) {
    tally.crossing_children.push_back(child);
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
  collectInferred(run, scratch);
  Tally tally;
  for (TaskIndex parent = 0; parent < rg.graph.size(); ++parent) {
    for (TaskIndex child : rg.graph.children(parent)) {
      ++tally.edges;
      const Placement placement = classify(scratch.where[parent], scratch.where[child]);
      tally.count(placement);
      const double seconds = transferCost(placement, transfer);
      tally.transfer_seconds += seconds;
      if (scratch.next_critical[parent] == child) {
        tally.critical_transfer_seconds += seconds;
      }
      if (placement != Placement::kUnplaced && placement != Placement::kSameNode) {
        countSplit(tally, scratch, parent, child, placement, seconds);
      }
    }
  }
  std::sort(tally.crossing_children.begin(), tally.crossing_children.end());
  tally.crossing_children.erase(
      std::unique(tally.crossing_children.begin(), tally.crossing_children.end()),
      tally.crossing_children.end());
  return tally;
}

// What the DAG's runs say the run's zone crossings cost.
struct Measured {
  std::size_t measured_tasks = 0;
  std::size_t slowed_tasks = 0;
  double seconds = 0;
  std::vector<ListedCrossingTask> tasks;
};

Measured measuredCrossings(const model::WorkflowRun& run, const Tally& tally,
                           const CrossingMeasurements& crossings) {
  Measured out;
  for (TaskIndex child : tally.crossing_children) {
    const auto it = crossings.find(taskKey(run, child));
    if (it == crossings.end() || !it->second.measured()) {
      continue;
    }
    const MeasuredCrossing& m = it->second;
    ++out.measured_tasks;
    out.slowed_tasks += m.costSeconds() > 0 ? 1 : 0;
    out.seconds += m.costSeconds();
    out.tasks.push_back({run.tasks[child].id, m.in_zone_samples, m.cross_zone_samples,
                         m.shift_seconds, m.p_value, m.costSeconds()});
  }
  std::sort(out.tasks.begin(), out.tasks.end(),
            [](const ListedCrossingTask& x, const ListedCrossingTask& y) {
              return x.cost_seconds != y.cost_seconds ? x.cost_seconds > y.cost_seconds
                                                      : x.task < y.task;
            });
  out.tasks.resize(std::min(out.tasks.size(), kMaxListedTasks));
  return out;
}

// The run's edges across zones at the measured hand-off prices, where the child's received
// bytes are known: its bytes are shared evenly by its parents, as the replay charges them.
void priceCrossings(const graph::RunGraph& rg, const ClusterSnapshot& cluster,
                    const Scratch& scratch, const TransferPrices& prices,
                    SplitDependenciesEvidence& e) {
  if (!prices.measured()) {
    return;
  }
  const double extra_per_gb = prices.cross_zone.seconds_per_gb - prices.same_zone.seconds_per_gb;
  for (TaskIndex parent = 0; parent < rg.graph.size(); ++parent) {
    for (TaskIndex child : rg.graph.children(parent)) {
      const model::NetworkReceive* received = cluster.networkReceive(rg.run->tasks[child].pod);
      if (received == nullptr ||
          classify(scratch.where[parent], scratch.where[child]) != Placement::kCrossZone ||
          rg.run->hasInferredParent(child)) {  // last: it scans the run's edges
        continue;
      }
      const double gb =
          received->bytes / kBytesPerGb / static_cast<double>(rg.graph.parents(child).size());
      ++e.priced_cross_zone_edges;
      e.priced_crossing_seconds += gb * std::max(0.0, extra_per_gb);
    }
  }
}

TransferBasis basisOf(const Tally& tally, const Measured& measured) {
  if (measured.measured_tasks == 0) {
    return TransferBasis::kModelled;
  }
  return measured.measured_tasks == tally.crossing_children.size() ? TransferBasis::kMeasured
                                                                   : TransferBasis::kPartlyMeasured;
}

bool worthReporting(const Tally& tally, double share, const Measured& measured,
                    const analysis::SplitDependenciesSettings& params) {
  const auto min_split = static_cast<std::size_t>(params.min_split_edges);
  const auto min_cross = static_cast<std::size_t>(params.min_cross_zone_edges);
  const double floor = params.min_run_transfer.count();
  return tally.split() >= min_split &&
         (share >= params.min_split_share || tally.cross_zone >= min_cross) &&
         (tally.transfer_seconds >= floor || measured.seconds >= floor);
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
          {"modelled_transfer_seconds", e.transfer_seconds},
          {"critical", e.critical}};
}

json crossingJson(const ListedCrossingTask& t) {
  return {{"task", t.task},
          {"in_zone_runs", t.in_zone_runs},
          {"cross_zone_runs", t.cross_zone_runs},
          {"shift_seconds", t.shift_seconds},
          {"p_value", t.p_value},
          {"measured_cost_seconds", t.cost_seconds}};
}

// The measured part of the summary: what the runs show, or that they show nothing yet.
std::string measuredText(const SplitDependenciesEvidence& e) {
  if (e.cross_zone_tasks == 0) {
    return "no zone crossed, nothing to measure";
  }
  if (e.measured_tasks == 0) {
    return formatText(
        "transfer cost unmeasured: no task of the %zu with a parent in another zone "
        "has %zu finished runs on each side (in zone, across zones)",
        e.cross_zone_tasks, kMinCrossingSamples);
  }
  return formatText(
      "measured: %.0f s of slowdown (%zu of %zu measured task(s) slower when a "
      "parent ran in another zone; %zu of %zu task(s) measured)",
      e.measured_transfer_seconds, e.slowed_tasks, e.measured_tasks, e.measured_tasks,
      e.cross_zone_tasks);
}

// What the priced hand-offs say, when the cluster's received bytes priced any of its crossings.
std::string pricedText(const SplitDependenciesEvidence& e) {
  if (e.priced_cross_zone_edges == 0) {
    return "";
  }
  return formatText(
      "; priced from the received bytes: %.0f s more than within a zone (%zu of %zu "
      "edge(s) across zones)",
      e.priced_crossing_seconds, e.priced_cross_zone_edges, e.cross_zone_edges);
}

std::string summaryLine(const std::string& run_id, const SplitDependenciesEvidence& e) {
  return formatText(
      "%s: %zu of %zu placed dependency edges split across nodes (%.0f%%), %zu across zones; "
      "%s%s; modelled: %.0f s of transfer, %.0f s on the critical path",
      run_id.c_str(), e.splitNodeEdges(), e.placedEdges(), e.split_share * 100, e.cross_zone_edges,
      measuredText(e).c_str(), pricedText(e).c_str(), e.modelled_transfer_seconds,
      e.critical_path_modelled_transfer_seconds);
}

SplitDependenciesEvidence evidenceOf(const model::WorkflowRun& run, const Tally& tally,
                                     double share, Measured measured) {
  SplitDependenciesEvidence e;
  e.scope = runScope(run);
  e.edges = tally.edges;
  e.unplaced_edges = tally.unplaced;
  e.same_node_edges = tally.same_node;
  e.same_zone_split_edges = tally.same_zone;
  e.cross_zone_edges = tally.cross_zone;
  e.zone_unknown_edges = tally.zone_unknown;
  e.sequential_split_edges = tally.sequential;
  e.inferred_split_edges = tally.inferred;
  e.split_share = share;
  e.modelled_transfer_seconds = tally.transfer_seconds;
  e.critical_path_split_edges = tally.critical_split;
  e.critical_path_modelled_transfer_seconds = tally.critical_transfer_seconds;
  e.cross_zone_tasks = tally.crossing_children.size();
  e.measured_tasks = measured.measured_tasks;
  e.slowed_tasks = measured.slowed_tasks;
  e.measured_transfer_seconds = measured.seconds;
  e.basis = basisOf(tally, measured);
  e.crossing_tasks = std::move(measured.tasks);
  return e;
}

// A warning needs the runs to show the slowdown: the modelled cost alone ranks as info.
Finding makeFinding(const model::WorkflowRun& run, SplitDependenciesEvidence evidence,
                    const analysis::SplitDependenciesSettings& params) {
  const bool measured_slow = evidence.measured_transfer_seconds > 0 &&
                             evidence.measured_transfer_seconds >= params.min_run_transfer.count();
  const std::string run_id = run.id();
  const std::string summary = summaryLine(run_id, evidence);
  const double impact =
      measured_slow ? evidence.measured_transfer_seconds : evidence.modelled_transfer_seconds;
  Finding finding = findingOf(std::move(evidence));
  finding.severity = measured_slow ? Severity::kWarning : Severity::kInfo;
  finding.target = "run/" + run_id;
  finding.summary = summary;
  finding.impact = impact;
  return finding;
}

}  // namespace

std::string_view transferBasisName(TransferBasis basis) {
  switch (basis) {
    case TransferBasis::kMeasured:
      return "measured";
    case TransferBasis::kPartlyMeasured:
      return "partly_measured";
    case TransferBasis::kModelled:
      break;
  }
  return "modelled";
}

json SplitDependenciesEvidence::toJson() const {
  json out = {{"edges", edges},
              {"placed_edges", placedEdges()},
              {"unplaced_edges", unplaced_edges},
              {"same_node_edges", same_node_edges},
              {"split_node_edges", splitNodeEdges()},
              {"same_zone_split_edges", same_zone_split_edges},
              {"cross_zone_edges", cross_zone_edges},
              {"zone_unknown_edges", zone_unknown_edges},
              {"sequential_split_edges", sequential_split_edges},
              {"inferred_split_edges", inferred_split_edges},
              {"split_share", split_share},
              {"modelled_transfer_seconds", modelled_transfer_seconds},
              {"critical_path_split_edges", critical_path_split_edges},
              {"critical_path_modelled_transfer_seconds", critical_path_modelled_transfer_seconds},
              {"cross_zone_tasks", cross_zone_tasks},
              {"measured_tasks", measured_tasks},
              {"slowed_tasks", slowed_tasks},
              {"measured_transfer_seconds", measured_transfer_seconds},
              {"transfer_basis", std::string(transferBasisName(basis))},
              {"priced_cross_zone_edges", priced_cross_zone_edges},
              {"priced_crossing_seconds", priced_crossing_seconds},
              {"split_edges", jsonArrayOf(split_edges, edgeJson)},
              {"crossing_tasks", jsonArrayOf(crossing_tasks, crossingJson)}};
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
  const ZoneIndex zones = ZoneIndex::of(input.cluster, input.config.cluster_labels.zone);
  const CrossingMeasurements crossings = measureCrossings(input.runs, input.cluster, zones);
  const TransferPrices prices = measureTransferPrices(input.runs, input.cluster, zones);
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
    Measured measured = measuredCrossings(*rg.run, tally, crossings);
    if (worthReporting(tally, share, measured, params)) {
      SplitDependenciesEvidence evidence = evidenceOf(*rg.run, tally, share, std::move(measured));
      priceCrossings(rg, input.cluster, scratch, prices, evidence);
      evidence.split_edges = listedEdges(*rg.run, std::move(tally.split_edges), scratch, zones);
      out.emit(makeFinding(*rg.run, std::move(evidence), params));
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
       "model (analysis.transfer) or as measured from the DAG's runs; a warning needs the "
       "measured slowdown to reach it. The zone label is cluster_labels.zone."},
  };
}

}  // namespace dagadvisor::analysis
