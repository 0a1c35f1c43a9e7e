#pragma once

#include <cstddef>
#include <vector>

#include "replay/replay_input.h"

// A change reaches only the pods that could compete with the pods and nodes it edits: those that
// could run on the same nodes, and, through them, everything connected by a node two pods could
// both use or by a DAG edge. The replay of a change is bounded to that reach, so that a change to
// one GPU pool of a large cluster replays that pool and the runs using it, not the cluster.
namespace dagadvisor::replay {

/// The part of a window a change can reach: whole connected parts of the window, where a pod is
/// connected to every node it could ever run on (taints, node selector, required affinity,
/// allocatable; before or after the change), to the node it was observed on, and to the other
/// tasks of its run.
struct ReplayScope {
  std::vector<ReplayNodeId> nodes;  // ascending
  std::vector<ReplayPodId> pods;    // ascending
  std::vector<ReplayRunId> runs;    // ascending: every run has all its tasks in scope or none
  bool whole = false;               // the change reaches every node: replay the whole window
};

/// The reach of the edits that turned `before` into `after` (the same window with a ChangeSet
/// applied: the same pods, nodes and runs at the same indices). Empty when nothing differs.
ReplayScope scopeOfChange(const ReplayInput& before, const ReplayInput& after);

/// `input` restricted to `scope`, reindexed. The scheduler still looks for as many feasible
/// nodes as it would in the whole cluster (`scheduler_nodes`), so that a pool replayed alone is
/// filtered and scored as it would be among all the nodes.
ReplayInput restrictTo(const ReplayInput& input, const ReplayScope& scope);

}  // namespace dagadvisor::replay
