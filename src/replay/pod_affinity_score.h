#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "replay/node_state.h"
#include "replay/replay_input.h"

namespace dagadvisor::replay {

/// InterPodAffinity's score for each of `feasible` (node ids, in that order), normalised to
/// 0 … kMaxNodeScore as kube-scheduler does: (raw − min) × 100 / (max − min) over the feasible
/// nodes, 0 everywhere when they are all equal. The raw score of a node sums, over the bound pods
/// (`states`) in its topology domain: each of the incoming pod's preferred terms matching a bound
/// pod of its namespace, and each of a bound pod's preferred terms matching the incoming pod
/// (the symmetric half), ± the term's weight. A node without the term's topology label is in no
/// domain, except for kubernetes.io/hostname, which every node has (its name) even where
/// kube-state-metrics' allow-list drops the label.
std::vector<std::int64_t> interPodAffinityScores(const ReplayPod& pod,
                                                 std::span<const ReplayNodeId> feasible,
                                                 const std::vector<ReplayNode>& nodes,
                                                 const std::vector<NodeState>& states,
                                                 const std::vector<ReplayPod>& pods);

}  // namespace dagadvisor::replay
