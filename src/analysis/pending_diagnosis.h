#pragma once

#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/cluster.h"

namespace dagadvisor::analysis {

/// What keeps one pending pod pending. Every pending, unbound pod gets exactly one cause; the
/// tests run in this order and the first that holds decides:
///  1. kQueue: the pod fits the free capacity of a node it may land on (NodeEligibility) now.
///     Nothing in the cluster needs to change: the scheduler has not placed it yet (queue
///     order, priority, backoff). First, because any other cause would prescribe a change that
///     is not needed.
///  2. kConstraints: the pod fits now only on nodes its known constraints exclude (taints it
///     does not tolerate, labels its node selector does not match), or no node it may land on
///     could hold it even empty while an excluded one could. Before the resource causes: lifting
///     the constraint is the fix, and counting the excluded nodes as room would call the pod
///     fragmented or hoarded.
///  3. kHoarding: a GPU pod that fits a GPU node it may land on once that node's movable non-GPU
///     pods (all but DaemonSets, which run on every node anyway) leave. A matching, first-fit
///     decreasing: each pod is placed once, several on one node while the freed room holds
///     them, so the GPUs it unblocks are counted once. Before fragmentation and capacity,
///     because the pooled capacity left after the moves is what those are judged against, and
///     fragmentation's remedy (packing tighter) would pull more small pods onto GPU nodes.
///  4. kFragmentation: the pooled free capacity (the cluster as one node) of the nodes that may
///     and could hold the pod still holds it once the hoarding pods and the larger pending pods
///     took theirs, and the nodes have a free slot of its shape (allocatable minus DaemonSets,
///     minus the bound and already claimed pods of the shape), yet no single node has room.
///  5. kCapacity: the rest; no repacking or move places them: nodes are missing.
/// Pods are taken largest first (GPUs, CPU, memory) in 3 to 5, as first-fit decreasing would.
enum class PendingCause { kQueue = 0, kConstraints, kHoarding, kFragmentation, kCapacity };
inline constexpr std::size_t kPendingCauses = 5;

/// "queue", "constraints", "hoarding", "fragmentation", "capacity".
std::string_view pendingCauseName(PendingCause cause);

/// One pending pod's diagnosis.
struct PendingPodDiagnosis {
  model::PodId pod = 0;
  PendingCause cause = PendingCause::kCapacity;
  /// kQueue: a node it fits now; kConstraints: an excluded node it would fit (kNoNode when the
  /// constraint leaves it no node shape at all); kHoarding: the GPU node it is matched to.
  model::NodeId node = model::kNoNode;
};

/// How a GPU node with free GPUs holds back pending GPU pods, if it does.
enum class GpuNodeHold {
  kNone,
  /// Pending pods are matched to the room its movable non-GPU pods would leave.
  kMovable,
  /// A blocked GPU pod would fit in that room, but the matching placed every such pod on
  /// other nodes: the node is held, and no pending pod needs it now.
  kMovableUnmatched,
  /// Only with its DaemonSets' requests released too would a blocked GPU pod fit: moving
  /// workloads frees nothing; the DaemonSets' requests are what to change.
  kDaemonSets,
};

/// A GPU node with free GPUs and non-GPU pods on it, as the hoarding test saw it.
struct GpuNodeDiagnosis {
  model::NodeId node = 0;
  GpuNodeHold hold = GpuNodeHold::kNone;
  model::ResourceVector non_gpu;      // requested by pods asking for no GPU
  model::ResourceVector movable;      // the part of non_gpu not held by DaemonSets
  std::vector<model::PodId> matched;  // kMovable: the pods placed in the freed room
  std::int64_t gpus_unblocked = 0;    // GPUs the matched pods take
  /// kDaemonSets: the CPU and memory the DaemonSets would have to give back on this node for the
  /// smallest blocked GPU pod to fit.
  model::ResourceVector daemonset_excess;
};

/// One pending pod shape (exact requests) with the fit-count figures of stranded-resources and
/// how many of its pods each cause holds.
struct PendingShapeDiagnosis {
  model::ResourceVector requests;
  std::size_t pending = 0;
  std::int64_t fit = 0;     // Σ over usable nodes of the pods each node's free room holds
  std::int64_t pooled = 0;  // the pods the usable nodes' pooled free room holds
  std::int64_t slots = 0;   // Σ over usable nodes of the pods each holds besides its DaemonSets
  std::int64_t bound = 0;   // pods of the shape bound to a usable node now
  std::array<std::size_t, kPendingCauses> by_cause{};
};

/// The kube-state-metrics flag that exports kube_pod_nodeselectors (opt-in since v2.5.0).
inline constexpr const char* kNodeSelectorsOptIn = "--metric-opt-in-list=kube_pod_nodeselectors";
/// Where required node affinity is read from (kube-state-metrics does not export it).
inline constexpr const char* kAffinitySource =
    "sources.kubernetes (LIST pods with fieldSelector status.phase=Pending)";

/// Which constraints test 2 could check: the pods' own tolerations and node selectors where
/// kube-state-metrics exports them, the inference of NodeEligibility where it does not.
struct ConstraintsChecked {
  bool tolerations_exported = false;     // kube_pod_tolerations answered
  bool node_selectors_exported = false;  // kube_pod_nodeselectors answered (opt-in)
  std::size_t tolerations_known = 0;     // pending pods whose own tolerations were read
  std::size_t node_selectors_known = 0;  // pending pods whose own node selector was read
  /// Selector keys no node's exported labels show (not allow-listed, or on no node): not checked.
  std::vector<std::string> unseen_selector_keys;  // at most kMaxUnseenKeys
  static constexpr std::size_t kMaxUnseenKeys = 10;
  /// Required node affinity: read only through the Kubernetes API's LIST of pending pods.
  bool affinity_listed = false;    // that LIST answered (ClusterSnapshot::pendingSpecsListed)
  std::size_t affinity_known = 0;  // pending pods it listed
  std::size_t affinity_pods = 0;   // of which have a required node affinity
  std::vector<std::string> unseen_affinity_keys;  // no node shows them: at most kMaxUnseenKeys

