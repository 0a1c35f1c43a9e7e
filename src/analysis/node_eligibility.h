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

/// The keys the known required node affinities' matchExpressions name that no node of `cluster`
/// shows, sorted, as kube-state-metrics spells them: not checked, like unseenSelectorKeys().
std::vector<std::string> unseenAffinityKeys(const model::ClusterSnapshot& cluster);

/// Whether one requirement of a node selector term holds for a node whose value of the key is
/// `label` (nullopt: the node lacks it), with Kubernetes' operators: In, NotIn (true without
/// the label), Exists, DoesNotExist, Gt / Lt (the label and the single value compared as
/// integers; false when either is not one). Other operators match nothing.
bool requirementMatches(const model::NodeSelectorRequirement& requirement,
                        const std::optional<std::string>& label);

/// nodeSelectorTerms as one line: "(k In [a, b] and metadata.name In [n]) or (k Exists)".
std::string describeTerms(const std::vector<model::NodeSelectorTerm>& terms);

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
/// (unseenSelectorKeys()).
///
/// A required node affinity is checked where the Kubernetes API listed the pod (sources.
/// kubernetes): its nodeSelectorTerms ORed, each term's matchExpressions and matchFields
/// (metadata.name) ANDed, with requirementMatches(); an expression on a key no node shows is not
/// checked (unseenAffinityKeys()), and a pod the API did not list is not checked for affinity.
///
/// Nodes are grouped by their set of hard taints, the values of the labels the pending pods'
/// selectors and affinities name, and their name where an affinity's matchFields names it (a
/// DaemonSet pod's own node), so few distinct groups remain even on large clusters and a pod's
/// eligibility is one flag per group.
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
  /// What keeps `pod` off node `id`, the first that does of: its required node affinity (with
  /// its terms), its node selector, a hard taint it does not tolerate ("taint k=v:NoSchedule");
  /// "" when none does.
  std::string exclusion(const model::Pod& pod, model::NodeId id) const;
  /// The group of node `id`: two nodes of one group accept the same pods.
  std::uint32_t group(model::NodeId id) const { return group_of_[id]; }

 private:
  struct Group {
    std::vector<model::Taint> hard_taints;
    /// The group's value of each of selector_keys_ (nullopt: the nodes lack the label).
    std::vector<std::optional<std::string>> selected;
    std::optional<std::string> named_node;  // the nodes' name, when a matchFields names it
  };
  bool inferredTolerates(const model::Pod& pod, const model::Taint& taint) const;
  bool tolerates(const model::Pod& pod, const model::Taint& taint) const;
  bool toleratesAll(const model::Pod& pod, const Group& group) const;
  bool selects(const model::Pod& pod, const Group& group) const;
  bool expressionHolds(const model::NodeSelectorRequirement& requirement, const Group& group) const;
  bool fieldHolds(const model::NodeSelectorRequirement& requirement, const Group& group) const;
  bool affinityAllows(const model::Pod& pod, const Group& group) const;

  std::string gpu_taint_key_;
  std::vector<std::string> selector_keys_;  // sorted: the named keys some node shows
  std::vector<std::string> named_nodes_;    // sorted: the node names matchFields name
  std::vector<Group> groups_;
  std::vector<std::uint32_t> group_of_;  // by node
  std::vector<bool> usable_;             // by node
  // "namespace\x1fkind\x1fname" → "key\x1feffect" of the hard taints its bound pods sat under.
  std::vector<std::pair<std::string, std::string>> observed_;  // sorted
};

}  // namespace dagadvisor::analysis
