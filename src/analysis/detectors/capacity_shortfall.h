#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/detector.h"
#include "config/field.h"
#include "model/resources.h"

namespace dagadvisor::analysis {

/// New nodes of one of the cluster's real node shapes that the left-over pods would fill.
struct MissingNodeShape {
  model::ResourceVector allocatable;  // the shape
  std::optional<std::string> pool;    // the pool label's value on the example node, if any
  std::string example_node;           // a node of the shape
  std::int64_t count = 0;
};

/// Evidence of one cluster's capacity shortfall. Pods are named "namespace/name"; the lists
/// keep the first kMaxListedPods.
struct CapacityShortfallEvidence {
  static constexpr std::string_view kKind = "capacity-shortfall";
  static constexpr std::size_t kMaxListedPods = 20;
  std::size_t pending_pods = 0;      // pending pods the scheduler has had its chance at
  std::size_t young_pods_tried = 0;  // of them, younger than min_pending_age but parked
  model::ResourceVector pending_requests;
  model::ResourceVector free_capacity;       // over the usable nodes
  std::vector<std::string> short_resources;  // "cpu", "memory", "gpu": demand above free
  std::size_t unplaced_pods = 0;             // left over by first-fit decreasing
  std::vector<std::string> unplaced;         // the first of them
  std::int64_t missing_nodes = 0;
  std::vector<MissingNodeShape> missing_by_shape;
  std::vector<std::string> unplaceable_pods;  // fit no existing node shape at all

  nlohmann::json toJson() const;
};

/// The settings of capacity-shortfall: `detectors.capacity_shortfall` in the configuration file.
struct CapacityShortfallSettings {
  static constexpr std::string_view kSection = "capacity_shortfall";

  bool enabled = true;
  config::Seconds min_pending_age{60};
  int min_unplaced_pods = 1;

  bool operator==(const CapacityShortfallSettings&) const = default;
  /// This section's rows, each with its rule and what it means: the one place the
  /// settings are documented (the example file and docs/findings.md are checked against it).
  std::vector<config::Field> fields();
};

/// capacity-shortfall (seed §4, bursts): the pending pods ask for more than the free capacity of
/// all nodes together, so no placement could hold them (not fragmentation). A first-fit-
/// decreasing packing onto the free capacity finds the pods left over, and a second one onto
/// empty nodes of the cluster's real node shapes estimates how many nodes of which shape are
/// missing. One finding per cluster.
class CapacityShortfall final : public Detector {
 public:
  using Settings = CapacityShortfallSettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
