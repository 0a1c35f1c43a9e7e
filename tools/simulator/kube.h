// Kubernetes scheduling semantics of dagadvisor-sim: the parts of a Pod spec kube-scheduler
// reads (tolerations, nodeSelector, node affinity, pod affinity and anti-affinity, priority),
// typed, with the matching rules of the Kubernetes API (k8s.io/component-helpers). Objects are
// built and patched as nlohmann::json shaped like the API objects; the scheduler reads only the
// typed view parsed from them here.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dagadvisor::sim {

using KeyValues = std::vector<std::pair<std::string, std::string>>;

/// The value of `key` in an ordered label list, or nullptr.
const std::string* labelValue(const KeyValues& labels, const std::string& key);

struct Taint {
  std::string key;
  std::string value;
  std::string effect;  // NoSchedule | PreferNoSchedule | NoExecute
};

struct Toleration {
  std::string key;  // empty with operator Exists: tolerates every key
  std::string op = "Equal";
  std::string value;
  std::string effect;  // empty: every effect
  std::optional<long long> seconds;
};

/// A node selector requirement or a label selector expression:
/// In, NotIn, Exists, DoesNotExist (and Gt, Lt for node selectors).
struct Requirement {
  std::string key;
  std::string op;
  std::vector<std::string> values;
};

/// The requirements of one term, ANDed.
using SelectorTerm = std::vector<Requirement>;

struct LabelSelector {
  KeyValues matchLabels;
  SelectorTerm matchExpressions;
};

struct PodAffinityTerm {
  LabelSelector selector;
  std::string topologyKey;
  std::vector<std::string> namespaces;  // empty: the pod's own namespace
  // Label keys whose values the API server copies from the pod into `selector` when the pod is
  // created (mergeLabelKeys): In for matchLabelKeys, NotIn for mismatchLabelKeys.
  std::vector<std::string> matchLabelKeys;
  std::vector<std::string> mismatchLabelKeys;
};

template <typename Term>
struct Weighted {
  int weight = 1;
  Term term;
};

/// What kube-scheduler reads from a Pod spec.
struct SchedulingSpec {
  std::vector<Toleration> tolerations;
  KeyValues nodeSelector;
  std::vector<SelectorTerm> requiredNodeTerms;  // ORed; empty: no required node affinity
  std::vector<Weighted<SelectorTerm>> preferredNodeTerms;
  std::vector<PodAffinityTerm> requiredAffinity;
  std::vector<PodAffinityTerm> requiredAntiAffinity;
  std::vector<Weighted<PodAffinityTerm>> preferredAffinity;
  std::vector<Weighted<PodAffinityTerm>> preferredAntiAffinity;
  std::string priorityClassName;

  bool hasPodAffinity() const {
    return !requiredAffinity.empty() || !requiredAntiAffinity.empty() ||
           !preferredAffinity.empty() || !preferredAntiAffinity.empty();
  }
};

/// v1.Toleration.ToleratesTaint: an empty key with Exists matches every taint; an empty
/// effect matches every effect.
bool toleratesTaint(const Toleration& toleration, const Taint& taint);

/// True when every NoSchedule and NoExecute taint is tolerated (PreferNoSchedule only scores).
bool toleratesHardTaints(const std::vector<Toleration>& tolerations,
                         const std::vector<Taint>& taints);

/// PreferNoSchedule taints the pod does not tolerate (TaintToleration's score counts them).
int intolerablePreferNoSchedule(const std::vector<Toleration>& tolerations,
                                const std::vector<Taint>& taints);

bool matchesTerm(const SelectorTerm& term, const KeyValues& labels);
bool matchesSelector(const LabelSelector& selector, const KeyValues& labels);

/// nodeSelector and required node affinity, as the NodeAffinity filter checks them.
bool matchesRequiredNodeAffinity(const SchedulingSpec& spec, const KeyValues& nodeLabels);

/// Sum of the weights of the preferred node affinity terms the node matches.
int preferredNodeAffinityScore(const SchedulingSpec& spec, const KeyValues& nodeLabels);

/// The scheduling view of a Pod spec (`spec` of a Pod, or `spec.template.spec`); throws
/// std::invalid_argument naming the field when a present field has the wrong shape.
SchedulingSpec schedulingSpecOf(const nlohmann::json& podSpec);

/// What the API server does to a new pod's affinity terms (MatchLabelKeysInPodAffinity, beta
/// and on by default since Kubernetes 1.31): each `matchLabelKeys` key the pod carries joins
/// the term's selector as `key In (value)`, each `mismatchLabelKeys` key as `key NotIn (value)`;
/// a key the pod lacks is ignored. Without this, a term whose own selector is empty would match
/// every pod of the namespace.
void mergeLabelKeys(SchedulingSpec& spec, const KeyValues& podLabels);

/// Sum of containers[].resources.requests as cores, bytes and GPUs; throws on a bad quantity.
struct Requests {
  double cpu = 0;
  double memory = 0;
  int gpu = 0;
};
Requests requestsOf(const nlohmann::json& podSpec);

}  // namespace dagadvisor::sim
