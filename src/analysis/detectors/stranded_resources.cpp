#include "analysis/detectors/stranded_resources.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <tuple>

#include "analysis/stranding.h"

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::NodeId;
using model::ResourceVector;
using nlohmann::json;

constexpr std::array<const char*, 3> kResourceNames = {"cpu", "memory", "gpu"};
constexpr std::array<const char*, 3> kFreeKeys = {"free_cpu_millis", "free_memory_bytes",
                                                  "free_gpus"};
constexpr std::array<std::optional<std::int64_t> StrandedNode::*, 3> kStrandedFields = {
    &StrandedNode::stranded_cpu_millis, &StrandedNode::stranded_memory_bytes,
    &StrandedNode::stranded_gpus};

std::array<std::int64_t, 3> components(const ResourceVector& v) {
  return {v.cpu_millis, v.memory_bytes, v.gpus};
}

// Stranding on one node (the rule of analysis/stranding.h): resources it has that no pod can get
// because another is used up.
void reportNode(const ClusterSnapshot& cluster, NodeId id,
                const analysis::StrandedResourcesSettings& params, FindingSink& out) {
  const NodeStranding rule = strandingOf(cluster, id, params.rule);
  if (!rule.anyStranded()) {
    return;
  }
  const model::Node& node = cluster.node(id);
  const auto free = components(cluster.freeOn(id));
  StrandedNode stranded;
  for (std::size_t r = 0; r < 3; ++r) {
    if (rule.exhausted[r]) {
      stranded.exhausted.emplace_back(kResourceNames[r]);
    }
    if (rule.stranded[r]) {
      stranded.*kStrandedFields[r] = free[r];
    }
  }
  stranded.stranded_node_units = rule.stranded_node_units;
  stranded.node = node.name;
  stranded.free_share = {rule.free_share[0], rule.free_share[1], rule.free_share[2]};
  const double node_units = stranded.stranded_node_units;
  const bool gpus_stranded = stranded.stranded_gpus.has_value();
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s: %s exhausted while %.2f node-resource units sit free",
                node.name.c_str(), json(stranded.exhausted).dump().c_str(), node_units);
  Finding finding = findingOf(StrandedResourcesEvidence{std::move(stranded)});
  finding.severity = gpus_stranded ? Severity::kWarning : Severity::kInfo;
  finding.target = "node/" + node.name;
  finding.summary = buf;
  finding.impact = node_units;
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
    if (!pod.holdsResources() || pod.node >= daemons.size() ||
        !acceptsPods(cluster.node(pod.node))) {
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
    if (acceptsPods(cluster.node(id))) {
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

FragmentedShape fragmentedShape(const ShapeKey& key, const ShapeFit& s) {
  FragmentedShape shape;
  shape.requests = shapeOf(key);
  shape.pending_pods = s.pending;
  shape.fit = s.fit;
  shape.pooled = s.pooled;
  shape.node_slots = s.slots;
  shape.bound_pods = s.bound;
  shape.fragmentation_blocked_pods = s.fragmentation_blocked;
  shape.capacity_blocked_pods = s.capacity_blocked;
  if (s.pooled >= 1) {
    shape.fragmentation_index =
        1.0 - static_cast<double>(std::min(s.fit, s.pooled)) / static_cast<double>(s.pooled);
  }
  return shape;
}

void reportCluster(const ClusterSnapshot& cluster, const config::Config& config, FindingSink& out) {
  ClusterFragmentation fragmentation;
  double weighted_fi = 0;
  std::size_t weighed = 0;
  for (const auto& [key, s] : pendingShapes(cluster)) {
    const FragmentedShape& shape = fragmentation.shapes.emplace_back(fragmentedShape(key, s));
    if (shape.fragmentation_index) {
      weighted_fi += *shape.fragmentation_index * static_cast<double>(s.pending);
      weighed += s.pending;
    }
    fragmentation.fragmentation_blocked_pods += s.fragmentation_blocked;
    fragmentation.capacity_blocked_pods += s.capacity_blocked;
  }
  const std::size_t fragmentation_blocked = fragmentation.fragmentation_blocked_pods;
  const auto min_blocked = static_cast<std::size_t>(
      config.detectors.get<analysis::StrandedResourcesSettings>().min_fragmentation_blocked_pods);
  if (fragmentation_blocked < min_blocked) {
    return;
  }
  const double index = weighed > 0 ? weighted_fi / static_cast<double>(weighed) : 0;
  fragmentation.fragmentation_index = index;
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%zu pending pod(s) fit the pooled free capacity but no single node; "
                "fragmentation index %.2f over the pending shapes",
                fragmentation_blocked, index);
  Finding finding = findingOf(StrandedResourcesEvidence{std::move(fragmentation)});
  finding.severity = Severity::kWarning;
  finding.target = "cluster/" + config.analysis.cluster;
  finding.summary = buf;
  finding.impact = static_cast<double>(fragmentation_blocked);
  out.emit(std::move(finding));
}

}  // namespace

