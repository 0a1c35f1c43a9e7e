#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "model/cluster.h"

namespace dagadvisor::replay {

/// The operators of a Kubernetes label selector requirement (matchExpressions).
enum class SelectorOp { kIn, kNotIn, kExists, kDoesNotExist };

/// One requirement of a label selector: `key op values`. Keys may be spelled as on the object
/// ("dag-id") or as kube-state-metrics exports them ("dag_id"): LabelSet accepts both.
struct LabelRequirement {
  std::string key;
  SelectorOp op = SelectorOp::kIn;
  std::vector<std::string> values;

  bool matches(const model::LabelSet& labels) const;
};

/// A label selector: every requirement must hold (an empty selector matches everything, as in
/// Kubernetes).
struct LabelSelector {
  std::vector<LabelRequirement> requirements;

  /// matchLabels {key: value, …}: one `In` requirement per pair.
  static LabelSelector equals(const std::vector<std::pair<std::string, std::string>>& pairs);
  bool matches(const model::LabelSet& labels) const;
};

/// requiredDuringSchedulingIgnoredDuringExecution of a node affinity: the node must match one of
/// the terms (OR); no term means no constraint.
struct RequiredNodeAffinity {
  std::vector<LabelSelector> terms;

  bool matches(const model::LabelSet& node_labels) const;
};

/// One preferredDuringSchedulingIgnoredDuringExecution term of a pod affinity (or, `anti`, a pod
/// anti-affinity): nodes in the same `topology_key` domain as bound pods of the pod's namespace
/// matching `selector` score `weight` higher (anti: lower). InterPodAffinity scores it.
struct PreferredPodAffinityTerm {
  std::int64_t weight = 0;  // 1 … 100
  bool anti = false;
  LabelSelector selector;
  std::string topology_key;

  /// The term's contribution per matching pod: `weight`, negated for an anti-affinity.
  std::int64_t signedWeight() const { return anti ? -weight : weight; }
};

enum class TolerationOp { kEqual, kExists };

/// A pod toleration. An empty key with kExists tolerates every taint; an empty effect tolerates
/// every effect of the key.
struct Toleration {
  std::string key;
  TolerationOp op = TolerationOp::kEqual;
  std::string value;
  std::string effect;

  bool tolerates(const model::Taint& taint) const;
};

}  // namespace dagadvisor::replay
