#include "advice/kinds/capacity_shortfall.h"

namespace dagadvisor::advice {
namespace {

using nlohmann::json;

std::string shapeText(const json& entry) {
  const json& shape = entry.value("shape", json::object());
  const std::int64_t gib = 1024LL * 1024 * 1024;
  std::string text = std::to_string(entry.value("count", std::int64_t{0})) + " × " +
                     std::to_string(shape.value("cpu_millis", std::int64_t{0}) / 1000) + " CPU / " +
                     std::to_string(shape.value("memory_bytes", std::int64_t{0}) / gib) + " GiB";
  if (const std::int64_t gpus = shape.value("gpus", std::int64_t{0}); gpus > 0) {
    text += " / " + std::to_string(gpus) + " GPU";
  }
  const json& pool = entry.value("pool", json());
  text += " (like " + entry.value("example_node", std::string()) +
          (pool.is_string() ? ", pool " + pool.get<std::string>() : std::string()) + ")";
  return text;
}

Recommendation adviseOne(const analysis::Finding& f) {
  const json& e = f.evidence;
  Recommendation rec;
  rec.kind = "capacity-shortfall";
  rec.severity = f.severity;
  rec.target = f.target;
  rec.instances = {f.target};
  std::string shapes;
  for (const json& entry : e.value("missing_by_shape", json::array())) {
    shapes += (shapes.empty() ? "" : ", ") + shapeText(entry);
  }
  const auto missing = e.value("missing_nodes", std::int64_t{0});
  const auto unplaced = e.value("unplaced_pods", std::int64_t{0});
  rec.title = std::to_string(unplaced) + " pending pod(s) exceed the free capacity: about " +
              std::to_string(missing) + " node(s) missing";
  rec.action = "This is a shortfall, not fragmentation: the pending pods ask for more " +
               e.value("short_resources", json::array()).dump() +
               " than all nodes have free. Add capacity: " +
               (shapes.empty() ? std::string("no existing node shape holds these pods") : shapes) +
               " — through the cluster autoscaler's node group for that pool, or an elastic "
               "spot node group for bursts. If the burst is short, a PriorityClass with "
               "preemptionPolicy: PreemptLowerPriority for the urgent workloads lets them run "
               "first instead.";
  if (!e.value("unplaceable_pods", json::array()).empty()) {
    rec.action +=
        " Some pods fit no existing node shape at all: they need a larger shape or "
        "smaller requests.";
  }
  rec.impact_score = static_cast<double>(unplaced);
  rec.impact = std::to_string(unplaced) + " pending pod(s) placeable with " +
               std::to_string(missing) + " more node(s)";
  rec.evidence = e;
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
