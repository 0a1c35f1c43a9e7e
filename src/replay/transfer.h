#pragma once

#include <optional>
#include <span>
#include <vector>

#include "replay/replay_input.h"

// Run times that depend on placement: a task fetches each parent's output from wherever the
// parent ran, and that fetch is part of its run time (started → finished). Where the DAG's runs
// measured what a crossing costs a task (analysis/transfer_measurement.h: the same task's run
// time with a parent in another zone against with every parent in its zone), the replay keeps
// the observed run time less what the observed placement cost, plus what its own costs. The
// measurement compares "some parent across zones" with "none", so that is what is charged: once.
namespace dagadvisor::replay {

/// What the placement of `pod` on `node` costs it, its parents placed on `parent_nodes` (the
/// replay's parents of the pod): where the pod's hand-offs are priced, each parent on another node
/// at its price (same zone or across) for `bytes_per_parent`; otherwise `cross_zone_seconds` when
/// one is in another zone, else 0.
/// nullopt when a parent on another node, or the pod, has no zone to compare: the run time is
/// then kept as observed.
std::optional<double> transferSeconds(const ReplayPod& pod, ReplayNodeId node,
                                      std::span<const ReplayNodeId> parent_nodes,
                                      const std::vector<ReplayNode>& nodes);

}  // namespace dagadvisor::replay
