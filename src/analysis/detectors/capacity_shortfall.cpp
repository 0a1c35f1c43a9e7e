#include "analysis/detectors/capacity_shortfall.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <iterator>
#include <utility>

#include "analysis/detectors/detector_util.h"
#include "analysis/new_node_packing.h"
#include "analysis/node_eligibility.h"

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::Pod;
using model::PodId;
using model::ResourceVector;
using nlohmann::json;

constexpr std::size_t kMaxListedPods = CapacityShortfallEvidence::kMaxListedPods;

bool usable(const model::Node& node) {
  return !node.unschedulable && node.allocatable.cpu_millis > 0;
}

// ⌈need / per_node⌉ for each resource needed, the largest: no packing needs fewer nodes.
std::int64_t resourceSumBound(const ResourceVector& need, const ResourceVector& per_node) {
  std::int64_t bound = 0;
  const std::array<std::pair<std::int64_t, std::int64_t>, 3> parts = {
      {{need.cpu_millis, per_node.cpu_millis},
       {need.memory_bytes, per_node.memory_bytes},
       {need.gpus, per_node.gpus}}};
  for (const auto& [n, per] : parts) {
    if (n > 0 && per > 0) {
      bound = std::max(bound, (n + per - 1) / per);
    }
  }
  return bound;
}

bool hasRequests(const Pod& pod) {
  return pod.requests.cpu_millis > 0 || pod.requests.memory_bytes > 0 || pod.requests.gpus > 0;
}

// Pods the scheduler reports as tried and parked: its unschedulable and backoff queues.
std::size_t triedByScheduler(const model::SchedulerStats& stats) {
  if (!stats.present) {
    return 0;
  }
  double tried = 0;
  for (const char* queue : {"unschedulable", "backoff"}) {
    const auto it = stats.pending_by_queue.find(queue);
    tried += it == stats.pending_by_queue.end() ? 0.0 : std::max(0.0, it->second);
  }
  return static_cast<std::size_t>(tried);
}

struct PendingSet {
  std::vector<PodId> pods;  // largest first (GPUs, then CPU, then memory)
  std::size_t young = 0;    // of them, younger than min_pending_age
};

// The capacity-blocked pods that the scheduler has had its chance at: those at least min_age old
// (unknown age counts as old: the pod is pending now, whenever it was created), and, when the
// scheduler's own queues say more pods than those were tried and parked, as many younger ones,
// oldest first. A burst is then seen in its first minute, as soon as the scheduler has given up
// on its pods.
PendingSet sizedDecreasing(const ClusterSnapshot& cluster, const std::vector<PodId>& blocked,
                           double min_age) {
  const auto old = [&](const Pod& pod) {
    return !pod.created || cluster.at() - *pod.created >= min_age;
  };
  // The scheduler's queues hold the old pending pods of every cause, not only these.
  const auto old_pending = static_cast<std::size_t>(std::count_if(
      cluster.pendingPods().begin(), cluster.pendingPods().end(),
      [&](PodId id) { return hasRequests(cluster.pod(id)) && old(cluster.pod(id)); }));
  PendingSet out;
  std::vector<PodId> young;
  for (PodId id : blocked) {
    const Pod& pod = cluster.pod(id);
    if (hasRequests(pod)) {
      (old(pod) ? out.pods : young).push_back(id);
    }
  }
  const std::size_t tried = triedByScheduler(cluster.scheduler());
  if (tried > old_pending && !young.empty()) {
    std::stable_sort(young.begin(), young.end(), [&](PodId a, PodId b) {
      return *cluster.pod(a).created < *cluster.pod(b).created;
    });
    out.young = std::min(tried - old_pending, young.size());
    out.pods.insert(out.pods.end(), young.begin(), young.begin() + out.young);
  }
  std::stable_sort(out.pods.begin(), out.pods.end(), [&](PodId a, PodId b) {
    return model::largerFirst(cluster.pod(a).requests, cluster.pod(b).requests);
  });
  return out;
}

json resourcesJson(const ResourceVector& r) {
  return {{"cpu_millis", r.cpu_millis}, {"memory_bytes", r.memory_bytes}, {"gpus", r.gpus}};
}

std::vector<std::string> shortResources(const ResourceVector& demand, const ResourceVector& free) {
  std::vector<std::string> out;
  if (demand.cpu_millis > free.cpu_millis) {
    out.push_back("cpu");
  }
  if (demand.memory_bytes > free.memory_bytes) {
    out.push_back("memory");
  }
  if (demand.gpus > free.gpus) {
    out.push_back("gpu");
  }
  return out;
}

}  // namespace

