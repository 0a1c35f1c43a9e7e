#include "replay/score.h"

#include <algorithm>
#include <cmath>

#include "replay/pod_affinity_score.h"

namespace dagadvisor::replay {
namespace {

std::int64_t leastRequested(std::int64_t requested, std::int64_t allocatable) {
  if (allocatable <= 0 || requested > allocatable) {
    return 0;
  }
  return (allocatable - requested) * kMaxNodeScore / allocatable;
}

double share(std::int64_t requested, std::int64_t allocatable) {
  return std::min(1.0, static_cast<double>(requested) / static_cast<double>(allocatable));
}

}  // namespace

std::int64_t leastAllocatedScore(const ReplayPod& pod, const ReplayNode& node,
                                 const NodeState& state) {
  const model::ResourceVector after = state.non_zero_requested + nonZeroRequests(pod.requests);
  const std::int64_t cpu = leastRequested(after.cpu_millis, node.allocatable.cpu_millis);
  const std::int64_t memory = leastRequested(after.memory_bytes, node.allocatable.memory_bytes);
  return (cpu + memory) / 2;
}

std::int64_t balancedAllocationScore(const ReplayPod& pod, const ReplayNode& node,
                                     const NodeState& state) {
  if (pod.requests.cpu_millis <= 0 && pod.requests.memory_bytes <= 0) {
    return 0;
  }
  const model::ResourceVector after = state.requested + pod.requests;
  std::vector<double> shares;
  if (node.allocatable.cpu_millis > 0) {
    shares.push_back(share(after.cpu_millis, node.allocatable.cpu_millis));
  }
  if (node.allocatable.memory_bytes > 0) {
    shares.push_back(share(after.memory_bytes, node.allocatable.memory_bytes));
  }
  const double std_dev = shares.size() == 2 ? std::abs(shares[0] - shares[1]) / 2 : 0;
  return static_cast<std::int64_t>((1 - std_dev) * static_cast<double>(kMaxNodeScore));
}

std::int64_t intolerablePreferNoSchedule(const ReplayPod& pod, const ReplayNode& node) {
  return std::count_if(node.taints.begin(), node.taints.end(), [&](const model::Taint& t) {
    return t.effect == "PreferNoSchedule" &&
           std::none_of(pod.tolerations.begin(), pod.tolerations.end(),
                        [&](const Toleration& tol) { return tol.tolerates(t); });
  });
}

std::vector<std::int64_t> scoreNodes(const ReplayPod& pod, std::span<const ReplayNodeId> feasible,
                                     const ScoringCluster& cluster, const ScoreWeights& weights) {
  const std::vector<ReplayNode>& nodes = cluster.nodes;
  const std::vector<NodeState>& states = cluster.states;
  const std::vector<std::int64_t> affinity =
      cluster.pod_affinity ? interPodAffinityScores(pod, feasible, nodes, states, cluster.pods)
                           : std::vector<std::int64_t>(feasible.size(), 0);
  std::vector<std::int64_t> taints(feasible.size());
  std::int64_t max_taints = 0;
  for (std::size_t i = 0; i < feasible.size(); ++i) {
    taints[i] = intolerablePreferNoSchedule(pod, nodes[feasible[i]]);
    max_taints = std::max(max_taints, taints[i]);
  }
  std::vector<std::int64_t> totals(feasible.size());
  for (std::size_t i = 0; i < feasible.size(); ++i) {
    const ReplayNode& node = nodes[feasible[i]];
    const NodeState& state = states[feasible[i]];
    const std::int64_t taint_score =
        max_taints == 0 ? kMaxNodeScore : kMaxNodeScore - taints[i] * kMaxNodeScore / max_taints;
    totals[i] = weights.least_allocated * leastAllocatedScore(pod, node, state) +
                weights.balanced_allocation * balancedAllocationScore(pod, node, state) +
                weights.taint_toleration * taint_score + weights.inter_pod_affinity * affinity[i];
  }
  return totals;
}

}  // namespace dagadvisor::replay
