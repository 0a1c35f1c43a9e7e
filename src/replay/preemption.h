#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "replay/filter.h"
#include "replay/node_state.h"
#include "replay/replay_input.h"

namespace dagadvisor::replay {

/// Where DefaultPreemption would make room for a pod, and whom it evicts.
struct PreemptionPlan {
  ReplayNodeId node = 0;
  std::vector<ReplayPodId> victims;
};

/// What preemption reads of the replay's current state.
struct PreemptionView {
  const std::vector<ReplayPod>& pods;
  const std::vector<ReplayNode>& nodes;
  const std::vector<NodeState>& states;
  std::span<const UnixSeconds> bound_at;    // per pod: when it was bound (for the reprieve order)
  std::span<const std::uint8_t> evictable;  // per pod, 1 or 0: fixed pods are never evicted
  /// The preemptor's static filters answered per node group (node_groups.h): by node, its
  /// group; by group, their answer. Null: filter each node.
  std::span<const std::size_t> group_of = {};
  const std::vector<FilterResult>* static_filter = nullptr;
};

/// DefaultPreemption (PostFilter) for `preemptor`, which fits no node as they are. On each node
/// the static filters pass, every evictable pod of lower priority is removed; if the preemptor
/// then fits, the removed pods are reprieved one by one, most important first (higher priority,
/// then bound earlier), as long as it still fits; those left are the victims. Of the candidate
/// nodes it picks, as kube-scheduler does: the lowest highest-victim priority, then the
/// smallest sum of victim priorities, then the fewest victims, then the lowest node index.
/// nullopt when no node can be freed.
std::optional<PreemptionPlan> planPreemption(const ReplayPod& preemptor,
                                             const PreemptionView& view);

}  // namespace dagadvisor::replay
