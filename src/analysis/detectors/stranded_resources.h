#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "analysis/detector.h"
#include "analysis/pending_diagnosis.h"
#include "analysis/stranding.h"
#include "config/field.h"
#include "model/resources.h"

namespace dagadvisor::analysis {

/// Free share (free / allocatable, 0 when the node has none of the resource) per resource.
struct ResourceShares {
  double cpu = 0;
  double memory = 0;
  double gpu = 0;
};

/// One node where a used-up resource strands the others.
struct StrandedNode {
  std::string node;
  std::vector<std::string> exhausted;  // "cpu", "memory", "gpu", in that order
  /// The free amount of each stranded resource; empty for a resource that is not stranded.
  std::optional<std::int64_t> stranded_cpu_millis;
  std::optional<std::int64_t> stranded_memory_bytes;
  std::optional<std::int64_t> stranded_gpus;
  double stranded_node_units = 0;  // sum of the stranded resources' free shares
  ResourceShares free_share;
  /// gpu-node-hoarding reports this node as hoarded (PendingDiagnosis): its advice, moving the
  /// non-GPU pods off, is the one that applies here.
  bool hoarded = false;
};

/// One pending pod shape, with how many of its pods fit the nodes one by one and pooled, and
/// how many of its pods each cause of the pending diagnosis holds.
struct FragmentedShape {
  model::ResourceVector requests;  // the shape
  std::size_t pending_pods = 0;
  std::int64_t fit = 0;         // Σ over the nodes of the pods each holds
  std::int64_t pooled = 0;      // as if the cluster were one node
  std::int64_t node_slots = 0;  // Σ over the nodes of the pods each holds besides its DaemonSets
  std::int64_t bound_pods = 0;  // pods of the shape bound now
  std::array<std::size_t, kPendingCauses> by_cause{};
  std::optional<double> fragmentation_index;  // 1 − Fit/Pooled; empty when Pooled < 1

  std::size_t blocked(PendingCause cause) const {
    return by_cause[static_cast<std::size_t>(cause)];
  }
  /// "fragmentation", "capacity" or "none": what keeps the shape's pods pending.
  std::string_view blockedBy() const;
};

/// The cluster's fragmentation over its pending pod shapes, largest shape first.
struct ClusterFragmentation {
  static constexpr std::size_t kMaxListed = 20;
  double fragmentation_index = 0;  // pending-weighted over the shapes with an index
  std::size_t fragmentation_blocked_pods = 0;
  std::size_t capacity_blocked_pods = 0;
  std::vector<FragmentedShape> shapes;  // the kMaxListed largest
  std::size_t shapes_total = 0;
  std::vector<std::string> pods;  // fragmentation-blocked, "namespace/name", the first kMaxListed
  DiagnosisCounts diagnosis;      // the cluster's pending pods by cause
};

/// Evidence of a stranded-resources finding: one node ("scope": "node") or the cluster's
/// fragmentation ("scope": "cluster").
struct StrandedResourcesEvidence {
  static constexpr std::string_view kKind = "stranded-resources";
  std::variant<StrandedNode, ClusterFragmentation> scope;

  nlohmann::json toJson() const;
};

/// The settings of stranded-resources: `detectors.stranded_resources` in the configuration file.
struct StrandedResourcesSettings {
  static constexpr std::string_view kSection = "stranded_resources";

  bool enabled = true;
  StrandingRule rule;
  int min_fragmentation_blocked_pods = 1;

  bool operator==(const StrandedResourcesSettings&) const = default;
  /// This section's rows, each with its rule and what it means: the one place the
  /// settings are documented (the example file and docs/findings.md are checked against it).
  std::vector<config::Field> fields();
};

/// stranded-resources (seed §1): per node, resources left free because another resource of the
/// node is exhausted (Borg's "stranded resources", Verma et al. EuroSys 2015), one finding per
/// node, for the kMaxNodeFindings nodes that strand the most (GPU-stranding warnings first, then
/// by stranded node-resource units; the nodes view has every node's stranding); and for the
/// cluster, the fit-count fragmentation index of each pending pod shape,
/// FI(s) = 1 − Fit(s)/Pooled(s), one finding when the pending diagnosis (pending_diagnosis.h)
/// calls pods fragmentation-blocked: they fit the pooled free capacity but no single node.
class StrandedResources final : public Detector {
 public:
  using Settings = StrandedResourcesSettings;
  /// Node findings are bounded so that a report's size does not grow with the cluster: at 100 %
  /// of the openb trace's GPUs, 939 of its 1,523 nodes strand a resource.
  static constexpr std::size_t kMaxNodeFindings = 100;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
