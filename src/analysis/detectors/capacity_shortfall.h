#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/detector.h"
#include "analysis/pending_diagnosis.h"
#include "config/field.h"
#include "model/resources.h"

namespace dagadvisor::analysis {

/// New nodes of one of the cluster's real node shapes that the capacity-blocked pods would fill.
struct MissingNodeShape {
  model::ResourceVector allocatable;  // the shape
  std::optional<std::string> pool;    // the pool label's value on the example node, if any
  std::string example_node;           // a node of the shape
  std::int64_t count = 0;             // new nodes of the shape the scale-up adds
  /// max over resources of ⌈Σ requests of the pods packed into the shape / what a new node of
  /// the shape offers them (allocatable minus its DaemonSets)⌉: no packing of those pods into
  /// this shape needs fewer.
  std::int64_t lower_bound = 0;
};

/// Evidence of one cluster's capacity shortfall: the pods the pending diagnosis calls
/// capacity-blocked, and the nodes they need. Pods are named "namespace/name"; the lists keep
/// the first kMaxListedPods.
struct CapacityShortfallEvidence {
  static constexpr std::string_view kKind = "capacity-shortfall";
  static constexpr std::size_t kMaxListedPods = 20;
  std::size_t capacity_blocked_pods = 0;  // the diagnosis' capacity-blocked pods
  std::size_t sized_pods = 0;             // of them, those the scheduler has had its chance at
  std::size_t young_pods_tried = 0;       // of those, younger than min_pending_age but parked
  model::ResourceVector sized_requests;
  /// The pooled free capacity left once the hoarding and fragmentation pods are placed.
  model::ResourceVector free_capacity;
  std::vector<std::string> short_resources;  // "cpu", "memory", "gpu": demand above free
  std::vector<std::string> pods;             // the sized pods, largest first
  /// New nodes of the real shapes a cluster-autoscaler-like scale-up adds (new_node_packing.h;
  /// achievable: an upper bound on what is needed), and a bound no placement goes below: max over
  /// resources of ⌈(Σ requests no repacking places on existing nodes + the rest beyond free
  /// capacity) / the largest capacity of a shape the pods may land on⌉, or the pods of the first
  /// kind that take more than half of a resource, if more (docs/findings.md).
  std::int64_t missing_nodes = 0;
  std::int64_t missing_nodes_lower_bound = 0;
  std::vector<MissingNodeShape> missing_by_shape;
  std::vector<std::string> unplaceable_pods;  // fit no node shape they may land on
  std::size_t unplaceable_total = 0;
  DiagnosisCounts diagnosis;  // the cluster's pending pods by cause

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

/// capacity-shortfall (seed §4, bursts): pending pods that the pending diagnosis
/// (pending_diagnosis.h) calls capacity-blocked: no node has room, and the pooled free capacity
/// left once the hoarding moves and the fragmentation repacking are counted cannot hold them.
/// A scale-up as the cluster autoscaler would make it, first-fit decreasing onto new nodes of
/// the cluster's real node shapes the pods may land on (many pods per node, packOntoNewNodes in
/// new_node_packing.h), estimates how many nodes of which shape are missing, with a lower
/// bound. One finding per cluster.
class CapacityShortfall final : public Detector {
 public:
  using Settings = CapacityShortfallSettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
