#pragma once

#include <cstddef>

#include "replay/node_state.h"
#include "replay/replay_input.h"

namespace dagadvisor::replay {

/// Why a node was filtered out, in the order the default profile's Filter plugins run.
enum class FilterResult {
  kFits,
  kUnschedulableNode,  // NodeUnschedulable: cordoned
  kNodeAffinity,       // NodeAffinity: nodeSelector or required node affinity
  kTaint,              // TaintToleration: an untolerated NoSchedule/NoExecute taint
  kTooManyPods,        // NodeResourcesFit: pod count at the kubelet's maximum
  kInsufficient,       // NodeResourcesFit: cpu, memory or GPUs
};

/// True for the rejections a pod leaving the node can lift (so preemption and a retry after a
/// pod finished can help): kube-scheduler's Unschedulable as opposed to
/// UnschedulableAndUnresolvable.
inline bool resolvable(FilterResult r) {
  return r == FilterResult::kTooManyPods || r == FilterResult::kInsufficient;
}

/// The first Filter plugin of the default profile that rejects `pod` on `node` in `state`, or
/// kFits. The static plugins (unschedulable, affinity, taints) come first; NodeResourcesFit
/// checks only the resources the pod requests, as kube-scheduler does.
FilterResult filterNode(const ReplayPod& pod, const ReplayNode& node, const NodeState& state);

/// The static part alone (no resources): whether the node could ever take the pod.
FilterResult filterStatic(const ReplayPod& pod, const ReplayNode& node);

/// NodeResourcesFit alone, against `requested` and `pod_count` on the node.
FilterResult filterResources(const ReplayPod& pod, const ReplayNode& node,
                             const model::ResourceVector& requested, std::size_t pod_count);

/// How many feasible nodes kube-scheduler looks for before it stops filtering and scores them
/// (percentageOfNodesToScore), for a cluster of `nodes` and the configured percentage (0:
/// adaptive). Large clusters are thus never filtered in full for a pod that fits.
std::size_t feasibleNodesToFind(std::size_t nodes, int percentage);

}  // namespace dagadvisor::replay
