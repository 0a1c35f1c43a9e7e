#pragma once

#include <cstdint>
#include <vector>

#include "model/resources.h"
#include "replay/replay_input.h"

namespace dagadvisor::replay {

/// What kube-scheduler's NodeInfo holds of one node during the replay: the pods bound to it and
/// the sums of their requests, both as requested (for Filter and BalancedAllocation) and with
/// the scheduler's defaults for pods requesting no CPU or memory (for LeastAllocated).
struct NodeState {
  model::ResourceVector requested;
  model::ResourceVector non_zero_requested;
  std::vector<ReplayPodId> pods;  // bound now, in binding order

  void add(ReplayPodId id, const model::ResourceVector& requests);
  void remove(ReplayPodId id, const model::ResourceVector& requests);
};

/// kube-scheduler's defaults for scoring a pod that requests no CPU or no memory (100 millicores,
/// 200 MiB): without them such pods would all pile onto one node.
model::ResourceVector nonZeroRequests(const model::ResourceVector& requests);

}  // namespace dagadvisor::replay
