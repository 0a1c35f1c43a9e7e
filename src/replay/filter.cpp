#include "replay/filter.h"

#include <algorithm>

namespace dagadvisor::replay {
namespace {

bool matchesNodeSelector(const ReplayPod& pod, const ReplayNode& node) {
  return std::all_of(pod.node_selector.begin(), pod.node_selector.end(), [&](const auto& kv) {
    const auto value = node.labels.get(kv.first);
    return value && *value == kv.second;
  });
}

bool toleratesAll(const ReplayPod& pod, const ReplayNode& node) {
  return std::all_of(node.taints.begin(), node.taints.end(), [&](const model::Taint& t) {
    if (t.effect != "NoSchedule" && t.effect != "NoExecute") {
      return true;  // PreferNoSchedule only scores
    }
    return std::any_of(pod.tolerations.begin(), pod.tolerations.end(),
                       [&](const Toleration& tol) { return tol.tolerates(t); });
  });
}

// A requested amount fits when it is zero or no more than what is left, as in NodeResourcesFit
// (a pod requesting no GPU fits a node whose GPUs are all taken).
bool fitsOne(std::int64_t request, std::int64_t allocatable, std::int64_t requested) {
  return request <= 0 || request <= allocatable - requested;
}

}  // namespace

FilterResult filterStatic(const ReplayPod& pod, const ReplayNode& node) {
  if (node.unschedulable) {
    return FilterResult::kUnschedulableNode;
  }
  if (!matchesNodeSelector(pod, node) || !pod.node_affinity.matches(node.labels)) {
    return FilterResult::kNodeAffinity;
  }
  return toleratesAll(pod, node) ? FilterResult::kFits : FilterResult::kTaint;
}

FilterResult filterResources(const ReplayPod& pod, const ReplayNode& node,
                             const model::ResourceVector& requested, std::size_t pod_count) {
  if (static_cast<std::int64_t>(pod_count) + 1 > node.max_pods) {
    return FilterResult::kTooManyPods;
  }
  const model::ResourceVector& r = pod.requests;
  const model::ResourceVector& a = node.allocatable;
  const bool fits = fitsOne(r.cpu_millis, a.cpu_millis, requested.cpu_millis) &&
                    fitsOne(r.memory_bytes, a.memory_bytes, requested.memory_bytes) &&
                    fitsOne(r.gpus, a.gpus, requested.gpus);
  return fits ? FilterResult::kFits : FilterResult::kInsufficient;
}

FilterResult filterNode(const ReplayPod& pod, const ReplayNode& node, const NodeState& state) {
  const FilterResult fixed = filterStatic(pod, node);
  if (fixed != FilterResult::kFits) {
    return fixed;
  }
  return filterResources(pod, node, state.requested, state.pods.size());
}

std::size_t feasibleNodesToFind(std::size_t nodes, int percentage) {
  constexpr std::size_t kMinFeasibleNodes = 100;
  constexpr int kMinPercentage = 5;
  if (nodes < kMinFeasibleNodes || percentage >= 100) {
    return nodes;
  }
  int share = percentage;
  if (share <= 0) {
    share = std::max(kMinPercentage, 50 - static_cast<int>(nodes / 125));
  }
  const std::size_t found = nodes * static_cast<std::size_t>(share) / 100;
  return std::max(found, kMinFeasibleNodes);
}

}  // namespace dagadvisor::replay