json CapacityShortfallEvidence::toJson() const {
  json missing = json::array();
  for (const MissingNodeShape& s : missing_by_shape) {
    missing.push_back({{"shape", resourcesJson(s.allocatable)},
                       {"pool", s.pool ? json(*s.pool) : json(nullptr)},
                       {"example_node", s.example_node},
                       {"count", s.count},
                       {"lower_bound", s.lower_bound}});
  }
  return {{"capacity_blocked_pods", capacity_blocked_pods},
          {"sized_pods", sized_pods},
          {"young_pods_tried", young_pods_tried},
          {"sized_requests", resourcesJson(sized_requests)},
          {"free_capacity", resourcesJson(free_capacity)},
          {"short_resources", short_resources},
          {"pods", pods},
          {"missing_nodes", missing_nodes},
          {"missing_nodes_lower_bound", missing_nodes_lower_bound},
          {"missing_by_shape", std::move(missing)},
          {"unplaceable_pods", unplaceable_pods},
          {"unplaceable_total", unplaceable_total},
          {"diagnosis", diagnosis.toJson()}};
}

const DetectorInfo& CapacityShortfall::info() const {
  static const DetectorInfo kInfo{
      CapacityShortfallEvidence::kKind,
      "Pending pods that no node, repacking or move can hold: nodes are missing"};
  return kInfo;
}

namespace {

// The part of the packed pods' demand that no repacking of the existing nodes can hold, and,
// per resource, how many of those pods ask for more than half of the most a shape offers (no two
// of them share a node). The usable nodes hold at most `slots` pods of a shape (each node's
// allocatable minus its DaemonSets), `bound` of them run there and the diagnosis places its
// queued, hoarding and fragmentation pods of the shape there too: in any placement of them all,
// the rest of the shape's pods are on new nodes. Free room on nodes that cannot hold the shape
// does not help it.
struct ForcedDemand {
  ResourceVector requests;
  ResourceVector big_pods;  // per resource: the pods asking for more than half of the largest
};

ForcedDemand forcedOntoNewNodes(const ClusterSnapshot& cluster, const PendingDiagnosis& diagnosis,
                                const std::vector<PodId>& packed_pods,
                                const ResourceVector& largest) {
  ForcedDemand out;
  for (const PendingShapeDiagnosis& shape : diagnosis.shapes) {
    const auto packed = static_cast<std::int64_t>(
        std::count_if(packed_pods.begin(), packed_pods.end(),
                      [&](PodId id) { return cluster.pod(id).requests == shape.requests; }));
    if (packed == 0) {
      continue;
    }
    const auto placed_by_diagnosis = static_cast<std::int64_t>(
        shape.by_cause[static_cast<std::size_t>(PendingCause::kQueue)] +
        shape.by_cause[static_cast<std::size_t>(PendingCause::kHoarding)] +
        shape.by_cause[static_cast<std::size_t>(PendingCause::kFragmentation)]);
    const std::int64_t forced = std::clamp<std::int64_t>(
        shape.bound + placed_by_diagnosis + packed - shape.slots, 0, packed);
    const ResourceVector& r = shape.requests;
    out.requests += {r.cpu_millis * forced, r.memory_bytes * forced, r.gpus * forced};
    const auto big = [&](std::int64_t need, std::int64_t most) {
      return 2 * need > most ? forced : 0;
    };
    out.big_pods += {big(r.cpu_millis, largest.cpu_millis),
                     big(r.memory_bytes, largest.memory_bytes), big(r.gpus, largest.gpus)};
  }
  return out;
}

// Sizes the new nodes as the cluster autoscaler would scale up (new_node_packing.h), and the
// bounds. The count is achievable, so it is an upper bound on what is needed. The lower bound
// relaxes everything but the resource sums: the pods no repacking places on the existing nodes
// (forcedOntoNewNodes) need new nodes for all they ask, the others may use what the existing
// nodes have left (free_capacity) and no more, and no new node offers more of a resource than
// the largest capacity of a shape some of them may land on (a shape none may use is never worth
// opening); nor can fewer nodes hold the pods large in one resource, one each. No packing needs
// fewer.
void sizeMissingNodes(const ClusterSnapshot& cluster, const PendingDiagnosis& diagnosis,
                      const std::vector<PodId>& pods, const std::string& pool_label,
                      CapacityShortfallEvidence& e) {
  const NodeEligibility eligibility(cluster, DiagnosisOptions{}.gpu_taint_key);
  const std::vector<NodeShape> shapes = nodeShapes(cluster, eligibility, pool_label);
  const NewNodePlan plan = packOntoNewNodes(cluster, eligibility, shapes, pods);
  e.missing_nodes = plan.nodes;
  ResourceVector packed;
  for (std::size_t s = 0; s < shapes.size(); ++s) {
    const NewNodesOfShape& opened = plan.by_shape[s];
    packed += opened.packed;
    if (opened.count > 0) {
      e.missing_by_shape.push_back({shapes[s].allocatable, shapes[s].pool,
                                    cluster.node(shapes[s].example).name, opened.count,
                                    resourceSumBound(opened.packed, shapes[s].capacity)});
    }
  }
  std::vector<PodId> packed_pods;
  std::copy_if(pods.begin(), pods.end(), std::back_inserter(packed_pods), [&](PodId id) {
    return std::find(plan.unplaceable.begin(), plan.unplaceable.end(), id) ==
           plan.unplaceable.end();
  });
  const ForcedDemand forced =
      forcedOntoNewNodes(cluster, diagnosis, packed_pods, plan.largest_capacity);
  const ResourceVector beyond_free =
      forced.requests + model::nonNegative(packed - forced.requests - e.free_capacity);
  e.missing_nodes_lower_bound =
      std::max({resourceSumBound(beyond_free, plan.largest_capacity), forced.big_pods.cpu_millis,
                forced.big_pods.memory_bytes, forced.big_pods.gpus});
  e.unplaceable_total = plan.unplaceable.size();
  for (std::size_t i = 0; i < std::min(plan.unplaceable.size(), kMaxListedPods); ++i) {
    e.unplaceable_pods.push_back(cluster.pod(plan.unplaceable[i]).key());
  }
}

}  // namespace

