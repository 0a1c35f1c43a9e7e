#include "advice/kinds/capacity_shortfall.h"

#include "advice/kinds/pending_causes.h"
#include "analysis/detectors/capacity_shortfall.h"

namespace dagadvisor::advice {
namespace {

using analysis::CapacityShortfallEvidence;
using nlohmann::json;

std::string shapeText(const analysis::MissingNodeShape& entry) {
  const model::ResourceVector& shape = entry.allocatable;
  const std::int64_t gib = 1024LL * 1024 * 1024;
  std::string text = std::to_string(entry.count) + " × " + std::to_string(shape.cpu_millis / 1000) +
                     " CPU / " + std::to_string(shape.memory_bytes / gib) + " GiB";
  if (shape.gpus > 0) {
    text += " / " + std::to_string(shape.gpus) + " GPU";
  }
  text +=
      " (like " + entry.example_node + (entry.pool ? ", pool " + *entry.pool : std::string()) + ")";
  return text;
}

std::string nodeCountText(const CapacityShortfallEvidence& e) {
  if (e.missing_nodes_lower_bound == e.missing_nodes) {
    return std::to_string(e.missing_nodes) + " node(s)";
  }
  return std::to_string(e.missing_nodes_lower_bound) + " to " + std::to_string(e.missing_nodes) +
         " node(s)";
}

std::string actionText(const CapacityShortfallEvidence& e, const config::Config& config) {
  std::string shapes;
  for (const analysis::MissingNodeShape& entry : e.missing_by_shape) {
    shapes += (shapes.empty() ? "" : ", ") + shapeText(entry);
  }
  std::string text =
      "These pods fit no node, and the pooled free capacity left once the moves and the "
      "repacking of the other recommendations are counted cannot hold them either: they ask for "
      "more " +
      json(e.short_resources).dump() + " than is left. Add capacity: " +
      (shapes.empty() ? std::string("no existing node shape holds these pods") : shapes) +
      " — the scale-up a cluster autoscaler would make, packed first-fit decreasing onto the "
      "shapes the pods may land on, several pods per node; no packing needs fewer than " +
      std::to_string(e.missing_nodes_lower_bound) +
      " — through the cluster autoscaler's node group for that pool, or an elastic spot node "
      "group for bursts. If the burst is short, a PriorityClass with preemptionPolicy: Never "
      "for the urgent workloads puts them first in the queue without evicting anything; "
      "PreemptLowerPriority only once you have checked what runs at lower priority.";
  if (!e.unplaceable_pods.empty()) {
    text += " " + std::to_string(e.unplaceable_total) +
            " pod(s) fit no existing node shape they may land on: they need a larger shape, "
            "another pool or smaller requests.";
  }
  return text + " " + pendingCausesText(e.diagnosis, analysis::PendingCause::kCapacity, config);
}

Recommendation adviseOne(const analysis::Finding& f, const config::Config& config) {
  const auto& e = f.evidenceAs<CapacityShortfallEvidence>();
  Recommendation rec;
  rec.kind = std::string(CapacityShortfallEvidence::kKind);
  rec.severity = f.severity;
  rec.target = f.target;
  rec.instances = {f.target};
  const auto sized = static_cast<std::int64_t>(e.sized_pods);
  rec.title = std::to_string(sized) + " pending pod(s) fit nowhere, even after moves and " +
              "repacking: " + nodeCountText(e) + " missing";
  rec.action = actionText(e, config);
  rec.impact_score = static_cast<double>(sized);
  rec.impact = std::to_string(sized) + " pending pod(s) placeable once " + nodeCountText(e) +
               " are added (a cluster autoscaler's scale-up, first-fit decreasing onto the real "
               "node shapes; the lower bound is the resource-sum bound)";
  rec.evidence = e.toJson();
  rec.evidence.emplace(
      "related", relatedRecommendations(e.diagnosis, analysis::PendingCause::kCapacity, config));
  return rec;
}

}  // namespace

std::vector<Recommendation> adviseCapacityShortfall(
    const std::vector<const analysis::Finding*>& findings, const config::Config& config,
    const model::ClusterSnapshot& /*cluster*/) {
  std::vector<Recommendation> out;
  for (const analysis::Finding* f : findings) {
    out.push_back(adviseOne(*f, config));
  }
  return out;
}

}  // namespace dagadvisor::advice
