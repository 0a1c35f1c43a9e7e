#include "analysis/detectors/stranded_resources.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <tuple>

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::NodeId;
using model::ResourceVector;
using nlohmann::json;

constexpr std::array<const char*, 3> kResourceNames = {"cpu", "memory", "gpu"};
constexpr std::array<const char*, 3> kFreeKeys = {"free_cpu_millis", "free_memory_bytes",
                                                  "free_gpus"};

std::array<std::int64_t, 3> components(const ResourceVector& v) {
  return {v.cpu_millis, v.memory_bytes, v.gpus};
}

bool usable(const model::Node& node) {
  return !node.unschedulable && node.allocatable.cpu_millis > 0 &&
         node.allocatable.memory_bytes > 0;
}

// Stranding on one node: resources it has that no pod can get because another is used up.
void reportNode(const ClusterSnapshot& cluster, NodeId id, const config::StrandedResources& params,
                const std::string& kind, FindingSink& out) {
  const model::Node& node = cluster.node(id);
  const auto alloc = components(node.allocatable);
  const auto free = components(cluster.freeOn(id));
  std::array<double, 3> share{};
  json exhausted = json::array();
  for (std::size_t r = 0; r < 3; ++r) {
    share[r] = alloc[r] > 0 ? std::max<double>(0, free[r]) / static_cast<double>(alloc[r]) : 0;
    if (alloc[r] > 0 && share[r] <= params.max_exhausted_free_share) {
      exhausted.push_back(kResourceNames[r]);
    }
  }
  if (exhausted.empty()) {
    return;
  }
  json stranded = json::object();
  double node_units = 0;
  for (std::size_t r = 0; r < 3; ++r) {
    if (alloc[r] > 0 && share[r] >= params.min_stranded_share &&
        share[r] > params.max_exhausted_free_share) {
      stranded[kFreeKeys[r]] = free[r];
      node_units += share[r];
    }
  }
  if (stranded.empty()) {
    return;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s: %s exhausted while %.2f node-resource units sit free",
                node.name.c_str(), exhausted.dump().c_str(), node_units);
  Finding finding;
  finding.kind = kind;
  finding.severity = stranded.contains("free_gpus") ? Severity::kWarning : Severity::kInfo;
  finding.target = "node/" + node.name;
  finding.summary = buf;
  finding.impact = node_units;
  finding.evidence = {{"scope", "node"},
                      {"node", node.name},
                      {"exhausted", exhausted},
                      {"stranded", stranded},
                      {"stranded_node_units", node_units},
                      {"free_share", {{"cpu", share[0]}, {"memory", share[1]}, {"gpu", share[2]}}}};
  out.emit(std::move(finding));
}

// How many pods of `shape` fit in `free`: the tightest resource decides; unrequested ones do not.
std::int64_t fitCount(const ResourceVector& free, const ResourceVector& shape) {
  std::int64_t fit = std::numeric_limits<std::int64_t>::max();
  const auto f = components(free);
  const auto s = components(shape);
  for (std::size_t r = 0; r < 3; ++r) {
    if (s[r] > 0) {
      fit = std::min(fit, std::max<std::int64_t>(0, f[r]) / s[r]);
    }
  }
  return fit;
}

struct ShapeFit {
  std::size_t pending = 0;
  std::int64_t fit = 0;     // Σ_n fit_n(s): hole filling over the nodes
  std::int64_t pooled = 0;  // as if the cluster were one node
  // Σ_n pods of the shape node n holds at most besides its DaemonSet pods, and the pods of the
  // shape bound now: slots − bound bounds what any repacking could still place.
  std::int64_t slots = 0;
  std::int64_t bound = 0;
  // Of the pending pods: those the pooled capacity holds once the larger shapes took theirs
  // while no single node has room (fragmentation), and those it cannot hold (capacity).
  std::size_t fragmentation_blocked = 0;
  std::size_t capacity_blocked = 0;
};

