#include "analysis/detectors/capacity_shortfall.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <tuple>

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::NodeId;
using model::Pod;
using model::PodId;
using model::ResourceVector;
using nlohmann::json;

constexpr std::size_t kMaxListedPods = CapacityShortfallEvidence::kMaxListedPods;

ResourceVector clampFree(const ResourceVector& v) {
  return {std::max<std::int64_t>(0, v.cpu_millis), std::max<std::int64_t>(0, v.memory_bytes),
          std::max<std::int64_t>(0, v.gpus)};
}

bool usable(const model::Node& node) {
  return !node.unschedulable && node.allocatable.cpu_millis > 0;
}

auto sizeKey(const ResourceVector& r) {
  return std::make_tuple(r.gpus, r.cpu_millis, r.memory_bytes);
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

// Pending pods that the scheduler has had its chance at: those at least min_age old (unknown age
// counts as old: the pod is pending now, whenever it was created), and, when the scheduler's own
// queues say more pods than those were tried and parked, as many younger ones, oldest first. A
// burst is then seen in its first minute, as soon as the scheduler has given up on its pods.
PendingSet pendingDecreasing(const ClusterSnapshot& cluster, double min_age) {
  PendingSet out;
  std::vector<PodId> young;
  for (PodId id : cluster.pendingPods()) {
    const Pod& pod = cluster.pod(id);
    if (!hasRequests(pod)) {
      continue;
    }
    const bool old = !pod.created || cluster.at() - *pod.created >= min_age;
    (old ? out.pods : young).push_back(id);
  }
  const std::size_t tried = triedByScheduler(cluster.scheduler());
  if (tried > out.pods.size() && !young.empty()) {
    std::stable_sort(young.begin(), young.end(), [&](PodId a, PodId b) {
      return *cluster.pod(a).created < *cluster.pod(b).created;
    });
    out.young = std::min(tried - out.pods.size(), young.size());
    out.pods.insert(out.pods.end(), young.begin(), young.begin() + out.young);
  }
  std::stable_sort(out.pods.begin(), out.pods.end(), [&](PodId a, PodId b) {
    return sizeKey(cluster.pod(a).requests) > sizeKey(cluster.pod(b).requests);
  });
  return out;
}

// First fit: the first bin with room takes the pod. True when one did.
bool firstFit(std::vector<ResourceVector>& bins, const ResourceVector& demand) {
  for (ResourceVector& bin : bins) {
    if (bin.fits(demand)) {
      bin -= demand;
      return true;
    }
  }
  return false;
}

struct Shape {
  ResourceVector allocatable;
  std::optional<std::string> pool;
  std::string example_node;
  std::int64_t missing = 0;
};

std::vector<Shape> nodeShapes(const ClusterSnapshot& cluster, const std::string& pool_label) {
  std::vector<Shape> shapes;
  for (const model::Node& node : cluster.nodes()) {
    if (!usable(node)) {
      continue;
    }
    auto pool = node.labels.get(pool_label);
    std::optional<std::string> pool_name =
        pool ? std::optional<std::string>(std::string(*pool)) : std::nullopt;
    const bool known = std::any_of(shapes.begin(), shapes.end(), [&](const Shape& s) {
      return s.allocatable == node.allocatable && s.pool == pool_name;
    });
    if (!known) {
      shapes.push_back({node.allocatable, pool_name, node.name, 0});
    }
  }
  // Smallest first, fewest GPUs first: a CPU pod opens a CPU node when one would hold it.
  std::stable_sort(shapes.begin(), shapes.end(), [](const Shape& a, const Shape& b) {
    return sizeKey(a.allocatable) < sizeKey(b.allocatable);
  });
  return shapes;
}

// Whether a new node of `shape` may take `demand`: it must fit, and a pod without GPUs keeps
// off GPU shapes whenever a GPU-free shape would hold it (the gpu-node-hoarding lesson).
bool mayTake(const Shape& shape, const ResourceVector& demand, bool cpu_shape_fits) {
  return shape.allocatable.fits(demand) &&
         (demand.gpus > 0 || shape.allocatable.gpus == 0 || !cpu_shape_fits);
}

// First-fit decreasing onto new, empty nodes: an opened node takes pods while they fit, else
// the smallest real shape that may take the pod is opened. Returns the nodes opened.
std::int64_t packOntoNewNodes(const ClusterSnapshot& cluster, const std::vector<PodId>& pods,
                              std::vector<Shape>& shapes, std::vector<std::string>& unplaceable) {
  std::vector<std::pair<std::size_t, ResourceVector>> opened;  // shape index, free
  std::int64_t count = 0;
  for (PodId id : pods) {
    const ResourceVector& r = cluster.pod(id).requests;
    const bool cpu_shape_fits = std::any_of(shapes.begin(), shapes.end(), [&](const Shape& s) {
      return s.allocatable.gpus == 0 && s.allocatable.fits(r);
    });
    auto room = std::find_if(opened.begin(), opened.end(), [&](const auto& node) {
      return node.second.fits(r) && mayTake(shapes[node.first], r, cpu_shape_fits);
    });
    if (room != opened.end()) {
      room->second -= r;
      continue;
    }
    auto shape = std::find_if(shapes.begin(), shapes.end(),
                              [&](const Shape& s) { return mayTake(s, r, cpu_shape_fits); });
    if (shape == shapes.end()) {
      if (unplaceable.size() < kMaxListedPods) {
        unplaceable.push_back(cluster.pod(id).key());
      }
      continue;
    }
    ++shape->missing;
    ++count;
    opened.emplace_back(static_cast<std::size_t>(shape - shapes.begin()), shape->allocatable - r);
  }
  return count;
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
                       {"count", s.count}});
  }
  return {{"pending_pods", pending_pods},
          {"young_pods_tried", young_pods_tried},
          {"pending_requests", resourcesJson(pending_requests)},
          {"free_capacity", resourcesJson(free_capacity)},
          {"short_resources", short_resources},
          {"unplaced_pods", unplaced_pods},
          {"unplaced", unplaced},
          {"missing_nodes", missing_nodes},
          {"missing_by_shape", std::move(missing)},
          {"unplaceable_pods", unplaceable_pods}};
}

