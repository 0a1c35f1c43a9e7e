#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/detector.h"
#include "analysis/evidence.h"
#include "analysis/pending_diagnosis.h"
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

/// A pending GPU pod matched to a hoarded node: it fits there once the movable pods leave.
struct BlockedGpuPod {
  std::string namespace_;
  std::string pod;
  model::ResourceVector requests;
  std::optional<double> waiting_seconds;  // since created, when known
};

/// A DAG whose runs have pods requesting GPUs (any run rebuilt in the lookback). Its runs to come
/// are made where its engine defines it, so a toleration the GPU pods need goes there, and on
/// the runs still in flight, not only on the pods live now: a taint that lands while the DAG's
/// next GPU pods lack it locks them out.
struct GpuDag {
  RunScope scope;                         // the latest run seen
  std::vector<LabelPairs> run_selectors;  // of every run seen
  std::vector<std::string> runs;
  std::vector<std::string> unfinished_runs;  // a pod of theirs pending or running
};

/// Evidence of one GPU node that holds pending GPU pods back (PendingDiagnosis::gpu_nodes).
struct GpuNodeHoardingEvidence {
  static constexpr std::string_view kKind = "gpu-node-hoarding";
  static constexpr std::size_t kMaxListed = 20;
  std::string node;
  /// "movable" (pending pods matched here: hoarding), "movable-unmatched" (held, but every pod
  /// it could take is matched elsewhere), "daemonsets" (only DaemonSets stand in the way: not
  /// hoarding by movable workloads), "share" (no pod held back; reported for its share).
  std::string hold;
  model::ResourceVector allocatable;
  model::ResourceVector free;
  model::ResourceVector non_gpu;  // requested by pods asking for no GPU
  model::ResourceVector movable;  // the part of non_gpu not held by DaemonSets
  double non_gpu_cpu_share = 0;
  double non_gpu_memory_share = 0;
  std::vector<model::Taint> taints;
  /// GPUs the pods matched here take: each pending pod is matched to one node only, so the
  /// sum over the findings is what moving unblocks in all.
  std::int64_t gpus_unblocked_by_moving = 0;
  /// "daemonsets": the CPU and memory the DaemonSets would have to request less here for the
  /// smallest held-back GPU pod to fit.
  model::ResourceVector daemonset_excess;
  std::vector<NonGpuOwner> non_gpu_owners;  // the kMaxListed largest by CPU
  std::size_t non_gpu_owners_total = 0;
  std::vector<BlockedGpuPod> pending_gpu_pods;  // matched here, the first kMaxListed
  std::size_t pending_gpu_pods_total = 0;
  DiagnosisCounts diagnosis;  // the cluster's pending pods by cause
  /// Cluster-wide, the same in every finding of a cycle: the non-DaemonSet pods without GPUs on
  /// the hoarded nodes, and how many of them the free room of the nodes without GPUs takes
  /// together. Those it does not take would pend once moved, or push out the CPU work there.
  std::size_t pods_to_move = 0;
  std::size_t pods_to_move_with_room = 0;
  /// Cluster-wide too: the DAGs with GPU pods, in (namespace, DAG) order.
  std::vector<GpuDag> gpu_dags;

  bool hoarded() const { return hold == "movable"; }
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
/// for lack of CPU or memory. One finding per node the pending diagnosis (pending_diagnosis.h)
/// names: `warning` where pending GPU pods are matched to the room its movable pods would leave
/// (each pod on one node), `info` where the pods it could take are matched elsewhere or only its
/// DaemonSets stand in the way.
class GpuNodeHoarding final : public Detector {
 public:
  using Settings = GpuNodeHoardingSettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