  static ConstraintsChecked of(const model::ClusterSnapshot& cluster);
  /// {"tolerations": {"source", "pods"}, "node_selectors": {"source", "pods", "enable"?,
  /// "unseen_keys"?}, "node_affinity": {"source", "pods", "required", "enable"?,
  /// "unseen_keys"?}}
  nlohmann::json toJson() const;
  /// What could not be checked and how to enable it, as a sentence ("Node affinity was checked
  /// …" when it was); never empty, since it always says what became of node affinity.
  std::string notChecked() const;

 private:
  std::string affinityWords() const;
};

/// A pod of kConstraints and what keeps it off a node that could hold it.
struct ConstrainedPod {
  std::string pod;          // namespace/name
  std::string node;         // the excluded node it would fit ("" when none is named)
  std::string excluded_by;  // NodeEligibility::exclusion(), e.g. "required node affinity (…)"
  static constexpr std::size_t kMaxListed = 5;
};

/// How many pending pods each cause holds: carried by each of the three kinds' evidence, so that
/// one finding tells where the other pods went.
struct DiagnosisCounts {
  std::size_t pending_pods = 0;
  std::array<std::size_t, kPendingCauses> by_cause{};
  std::size_t hoarded_nodes = 0;  // GPU nodes whose hold is kMovable
  ConstraintsChecked checked;
  std::vector<ConstrainedPod> constrained;  // the first ConstrainedPod::kMaxListed

  std::size_t of(PendingCause cause) const { return by_cause[static_cast<std::size_t>(cause)]; }
  /// {"pending_pods": N, "queue": …, "constraints": …, "hoarding": …, "fragmentation": …,
  /// "capacity": …, "hoarded_nodes": …, "constraints_checked": {…}, "constrained": [{"pod",
  /// "node", "excluded_by"}]}
  nlohmann::json toJson() const;
};

/// The one diagnosis of a cycle's pending pods, shared by gpu-node-hoarding, stranded-resources
/// and capacity-shortfall so that each reports only its own pods.
struct PendingDiagnosis {
  std::vector<PendingPodDiagnosis> pods;  // one per ClusterSnapshot::pendingPods(), same order
  std::array<std::size_t, kPendingCauses> counts{};
  std::vector<GpuNodeDiagnosis> gpu_nodes;    // GPU nodes with a hold other than kNone
  std::vector<PendingShapeDiagnosis> shapes;  // largest first (GPUs, CPU, memory)
  /// The pooled free capacity of the usable nodes left once the hoarding and fragmentation pods
  /// are placed: what the capacity-blocked pods could still use.
  model::ResourceVector pool_left;
  ConstraintsChecked checked;
  std::vector<ConstrainedPod> constrained;  // the first ConstrainedPod::kMaxListed kConstraints

  std::size_t count(PendingCause cause) const { return counts[static_cast<std::size_t>(cause)]; }
  /// The pods of `cause`, in pendingPods() order.
  std::vector<model::PodId> podsOf(PendingCause cause) const;
  DiagnosisCounts summary() const;
};

/// Settings the diagnosis needs.
struct DiagnosisOptions {
  std::int64_t min_free_gpus = 1;  // a GPU node needs this many free to hold pods back
  std::string gpu_taint_key = "nvidia.com/gpu";  // GPU pods tolerate it (NodeEligibility)
};

/// The diagnosis of every pending pod of `cluster`. Pure: reads the snapshot only.
PendingDiagnosis diagnosePending(const model::ClusterSnapshot& cluster,
                                 const DiagnosisOptions& options = {});

}  // namespace dagadvisor::analysis