// GPUs, then CPU, then memory: larger shapes claim the pooled capacity first, as first-fit
// decreasing packs them.
using ShapeKey = std::tuple<std::int64_t, std::int64_t, std::int64_t>;  // gpus, cpu, memory

ResourceVector shapeOf(const ShapeKey& key) {
  return {std::get<1>(key), std::get<2>(key), std::get<0>(key)};
}

// Splits each shape's pending pods between fragmentation and capacity. Counting every pod of a
// shape as fragmentation-blocked whenever one fits the pool would call pods fragmented that
// no repacking could place (capacity-shortfall's), so the pool is drawn down as pods claim it.
// The pooled capacity alone would also call fragmented the remainder every node keeps when its
// allocatable is no multiple of the shape (15.7 cores hold three 4-core pods and 3.7 cores that
// no repacking joins): pods beyond the free slots are capacity-blocked too.
void splitBlocked(std::map<ShapeKey, ShapeFit, std::greater<>>& shapes, ResourceVector pool) {
  for (auto& [key, s] : shapes) {
    const ResourceVector shape = shapeOf(key);
    const std::int64_t free_slots = std::max<std::int64_t>(0, s.slots - s.bound);
    const auto placeable = static_cast<std::size_t>(std::min<std::int64_t>(
        {static_cast<std::int64_t>(s.pending), fitCount(pool, shape), free_slots}));
    s.capacity_blocked = s.pending - placeable;
    s.fragmentation_blocked = s.fit == 0 ? placeable : 0;
    const auto n = static_cast<std::int64_t>(placeable);
    pool -= {shape.cpu_millis * n, shape.memory_bytes * n, shape.gpus * n};
  }
}

// Counts the bound pods of each pending shape; returns each node's DaemonSet requests. One pass
// over the pods in memory order: node by node would miss the cache on every pod.
std::vector<ResourceVector> tallyBound(const ClusterSnapshot& cluster,
                                       std::map<ShapeKey, ShapeFit, std::greater<>>& shapes) {
  std::vector<ResourceVector> daemons(cluster.nodes().size());
  for (const model::Pod& pod : cluster.pods()) {
    if (!pod.holdsResources() || pod.node >= daemons.size() || !usable(cluster.node(pod.node))) {
      continue;
    }
    if (pod.owner_kind == "DaemonSet") {
      daemons[pod.node] += pod.requests;
    } else if (const auto it = shapes.find(
                   {pod.requests.gpus, pod.requests.cpu_millis, pod.requests.memory_bytes});
               it != shapes.end()) {
      ++it->second.bound;
    }
  }
  return daemons;
}

std::map<ShapeKey, ShapeFit, std::greater<>> pendingShapes(const ClusterSnapshot& cluster) {
  std::map<ShapeKey, ShapeFit, std::greater<>> shapes;
  for (model::PodId id : cluster.pendingPods()) {
    const ResourceVector& r = cluster.pod(id).requests;
    if (r.cpu_millis > 0 || r.memory_bytes > 0 || r.gpus > 0) {
      ++shapes[{r.gpus, r.cpu_millis, r.memory_bytes}].pending;
    }
  }
  const std::vector<ResourceVector> daemons = tallyBound(cluster, shapes);
  ResourceVector pooled_free;
  std::vector<ResourceVector> node_free;
  std::vector<ResourceVector> node_repackable;  // allocatable minus the DaemonSet pods
  for (NodeId id = 0; id < cluster.nodes().size(); ++id) {
    if (usable(cluster.node(id))) {
      const ResourceVector f = cluster.freeOn(id);
      node_free.push_back(f);
      pooled_free += {std::max<std::int64_t>(0, f.cpu_millis),
                      std::max<std::int64_t>(0, f.memory_bytes), std::max<std::int64_t>(0, f.gpus)};
      node_repackable.push_back(cluster.node(id).allocatable - daemons[id]);
    }
  }
  for (auto& [key, s] : shapes) {
    const ResourceVector shape = shapeOf(key);
    for (std::size_t n = 0; n < node_free.size(); ++n) {
      s.fit += fitCount(node_free[n], shape);
      s.slots += fitCount(node_repackable[n], shape);
    }
    s.pooled = fitCount(pooled_free, shape);
  }
  splitBlocked(shapes, pooled_free);
  return shapes;
}

