#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/detector.h"
#include "config/field.h"
#include "model/cluster.h"

namespace dagadvisor::analysis {

/// One owner (kind, namespace, name) of non-GPU pods on a hoarded node, largest CPU first.
struct NonGpuOwner {
  std::string kind;  // "DaemonSet", "ReplicaSet", "Job", … ("Pod" when unowned)
  std::string namespace_;
  std::string name;
  std::size_t pods = 0;
  std::int64_t cpu_millis = 0;
  std::int64_t memory_bytes = 0;
};

/// A pending GPU pod that does not fit the node although its GPUs are free.
struct BlockedGpuPod {
  std::string namespace_;
  std::string pod;
  model::ResourceVector requests;
  bool fits_if_movable_pods_leave = false;
  std::optional<double> waiting_seconds;  // since created, when known
};

/// Evidence of one hoarded GPU node.
struct GpuNodeHoardingEvidence {
  static constexpr std::string_view kKind = "gpu-node-hoarding";
  std::string node;
  model::ResourceVector allocatable;
  model::ResourceVector free;
  model::ResourceVector non_gpu;  // requested by pods asking for no GPU
  model::ResourceVector movable;  // the part of non_gpu not held by DaemonSets
  double non_gpu_cpu_share = 0;
  double non_gpu_memory_share = 0;
  std::vector<model::Taint> taints;
  std::int64_t stranded_gpus = 0;             // free GPUs the blocked pods would take
  std::int64_t gpus_unblocked_by_moving = 0;  // placed in the room moving movable pods leaves
  std::vector<NonGpuOwner> non_gpu_owners;
  std::vector<BlockedGpuPod> pending_gpu_pods;

  nlohmann::json toJson() const;
};

/// The settings of gpu-node-hoarding: `detectors.gpu_node_hoarding` in the configuration file.
struct GpuNodeHoardingSettings {
  static constexpr std::string_view kSection = "gpu_node_hoarding";

  bool enabled = true;
  int min_free_gpus = 1;
  bool require_pending_gpu_pods = true;
  double min_non_gpu_share = 0.5;
  std::string taint_key = "nvidia.com/gpu";

  bool operator==(const GpuNodeHoardingSettings&) const = default;
  /// This section's rows, each with its rule and what it means: the one place the
  /// settings are documented (the example file and docs/findings.md are checked against it).
  std::vector<config::Field> fields();
};

/// gpu-node-hoarding (seed §1): GPU nodes whose CPU or memory is requested by pods that use no
/// GPU (log collectors, node agents, small services), so GPUs sit unallocated while GPU pods pend
/// for lack of CPU or memory. One finding per node, with the owners that hold it and the pending
/// GPU pods that would fit if those owners stayed off the node.
class GpuNodeHoarding final : public Detector {
 public:
  using Settings = GpuNodeHoardingSettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
