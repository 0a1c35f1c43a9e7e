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

/// How much of a move the target pool has room for now: a first-fit-decreasing packing of the
/// moved pods onto the free capacity (allocatable − requested) of its schedulable nodes.
struct PoolRoom {
  model::ResourceVector free;    // the pool's free capacity, summed over its schedulable nodes
  std::size_t pods_fitting = 0;  // of this workload's pods, those the free room takes, alone
  /// Every pod that all pool-mismatch findings move to this pool, and how many of them the free
  /// room takes together. A required node affinity is safe only when it takes them all; else
  /// the pods that find no room would pend, and a preferred affinity moves only those that fit.
  std::size_t pool_moves = 0;
  std::size_t pool_moves_fitting = 0;

  bool takesAll() const { return pool_moves_fitting == pool_moves; }
};

/// Evidence of one workload whose pods run outside the pool their shape fits.
struct PoolMismatchEvidence {
  static constexpr std::string_view kKind = "pool-mismatch";
  static constexpr std::size_t kMaxListedPods = 20;
  std::string namespace_;
  std::string owner_kind;  // "Pod" when unowned
  std::string owner_name;
  std::string pod_role;    // the role the pods' shape fits
  std::string pool_label;  // the node label that names pools
  SuggestedPool suggested_pool;
  PoolRoom room;                   // of suggested_pool, for these pods
  std::size_t pod_count = 0;       // misplaced pods of the workload
  std::vector<MisplacedPod> pods;  // the first kMaxListedPods of them

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
