#include "analysis/detectors/stranded_resources.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <tuple>

#include "analysis/stranding.h"

namespace dagadvisor::analysis {
namespace {

using model::ClusterSnapshot;
using model::NodeId;
using model::ResourceVector;
using nlohmann::json;

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
std::optional<Finding> nodeFinding(const ClusterSnapshot& cluster, NodeId id,
                                   const analysis::StrandedResourcesSettings& params,
                                   bool hoarded) {
  const NodeStranding rule = strandingOf(cluster, id, params.rule);
  if (!rule.anyStranded()) {
    return std::nullopt;
  }
  const model::Node& node = cluster.node(id);
  const auto free = components(cluster.freeOn(id));
  StrandedNode stranded;
  for (std::size_t r = 0; r < 3; ++r) {
    if (rule.exhausted[r]) {
      stranded.exhausted.emplace_back(resourceName(static_cast<Resource>(r)));
    }
    if (rule.stranded[r]) {
      stranded.*kStrandedFields[r] = free[r];
    }
  }
  stranded.stranded_node_units = rule.stranded_node_units;
  stranded.node = node.name;
  stranded.free_share = {rule.free_share[0], rule.free_share[1], rule.free_share[2]};
  stranded.hoarded = hoarded;
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
  return finding;
}

// The `limit` strongest findings (severity, then impact; ties keep node order), in node order.
void emitStrongest(std::vector<Finding> findings, std::size_t limit, FindingSink& out) {
  std::vector<std::size_t> order(findings.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::tie(findings[b].severity, findings[b].impact) <
           std::tie(findings[a].severity, findings[a].impact);
  });
  order.resize(std::min(limit, order.size()));
  std::sort(order.begin(), order.end());
  for (std::size_t i : order) {
    out.emit(std::move(findings[i]));
  }
}

FragmentedShape fragmentedShape(const PendingShapeDiagnosis& s) {
  FragmentedShape shape;
  shape.requests = s.requests;
  shape.pending_pods = s.pending;
  shape.fit = s.fit;
  shape.pooled = s.pooled;
  shape.node_slots = s.slots;
  shape.bound_pods = s.bound;
  shape.by_cause = s.by_cause;
  if (s.pooled >= 1) {
    shape.fragmentation_index =
        1.0 - static_cast<double>(std::min(s.fit, s.pooled)) / static_cast<double>(s.pooled);
  }
  return shape;
}

ClusterFragmentation fragmentationOf(const ClusterSnapshot& cluster,
                                     const PendingDiagnosis& diagnosis) {
  ClusterFragmentation fragmentation;
  double weighted_fi = 0;
  std::size_t weighed = 0;
  for (const PendingShapeDiagnosis& s : diagnosis.shapes) {
    const FragmentedShape shape = fragmentedShape(s);
    if (shape.fragmentation_index) {
      weighted_fi += *shape.fragmentation_index * static_cast<double>(s.pending);
      weighed += s.pending;
    }
    if (fragmentation.shapes.size() < ClusterFragmentation::kMaxListed) {
      fragmentation.shapes.push_back(shape);
    }
  }
  fragmentation.shapes_total = diagnosis.shapes.size();
  fragmentation.fragmentation_index = weighed > 0 ? weighted_fi / static_cast<double>(weighed) : 0;
  fragmentation.diagnosis = diagnosis.summary();
  fragmentation.fragmentation_blocked_pods =
      fragmentation.diagnosis.of(PendingCause::kFragmentation);
  fragmentation.capacity_blocked_pods = fragmentation.diagnosis.of(PendingCause::kCapacity);
  for (model::PodId id : diagnosis.podsOf(PendingCause::kFragmentation)) {
    if (fragmentation.pods.size() == ClusterFragmentation::kMaxListed) {
      break;
    }
    fragmentation.pods.push_back(cluster.pod(id).key());
  }
  return fragmentation;
}

void reportCluster(const AnalysisInput& input, FindingSink& out) {
  ClusterFragmentation fragmentation = fragmentationOf(input.cluster, input.pendingDiagnosis());
  const std::size_t blocked = fragmentation.fragmentation_blocked_pods;
  const auto min_blocked =
      static_cast<std::size_t>(input.config.detectors.get<analysis::StrandedResourcesSettings>()
                                   .min_fragmentation_blocked_pods);
  if (blocked == 0 || blocked < min_blocked) {
    return;
  }
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "%zu pending pod(s) fit the pooled free capacity but no single node; "
                "fragmentation index %.2f over the pending shapes",
                blocked, fragmentation.fragmentation_index);
  Finding finding = findingOf(StrandedResourcesEvidence{std::move(fragmentation)});
  finding.severity = Severity::kWarning;
  finding.target = "cluster/" + input.config.analysis.cluster;
  finding.summary = buf;
  finding.impact = static_cast<double>(blocked);
  out.emit(std::move(finding));
}

}  // namespace

std::string_view FragmentedShape::blockedBy() const {
  return blocked(PendingCause::kFragmentation) > 0 ? "fragmentation"
         : blocked(PendingCause::kCapacity) > 0    ? "capacity"
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
            {"hoarded", node->hoarded},
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
                      {"hoarding_blocked_pods", s.blocked(PendingCause::kHoarding)},
                      {"fragmentation_blocked_pods", s.blocked(PendingCause::kFragmentation)},
                      {"capacity_blocked_pods", s.blocked(PendingCause::kCapacity)},
                      {"constraint_blocked_pods", s.blocked(PendingCause::kConstraints)},
                      {"queued_pods", s.blocked(PendingCause::kQueue)},
                      {"fragmentation_index",
                       s.fragmentation_index ? json(*s.fragmentation_index) : json(nullptr)},
                      {"blocked_by", std::string(s.blockedBy())}});
  }
  return {{"scope", "cluster"},
          {"fragmentation_index", cluster.fragmentation_index},
          {"fragmentation_blocked_pods", cluster.fragmentation_blocked_pods},
          {"capacity_blocked_pods", cluster.capacity_blocked_pods},
          {"shapes", std::move(shapes)},
          {"shapes_total", cluster.shapes_total},
          {"pods", cluster.pods},
          {"diagnosis", cluster.diagnosis.toJson()}};
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
  std::vector<bool> hoarded(input.cluster.nodes().size(), false);
  for (const GpuNodeDiagnosis& held : input.pendingDiagnosis().gpu_nodes) {
    hoarded[held.node] = held.hold == GpuNodeHold::kMovable;
  }
  std::size_t usable_nodes = 0;
  std::vector<Finding> nodes;
  for (NodeId id = 0; id < input.cluster.nodes().size(); ++id) {
    if (acceptsPods(input.cluster.node(id))) {
      ++usable_nodes;
      if (auto finding = nodeFinding(input.cluster, id, params, hoarded[id])) {
        nodes.push_back(std::move(*finding));
      }
    }
  }
  emitStrongest(std::move(nodes), kMaxNodeFindings, out);
  if (usable_nodes == 0) {
    out.noAdvice("no schedulable node reports allocatable CPU and memory");
    return;
  }
  reportCluster(input, out);
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