const DetectorInfo& CapacityShortfall::info() const {
  static const DetectorInfo kInfo{
      CapacityShortfallEvidence::kKind,
      "Pending pods asking for more than the free capacity of all nodes together"};
  return kInfo;
}

void CapacityShortfall::analyze(const AnalysisInput& input, FindingSink& out) const {
  const auto& params = input.config.detectors.get<analysis::CapacityShortfallSettings>();
  const ClusterSnapshot& cluster = input.cluster;
  const PendingSet pending_set = pendingDecreasing(cluster, params.min_pending_age.count());
  const std::vector<PodId>& pending = pending_set.pods;
  std::vector<ResourceVector> bins;
  ResourceVector free_total;
  for (NodeId id = 0; id < cluster.nodes().size(); ++id) {
    if (usable(cluster.node(id))) {
      bins.push_back(clampFree(cluster.freeOn(id)));
      free_total += bins.back();
    }
  }
  ResourceVector demand;
  std::vector<PodId> unplaced;
  for (PodId id : pending) {
    demand += cluster.pod(id).requests;
    if (!firstFit(bins, cluster.pod(id).requests)) {
      unplaced.push_back(id);
    }
  }
  // No usable node means no node data, not a cluster without capacity.
  if (bins.empty()) {
    out.noAdvice("no schedulable node with allocatable CPU is known");
    return;
  }
  CapacityShortfallEvidence evidence;
  evidence.short_resources = shortResources(demand, free_total);
  const auto min_unplaced = static_cast<std::size_t>(params.min_unplaced_pods);
  if (evidence.short_resources.empty() || unplaced.size() < min_unplaced) {
    return;
  }
  std::vector<Shape> shapes = nodeShapes(cluster, input.config.cluster_labels.pool);
  evidence.missing_nodes = packOntoNewNodes(cluster, unplaced, shapes, evidence.unplaceable_pods);
  for (const Shape& s : shapes) {
    if (s.missing > 0) {
      evidence.missing_by_shape.push_back({s.allocatable, s.pool, s.example_node, s.missing});
    }
  }
  for (std::size_t i = 0; i < unplaced.size() && i < kMaxListedPods; ++i) {
    evidence.unplaced.push_back(cluster.pod(unplaced[i]).key());
  }
  evidence.pending_pods = pending.size();
  evidence.young_pods_tried = pending_set.young;
  evidence.pending_requests = demand;
  evidence.free_capacity = free_total;
  evidence.unplaced_pods = unplaced.size();
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%zu pending pod(s) ask for more %s than all nodes have free; %zu find no room; "
                "about %lld node(s) missing",
                pending.size(), json(evidence.short_resources).dump().c_str(), unplaced.size(),
                static_cast<long long>(evidence.missing_nodes));
  Finding finding = findingOf(std::move(evidence));
  finding.severity = Severity::kWarning;
  finding.target = "cluster/" + input.config.analysis.cluster;
  finding.summary = buf;
  finding.impact = static_cast<double>(unplaced.size());
  out.emit(std::move(finding));
}

std::vector<config::Field> CapacityShortfallSettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"min_pending_age", &min_pending_age, config::Rule::kNonNegative,
       "Pending pods younger than this are left out: the scheduler may not have tried them yet "
       "(unless its unschedulable + backoff queues hold more pods than the older ones)."},
      {"min_unplaced_pods", &min_unplaced_pods, config::Rule::kAtLeastOne,
       "Reported when at least this many pending pods find no room on the nodes' free capacity "
       "(packing the largest first), while the pending pods' requests exceed the free capacity of "
       "all nodes together in CPU, memory or GPUs."},
  };
}

}  // namespace dagadvisor::analysis
