#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/detector.h"
#include "config/field.h"
#include "model/resources.h"

namespace dagadvisor::analysis {

/// A pod of the workload running in a pool its shape does not fit.
struct MisplacedPod {
  std::string pod;
  std::string node;
  std::string node_pool;           // the node's pool: its label's value, or its inferred role
  std::string node_pool_role;      // that pool's role by shape
  model::ResourceVector requests;  // CPU and memory are rendered
};

/// The pool whose role matches the pods' shape (a labelled pool before an inferred one).
struct SuggestedPool {
  std::string name;       // the pool label's value, or the role of an inferred pool
  std::string role;       // "compute-optimized", "general-purpose", "memory-optimized", "gpu"
  bool labelled = false;  // false: inferred from allocatable, its nodes carry no pool label
  std::size_t node_count = 0;
  std::vector<std::string> nodes;  // the first kMaxListedNodes

  static constexpr std::size_t kMaxListedNodes = 50;
};

/// Evidence of one workload whose pods run outside the pool their shape fits.
struct PoolMismatchEvidence {
  static constexpr std::string_view kKind = "pool-mismatch";
  std::string namespace_;
  std::string owner_kind;  // "Pod" when unowned
  std::string owner_name;
  std::string pod_role;    // the role the pods' shape fits
  std::string pool_label;  // the node label that names pools
  SuggestedPool suggested_pool;
  std::vector<MisplacedPod> pods;

  nlohmann::json toJson() const;
};

/// The settings of pool-mismatch: `detectors.pool_mismatch` in the configuration file.
struct PoolMismatchSettings {
  static constexpr std::string_view kSection = "pool_mismatch";

  bool enabled = true;
  double compute_max_gib_per_core = 3;
  double memory_min_gib_per_core = 6;
  double min_pod_share = 0.1;

  bool operator==(const PoolMismatchSettings&) const = default;
  /// This section's rows, each with its rule and what it means: the one place the
  /// settings are documented (the example file and docs/findings.md are checked against it).
  std::vector<config::Field> fields();
};

/// pool-mismatch (seed §2.1): pods whose CPU:memory shape fits another pool than their node's.
/// Pools are the values of the pool label, or shapes inferred from allocatable when nodes carry
/// none. One finding per owning workload.
class PoolMismatch final : public Detector {
 public:
  using Settings = PoolMismatchSettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
