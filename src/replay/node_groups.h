#pragma once

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

#include "replay/filter.h"
#include "replay/replay_input.h"

// Nodes the static filters cannot tell apart, and the groups of them a pod could ever run on.
// A cluster of thousands of nodes has a few dozen such groups (its pools), so what holds for a
// pod on one node of a group holds on all of them: the reach of a change (scope.h) and the
// replay's skipping of attempts nothing could have changed are decided per group.
namespace dagadvisor::replay {

using NodeGroup = std::size_t;

/// What the static filters and NodeResourcesFit read of a pod, as a key: pods with equal keys
/// may use the same nodes.
std::string placementKey(const ReplayPod& pod);

/// What the score plugins read of a pod beyond its requests (its preferred pod affinity terms), as
/// a key: a change to it changes where the pod goes, though not where it may go.
std::string scoringKey(const ReplayPod& pod);

/// What the static filters and NodeResourcesFit read of a node, as a key; without the hostname
/// label, the key of its group.
std::string nodeKey(const ReplayNode& node, bool with_hostname);

/// Whether the placement of `pod` names single nodes (a node selector or required affinity on
/// the hostname label): then its nodes must be checked one by one, not per group.
bool readsHostname(const ReplayPod& pod);

/// Nodes grouped by everything the static filters and NodeResourcesFit read of them except the
/// hostname label. Several inputs (a window before and after a change) share a group where
/// their nodes are alike.
class NodeGroups {
 public:
  /// Adds the nodes of `input`; returns the group of each node, by ReplayNodeId.
  std::vector<NodeGroup> add(const ReplayInput& input);
  std::size_t size() const { return representatives_.size(); }
  const ReplayNode& representative(NodeGroup g) const { return representatives_[g]; }

 private:
  std::unordered_map<std::string, NodeGroup> index_;
  std::vector<ReplayNode> representatives_;
};

/// What one placement may use: the groups a pod could ever run on (static filters passed,
/// requests within allocatable), and per group what the static filters answer (a pod may pass
/// them on a node too small for it: that rejection is NodeResourcesFit's, which the scheduler
/// treats as one a pod leaving could lift).
struct EligibleGroups {
  std::vector<NodeGroup> groups;            // sorted, without repeats
  std::vector<FilterResult> static_filter;  // by group; empty for a pod naming nodes
  std::vector<ReplayNodeId> static_nodes;   // ascending: the nodes the static filters pass
};

/// The node groups each pod of one input may use, memoised by placement: the pods of one task
/// shape share the answer.
class PodEligibility {
 public:
  /// `group_of` is what NodeGroups::add() returned for `input`; both must outlive this.
  PodEligibility(const ReplayInput& input, const NodeGroups& groups,
                 const std::vector<NodeGroup>& group_of)
      : input_(input), groups_(groups), group_of_(group_of) {}

  /// The reference stays valid for the life of this object, except for a pod that reads the
  /// hostname (checked node by node, `static_filter` empty): valid until the next such call.
  const EligibleGroups& of(const ReplayPod& pod);

 private:
  const ReplayInput& input_;
  const NodeGroups& groups_;
  const std::vector<NodeGroup>& group_of_;
  std::unordered_map<std::string, EligibleGroups> memo_;
  EligibleGroups by_node_;  // the answer for a pod that reads the hostname
};

}  // namespace dagadvisor::replay