std::string_view FragmentedShape::blockedBy() const {
  return fragmentation_blocked_pods > 0 ? "fragmentation"
         : capacity_blocked_pods > 0    ? "capacity"
                                        : "none";
}

json StrandedResourcesEvidence::toJson() const {
  if (const auto* node = std::get_if<StrandedNode>(&scope)) {
    json stranded = json::object();
    for (std::size_t r = 0; r < 3; ++r) {
      if (const auto& amount = node->*kStrandedFields[r]) {
        stranded[kFreeKeys[r]] = *amount;
      }
    }
    return {{"scope", "node"},
            {"node", node->node},
            {"exhausted", node->exhausted},
            {"stranded", std::move(stranded)},
            {"stranded_node_units", node->stranded_node_units},
            {"free_share",
             {{"cpu", node->free_share.cpu},
              {"memory", node->free_share.memory},
              {"gpu", node->free_share.gpu}}}};
  }
  const auto& cluster = std::get<ClusterFragmentation>(scope);
  json shapes = json::array();
  for (const FragmentedShape& s : cluster.shapes) {
    shapes.push_back({{"cpu_millis", s.requests.cpu_millis},
                      {"memory_bytes", s.requests.memory_bytes},
                      {"gpus", s.requests.gpus},
                      {"pending_pods", s.pending_pods},
                      {"fit", s.fit},
                      {"pooled", s.pooled},
                      {"node_slots", s.node_slots},
                      {"bound_pods", s.bound_pods},
                      {"fragmentation_blocked_pods", s.fragmentation_blocked_pods},
                      {"capacity_blocked_pods", s.capacity_blocked_pods},
                      {"fragmentation_index",
                       s.fragmentation_index ? json(*s.fragmentation_index) : json(nullptr)},
                      {"blocked_by", std::string(s.blockedBy())}});
  }
  return {{"scope", "cluster"},
          {"fragmentation_index", cluster.fragmentation_index},
          {"fragmentation_blocked_pods", cluster.fragmentation_blocked_pods},
          {"capacity_blocked_pods", cluster.capacity_blocked_pods},
          {"shapes", std::move(shapes)}};
}

const DetectorInfo& StrandedResources::info() const {
  static const DetectorInfo kInfo{
      StrandedResourcesEvidence::kKind,
      "Resources left free because another resource of the node is used up; fragmentation "
      "index of the pending pod shapes"};
  return kInfo;
}

void StrandedResources::analyze(const AnalysisInput& input, FindingSink& out) const {
  const auto& params = input.config.detectors.get<analysis::StrandedResourcesSettings>();
  std::size_t usable_nodes = 0;
  for (NodeId id = 0; id < input.cluster.nodes().size(); ++id) {
    if (acceptsPods(input.cluster.node(id))) {
      ++usable_nodes;
      reportNode(input.cluster, id, params, out);
    }
  }
  if (usable_nodes == 0) {
    out.noAdvice("no schedulable node reports allocatable CPU and memory");
    return;
  }
  reportCluster(input.cluster, input.config, out);
}

std::vector<config::Field> StrandedResourcesSettings::fields() {
  return {
      {"enabled", &enabled, config::Rule::kNone, "Turn this check on or off."},
      {"max_exhausted_free_share", &rule.max_exhausted_free_share, config::Rule::kShare,
       "A node's resource counts as used up when at most this share of it is unrequested (a number "
       "from 0 to 1; 0.05 is 5%)..."},
      {"min_stranded_share", &rule.min_stranded_share, config::Rule::kShare,
       "...and another of its resources counts as stranded when at least this share of it is "
       "unrequested."},
      {"min_fragmentation_blocked_pods", &min_fragmentation_blocked_pods, config::Rule::kAtLeastOne,
       "The cluster-wide fragmentation finding needs at least this many pending pods that fit the "
       "free capacity of all nodes put together but not the free capacity of any one node."},
  };
}

}  // namespace dagadvisor::analysis
