#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "replay/node_state.h"
#include "replay/replay_input.h"

namespace dagadvisor::replay {

/// kube-scheduler's MaxNodeScore: every score plugin answers 0 … 100 per node.
inline constexpr std::int64_t kMaxNodeScore = 100;

/// Plugin weights of the default profile (KubeSchedulerConfiguration v1). InterPodAffinity scores
/// the preferred pod affinity terms a change adds (the model carries none of the observed ones).
/// The other default score plugins (NodeAffinity's preferred terms, PodTopologySpread,
/// ImageLocality) score on what the model does not carry, so they would add the same to every
/// node and are left out.
struct ScoreWeights {
  std::int64_t least_allocated = 1;      // NodeResourcesFit, scoring strategy LeastAllocated
  std::int64_t balanced_allocation = 1;  // NodeResourcesBalancedAllocation
  std::int64_t taint_toleration = 3;     // TaintToleration (PreferNoSchedule taints)
  std::int64_t inter_pod_affinity = 2;   // InterPodAffinity (preferred terms)
};

/// NodeResourcesFit LeastAllocated over cpu and memory (weight 1 each): the mean of
/// (allocatable − requested) × 100 / allocatable, with the node's requests plus the pod's, both
/// counted with the defaults for pods that request nothing (nonZeroRequests). Integer arithmetic
/// as in kube-scheduler.
std::int64_t leastAllocatedScore(const ReplayPod& pod, const ReplayNode& node,
                                 const NodeState& state);

/// NodeResourcesBalancedAllocation over cpu and memory: (1 − std) × 100 of the requested shares
/// (each capped at 1) once the pod is added; for two resources std = |share₁ − share₂| / 2.
/// 0 for a pod requesting neither, which kube-scheduler skips.
std::int64_t balancedAllocationScore(const ReplayPod& pod, const ReplayNode& node,
                                     const NodeState& state);

/// How many PreferNoSchedule taints of `node` the pod does not tolerate (TaintToleration's raw
/// score, normalised in scoreNodes).
std::int64_t intolerablePreferNoSchedule(const ReplayPod& pod, const ReplayNode& node);

/// What scoreNodes reads beyond the pod and the feasible nodes: the cluster as the scheduler's
/// snapshot holds it.
struct ScoringCluster {
  const std::vector<ReplayNode>& nodes;
  const std::vector<NodeState>& states;
  const std::vector<ReplayPod>& pods;
  /// Whether any pod of the window has a preferred pod affinity term: without one,
  /// InterPodAffinity adds the same to every node and is skipped (its PreScore does the same).
  bool pod_affinity = false;
};

/// The weighted total of every plugin for each of `feasible` (node ids), in the same order.
/// TaintToleration is normalised over the feasible nodes the way kube-scheduler's
/// DefaultNormalizeScore does it (reversed: fewer intolerable taints score higher).
std::vector<std::int64_t> scoreNodes(const ReplayPod& pod, std::span<const ReplayNodeId> feasible,
                                     const ScoringCluster& cluster,
                                     const ScoreWeights& weights = {});

}  // namespace dagadvisor::replay
