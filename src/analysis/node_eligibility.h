#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/cluster.h"

namespace dagadvisor::analysis {

/// Kubernetes' ToleratesTaint: an empty effect matches every effect, an empty key with Exists
/// every taint; Exists ignores the value, Equal ("" is Equal) compares it. Operators this
/// version does not know (Gt/Lt, alpha in 1.35) tolerate nothing, as in a scheduler without them.
bool toleratesTaint(const model::Toleration& toleration, const model::Taint& taint);

/// The keys the known node selectors name that no node of `cluster` shows, sorted. kube-state-
/// metrics exports only allow-listed node labels (--metric-labels-allowlist=nodes=[…]), so such
/// a key cannot be checked: NodeEligibility ignores it.
std::vector<std::string> unseenSelectorKeys(const model::ClusterSnapshot& cluster);

/// Whether every key of `selector` is a label of `labels` with the same value (nodeSelector).
bool selectorMatches(const model::LabelSet& selector, const model::LabelSet& labels);

/// Which nodes a pending pod may land on, as far as the model knows: schedulable nodes with
/// allocatable CPU and memory whose NoSchedule / NoExecute taints the pod tolerates and whose
/// labels match its node selector.
///
/// Tolerations and node selectors are the pod's own when kube-state-metrics exports them
/// (kube_pod_tolerations; kube_pod_nodeselectors is opt-in). Where they are not known,
/// tolerations are inferred from what was observed: a pod requesting GPUs tolerates taints keyed
/// `gpu_taint_key` (the ExtendedResourceToleration admission plugin, enabled on most GPU
/// clusters, adds that toleration), and a pod tolerates the hard taints of every node where a
/// pod of the same owner (namespace, kind, name) is or was bound; an unknown node selector is
/// not checked (a node it would exclude is taken to fit), nor is a selector key no node shows
/// (unseenSelectorKeys()). Node affinity is never checked.
///
/// Nodes are grouped by their set of hard taints and the values of the labels the pending
/// pods' selectors name (few distinct groups even on large clusters), so a pod's eligibility is
/// one flag per group.
class NodeEligibility {
 public:
  NodeEligibility(const model::ClusterSnapshot& cluster, std::string gpu_taint_key);

  /// One flag per node group ('1': the pod may land on the group's nodes), as a string so that
  /// callers can key memo tables by it.
  std::string groupsFor(const model::Pod& pod) const;
  /// Whether node `id` accepts pods and its group is allowed by `groups` (from groupsFor()).
  bool eligible(const std::string& groups, model::NodeId id) const {
    return usable_[id] && groups[group_of_[id]] == '1';
  }
  bool usable(model::NodeId id) const { return usable_[id]; }
  /// The group of node `id`: two nodes of one group accept the same pods.
  std::uint32_t group(model::NodeId id) const { return group_of_[id]; }

 private:
  struct Group {
    std::vector<model::Taint> hard_taints;
    /// The group's value of each of selector_keys_ (nullopt: the nodes lack the label).
    std::vector<std::optional<std::string>> selected;
  };
  bool inferredTolerates(const model::Pod& pod, const model::Taint& taint) const;
  bool toleratesAll(const model::Pod& pod, const Group& group) const;
  bool selects(const model::Pod& pod, const Group& group) const;

  std::string gpu_taint_key_;
  std::vector<std::string> selector_keys_;  // sorted: the named keys some node shows
  std::vector<Group> groups_;
  std::vector<std::uint32_t> group_of_;  // by node
  std::vector<bool> usable_;             // by node
  // "namespace\x1fkind\x1fname" → "key\x1feffect" of the hard taints its bound pods sat under.
  std::vector<std::pair<std::string, std::string>> observed_;  // sorted
};

}  // namespace dagadvisor::analysis
