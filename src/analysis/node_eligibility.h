#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/cluster.h"

namespace dagadvisor::analysis {

/// Which nodes a pending pod may land on, as far as the model knows: schedulable nodes with
/// allocatable CPU and memory whose NoSchedule / NoExecute taints the pod tolerates.
///
/// The default kube-state-metrics exports no tolerations, node selectors or affinity, so
/// tolerations are inferred from what was observed: a pod requesting GPUs tolerates taints keyed
/// `gpu_taint_key` (the ExtendedResourceToleration admission plugin, enabled on most GPU
/// clusters, adds that toleration), and a pod tolerates the hard taints of every node where a
/// pod of the same owner (namespace, kind, name) is or was bound. Node selectors and affinity are
/// not in the model and are not checked: a pod they exclude from a node is taken to fit it.
///
/// Nodes are grouped by their set of hard taints (few distinct sets even on large clusters), so
/// a pod's eligibility is one flag per group.
class NodeEligibility {
 public:
  NodeEligibility(const model::ClusterSnapshot& cluster, std::string gpu_taint_key);

  /// One flag per taint group ('1': the pod may land on the group's nodes), as a string so that
  /// callers can key memo tables by it.
  std::string groupsFor(const model::Pod& pod) const;
  /// Whether node `id` accepts pods and its group is allowed by `groups` (from groupsFor()).
  bool eligible(const std::string& groups, model::NodeId id) const {
    return usable_[id] && groups[group_of_[id]] == '1';
  }
  bool usable(model::NodeId id) const { return usable_[id]; }

 private:
  struct Group {
    std::vector<model::Taint> hard_taints;
  };
  bool tolerates(const model::Pod& pod, const model::Taint& taint) const;

  std::string gpu_taint_key_;
  std::vector<Group> groups_;
  std::vector<std::uint32_t> group_of_;  // by node
  std::vector<bool> usable_;             // by node
  // "namespace\x1fkind\x1fname" → "key\x1feffect" of the hard taints its bound pods sat under.
  std::vector<std::pair<std::string, std::string>> observed_;  // sorted
};

}  // namespace dagadvisor::analysis