void reportCluster(const ClusterSnapshot& cluster, const config::Config& config,
                   const std::string& kind, FindingSink& out) {
  json shapes = json::array();
  std::size_t fragmentation_blocked = 0;
  std::size_t capacity_blocked = 0;
  double weighted_fi = 0;
  std::size_t weighed = 0;
  for (const auto& [key, s] : pendingShapes(cluster)) {
    json entry = {{"cpu_millis", std::get<1>(key)},
                  {"memory_bytes", std::get<2>(key)},
                  {"gpus", std::get<0>(key)},
                  {"pending_pods", s.pending},
                  {"fit", s.fit},
                  {"pooled", s.pooled},
                  {"node_slots", s.slots},
                  {"bound_pods", s.bound},
                  {"fragmentation_blocked_pods", s.fragmentation_blocked},
                  {"capacity_blocked_pods", s.capacity_blocked}};
    if (s.pooled >= 1) {
      const double fi =
          1.0 - static_cast<double>(std::min(s.fit, s.pooled)) / static_cast<double>(s.pooled);
      entry["fragmentation_index"] = fi;
      weighted_fi += fi * static_cast<double>(s.pending);
      weighed += s.pending;
    } else {
      entry["fragmentation_index"] = nullptr;
    }
    fragmentation_blocked += s.fragmentation_blocked;
    capacity_blocked += s.capacity_blocked;
    entry["blocked_by"] = s.fragmentation_blocked > 0 ? "fragmentation"
                          : s.capacity_blocked > 0    ? "capacity"
                                                      : "none";
    shapes.push_back(std::move(entry));
  }
  const auto min_blocked =
      static_cast<std::size_t>(config.detectors.stranded_resources.min_fragmentation_blocked_pods);
  if (fragmentation_blocked < min_blocked) {
    return;
  }
  const double index = weighed > 0 ? weighted_fi / static_cast<double>(weighed) : 0;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%zu pending pod(s) fit the pooled free capacity but no single node; "
                "fragmentation index %.2f over the pending shapes",
                fragmentation_blocked, index);
  Finding finding;
  finding.kind = kind;
  finding.severity = Severity::kWarning;
  finding.target = "cluster/" + config.analysis.cluster;
  finding.summary = buf;
  finding.impact = static_cast<double>(fragmentation_blocked);
  finding.evidence = {{"scope", "cluster"},
                      {"fragmentation_index", index},
                      {"fragmentation_blocked_pods", fragmentation_blocked},
                      {"capacity_blocked_pods", capacity_blocked},
                      {"shapes", std::move(shapes)}};
  out.emit(std::move(finding));
}

}  // namespace

const DetectorInfo& StrandedResources::info() const {
  static const DetectorInfo kInfo{
      "stranded-resources",
      "Resources left free because another resource of the node is used up; fragmentation "
      "index of the pending pod shapes"};
  return kInfo;
}

void StrandedResources::analyze(const AnalysisInput& input, FindingSink& out) const {
  const auto& params = input.config.detectors.stranded_resources;
  const std::string kind(info().kind);
  std::size_t usable_nodes = 0;
  for (NodeId id = 0; id < input.cluster.nodes().size(); ++id) {
    if (usable(input.cluster.node(id))) {
      ++usable_nodes;
      reportNode(input.cluster, id, params, kind, out);
    }
  }
  if (usable_nodes == 0) {
    out.noAdvice("no schedulable node reports allocatable CPU and memory");
    return;
  }
  reportCluster(input.cluster, input.config, kind, out);
}

}  // namespace dagadvisor::analysis
