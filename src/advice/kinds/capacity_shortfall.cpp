#include "advice/kinds/capacity_shortfall.h"

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

Recommendation adviseOne(const analysis::Finding& f) {
  const auto& e = f.evidenceAs<CapacityShortfallEvidence>();
  Recommendation rec;
  rec.kind = std::string(CapacityShortfallEvidence::kKind);
  rec.severity = f.severity;
  rec.target = f.target;
  rec.instances = {f.target};
  std::string shapes;
  for (const analysis::MissingNodeShape& entry : e.missing_by_shape) {
    shapes += (shapes.empty() ? "" : ", ") + shapeText(entry);
  }
  const std::int64_t missing = e.missing_nodes;
  const auto unplaced = static_cast<std::int64_t>(e.unplaced_pods);
  rec.title = std::to_string(unplaced) + " pending pod(s) exceed the free capacity: about " +
              std::to_string(missing) + " node(s) missing";
  rec.action = "This is a shortfall, not fragmentation: the pending pods ask for more " +
               json(e.short_resources).dump() + " than all nodes have free. Add capacity: " +
               (shapes.empty() ? std::string("no existing node shape holds these pods") : shapes) +
               " — through the cluster autoscaler's node group for that pool, or an elastic "
               "spot node group for bursts. If the burst is short, a PriorityClass with "
               "preemptionPolicy: PreemptLowerPriority for the urgent workloads lets them run "
               "first instead.";
  if (!e.unplaceable_pods.empty()) {
    rec.action +=
        " Some pods fit no existing node shape at all: they need a larger shape or "
        "smaller requests.";
  }
  rec.impact_score = static_cast<double>(unplaced);
  rec.impact = std::to_string(unplaced) + " pending pod(s) placeable with " +
               std::to_string(missing) + " more node(s)";
  rec.evidence = e.toJson();
  return rec;
}

}  // namespace

std::vector<Recommendation> adviseCapacityShortfall(
    const std::vector<const analysis::Finding*>& findings, const config::Config& /*config*/) {
  std::vector<Recommendation> out;
  for (const analysis::Finding* f : findings) {
    out.push_back(adviseOne(*f));
  }
  return out;
}

}  // namespace dagadvisor::advice