void CapacityShortfall::analyze(const AnalysisInput& input, FindingSink& out) const {
  const auto& params = input.config.detectors.get<analysis::CapacityShortfallSettings>();
  const ClusterSnapshot& cluster = input.cluster;
  const bool any_usable = std::any_of(cluster.nodes().begin(), cluster.nodes().end(), usable);
  // No usable node means no node data, not a cluster without capacity.
  if (!any_usable) {
    out.noAdvice("no schedulable node with allocatable CPU is known");
    return;
  }
  const PendingDiagnosis& diagnosis = input.pendingDiagnosis();
  const std::vector<PodId> blocked = diagnosis.podsOf(PendingCause::kCapacity);
  const PendingSet sized = sizedDecreasing(cluster, blocked, params.min_pending_age.count());
  const auto min_pods = static_cast<std::size_t>(std::max(1, params.min_unplaced_pods));
  if (sized.pods.size() < min_pods) {
    return;
  }
  CapacityShortfallEvidence e;
  e.capacity_blocked_pods = blocked.size();
  e.sized_pods = sized.pods.size();
  e.young_pods_tried = sized.young;
  e.free_capacity = diagnosis.pool_left;
  e.diagnosis = diagnosis.summary();
  for (PodId id : sized.pods) {
    e.sized_requests += cluster.pod(id).requests;
    if (e.pods.size() < kMaxListedPods) {
      e.pods.push_back(cluster.pod(id).key());
    }
  }
  e.short_resources = shortResources(e.sized_requests, e.free_capacity);
  sizeMissingNodes(cluster, diagnosis, sized.pods, input.config.cluster_labels.pool, e);
  const std::string nodes =
      e.missing_nodes_lower_bound == e.missing_nodes
          ? std::to_string(e.missing_nodes)
          : std::to_string(e.missing_nodes_lower_bound) + " to " + std::to_string(e.missing_nodes);
  const std::string summary = formatText(
      "%zu pending pod(s) fit no node, even pooled after the hoarding moves and repacking; %s "
      "node(s) missing",
      e.sized_pods, nodes.c_str());
  const auto impact = static_cast<double>(e.sized_pods);
  Finding finding = findingOf(std::move(e));
  finding.severity = Severity::kWarning;
  finding.target = "cluster/" + input.config.analysis.cluster;
  finding.summary = summary;
  finding.impact = impact;
  out.emit(std::move(finding));
}

std::vector<config::Field> CapacityShortfallSettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"min_pending_age", &min_pending_age, config::Rule::kNonNegative,
       "Pending pods younger than this are left out: the scheduler may not have tried them yet "
       "(unless its unschedulable + backoff queues hold more pods than the older ones)."},
      {"min_unplaced_pods", &min_unplaced_pods, config::Rule::kAtLeastOne,
       "Reported when at least this many pending pods are capacity-blocked: they fit no node even "
       "after the moves of the hoarding advice and a repacking of the free capacity (see the "
       "pending diagnosis in docs/findings.md)."},
  };
}

}  // namespace dagadvisor::analysis
