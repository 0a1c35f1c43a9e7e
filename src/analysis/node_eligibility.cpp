#include "analysis/node_eligibility.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <string_view>
#include <tuple>
#include <utility>

#include "analysis/stranding.h"

namespace dagadvisor::analysis {
namespace {

const std::vector<model::NodeSelectorTerm> kNoTerms;

bool isHard(const model::Taint& t) {
  return t.effect == "NoSchedule" || t.effect == "NoExecute";
}

std::vector<model::Taint> hardTaints(const model::Node& node) {
  std::vector<model::Taint> out;
  std::copy_if(node.taints.begin(), node.taints.end(), std::back_inserter(out), isHard);
  std::sort(out.begin(), out.end(), [](const model::Taint& a, const model::Taint& b) {
    return std::tie(a.key, a.value, a.effect) < std::tie(b.key, b.value, b.effect);
  });
  return out;
}

bool sameTaints(const std::vector<model::Taint>& a, const std::vector<model::Taint>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const model::Taint& x, const model::Taint& y) {
                      return x.key == y.key && x.value == y.value && x.effect == y.effect;
                    });
}

std::string ownerKey(const model::Pod& pod) {
  return pod.namespace_ + '\x1f' + pod.owner_kind + '\x1f' + pod.owner_name;
}

std::string taintKey(const model::Taint& t) {
  return t.key + '\x1f' + t.effect;
}

std::vector<std::string> sortedUnique(std::vector<std::string> items) {
  std::sort(items.begin(), items.end());
  items.erase(std::unique(items.begin(), items.end()), items.end());
  return items;
}

// Every label key the known node selectors name (those of the pending pods: the only ones
// read), sorted and unique.
std::vector<std::string> selectorKeys(const model::ClusterSnapshot& cluster) {
  std::vector<std::string> keys;
  for (const model::Pod& pod : cluster.pods()) {
    if (const auto& selector = pod.node_selector) {
      for (const auto& [key, value] : selector->items()) {
        keys.push_back(key);
      }
    }
  }
  return sortedUnique(std::move(keys));
}

// What the pending pods' known required node affinities name, sorted and unique: the label
// keys of their matchExpressions as kube-state-metrics spells them (the spelling node labels
// are kept in), or the node names of their matchFields (metadata.name).
std::vector<std::string> affinityNames(const model::ClusterSnapshot& cluster, bool fields) {
  std::vector<std::string> names;
  for (model::PodId id : cluster.pendingPods()) {
    const auto& terms = cluster.pod(id).required_node_affinity;
    for (const model::NodeSelectorTerm& term : terms ? *terms : kNoTerms) {
      for (const model::NodeSelectorRequirement& r :
           fields ? term.match_fields : term.match_expressions) {
        if (fields) {
          names.insert(names.end(), r.values.begin(), r.values.end());
        } else {
          names.push_back(model::LabelSet::normalizeKey(r.key));
        }
      }
    }
  }
  return sortedUnique(std::move(names));
}

std::vector<std::string> affinityKeys(const model::ClusterSnapshot& cluster) {
  return affinityNames(cluster, /*fields=*/false);
}

bool someNodeCarries(const model::ClusterSnapshot& cluster, const std::string& key) {
  return std::any_of(cluster.nodes().begin(), cluster.nodes().end(),
                     [&](const model::Node& n) { return n.labels.has(key); });
}

std::vector<std::string> withoutCarried(const model::ClusterSnapshot& cluster,
                                        std::vector<std::string> keys, bool carried) {
  keys.erase(
      std::remove_if(keys.begin(), keys.end(),
                     [&](const std::string& k) { return someNodeCarries(cluster, k) == carried; }),
      keys.end());
  return keys;
}

// The named keys some node carries: the only ones a selector or an affinity can be checked on.
std::vector<std::string> checkableKeys(const model::ClusterSnapshot& cluster) {
  std::vector<std::string> keys = selectorKeys(cluster);
  const std::vector<std::string> affinity = affinityKeys(cluster);
  keys.insert(keys.end(), affinity.begin(), affinity.end());
  return withoutCarried(cluster, sortedUnique(std::move(keys)), /*carried=*/false);
}

bool contains(const std::vector<std::string>& values, std::string_view value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

std::optional<std::int64_t> integerOf(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) {
    return std::nullopt;
  }
  return value;
}

// Gt / Lt: the label and the one value both integers (the scheduler rejects anything else).
bool comparesAs(const std::optional<std::string>& label, const std::vector<std::string>& values,
                bool greater) {
  const auto have = label ? integerOf(*label) : std::nullopt;
  const auto bound = values.size() == 1 ? integerOf(values[0]) : std::nullopt;
  if (!have || !bound) {
    return false;
  }
  return greater ? *have > *bound : *have < *bound;
}

std::vector<std::optional<std::string>> selectedValues(const model::Node& node,
                                                       const std::vector<std::string>& keys) {
  std::vector<std::optional<std::string>> out;
  out.reserve(keys.size());
  for (const std::string& key : keys) {
    const auto value = node.labels.get(key);
    out.push_back(value ? std::optional<std::string>(*value) : std::nullopt);
  }
  return out;
}

}  // namespace

bool toleratesTaint(const model::Toleration& toleration, const model::Taint& taint) {
  if (!toleration.effect.empty() && toleration.effect != taint.effect) {
    return false;
  }
  if (!toleration.key.empty() && toleration.key != taint.key) {
    return false;
  }
  if (toleration.operator_ == "Exists") {
    return true;
  }
  return (toleration.operator_.empty() || toleration.operator_ == "Equal") &&
         toleration.value == taint.value;
}

std::vector<std::string> unseenSelectorKeys(const model::ClusterSnapshot& cluster) {
  return withoutCarried(cluster, selectorKeys(cluster), /*carried=*/true);
}

std::vector<std::string> unseenAffinityKeys(const model::ClusterSnapshot& cluster) {
  return withoutCarried(cluster, affinityKeys(cluster), /*carried=*/true);
}

bool requirementMatches(const model::NodeSelectorRequirement& requirement,
                        const std::optional<std::string>& label) {
  const std::string& op = requirement.operator_;
  if (op == "In") {
    return label && contains(requirement.values, *label);
  }
  if (op == "NotIn") {
    return !label || !contains(requirement.values, *label);
  }
  if (op == "Exists") {
    return label.has_value();
  }
  if (op == "DoesNotExist") {
    return !label;
  }
  if (op == "Gt" || op == "Lt") {
    return comparesAs(label, requirement.values, op == "Gt");
  }
  return false;  // an operator the API does not define matches nothing
}

bool selectorMatches(const model::LabelSet& selector, const model::LabelSet& labels) {
  return std::all_of(selector.items().begin(), selector.items().end(), [&](const auto& item) {
    const auto value = labels.get(item.first);
    return value && *value == item.second;
  });
}

NodeEligibility::NodeEligibility(const model::ClusterSnapshot& cluster, std::string gpu_taint_key)
    : gpu_taint_key_(std::move(gpu_taint_key)),
      selector_keys_(checkableKeys(cluster)),
      named_nodes_(affinityNames(cluster, /*fields=*/true)) {
  const std::size_t n = cluster.nodes().size();
  group_of_.resize(n);
  usable_.resize(n);
  for (model::NodeId id = 0; id < n; ++id) {
    const model::Node& node = cluster.node(id);
    usable_[id] = acceptsPods(node);
    Group group{hardTaints(node), selectedValues(node, selector_keys_), std::nullopt};
    if (std::binary_search(named_nodes_.begin(), named_nodes_.end(), node.name)) {
      group.named_node = node.name;
    }
    auto it = std::find_if(groups_.begin(), groups_.end(), [&](const Group& g) {
      return sameTaints(g.hard_taints, group.hard_taints) && g.selected == group.selected &&
             g.named_node == group.named_node;
    });
    if (it == groups_.end()) {
      groups_.push_back(std::move(group));
      it = groups_.end() - 1;
    }
    group_of_[id] = static_cast<std::uint32_t>(it - groups_.begin());
  }
  // Only owners of pending pods whose tolerations are not known are ever asked about.
  std::vector<std::string> asked;
  for (model::PodId id : cluster.pendingPods()) {
    const model::Pod& pod = cluster.pod(id);
    if (!pod.owner_name.empty() && !pod.tolerations) {
      asked.push_back(ownerKey(pod));
    }
  }
  std::sort(asked.begin(), asked.end());
  for (const model::Pod& pod : cluster.pods()) {
    if (asked.empty()) {
      break;
    }
    if (pod.node >= n || pod.owner_name.empty() ||
        groups_[group_of_[pod.node]].hard_taints.empty()) {
      continue;
    }
    std::string owner = ownerKey(pod);
    if (!std::binary_search(asked.begin(), asked.end(), owner)) {
      continue;
    }
    for (const model::Taint& t : groups_[group_of_[pod.node]].hard_taints) {
      observed_.emplace_back(owner, taintKey(t));
    }
  }
  std::sort(observed_.begin(), observed_.end());
  observed_.erase(std::unique(observed_.begin(), observed_.end()), observed_.end());
}

bool NodeEligibility::inferredTolerates(const model::Pod& pod, const model::Taint& taint) const {
  if (pod.requests.gpus > 0 && taint.key == gpu_taint_key_) {
    return true;
  }
  return !pod.owner_name.empty() &&
         std::binary_search(observed_.begin(), observed_.end(),
                            std::make_pair(ownerKey(pod), taintKey(taint)));
}

bool NodeEligibility::tolerates(const model::Pod& pod, const model::Taint& taint) const {
  if (!pod.tolerations) {
    return inferredTolerates(pod, taint);
  }
  return std::any_of(pod.tolerations->begin(), pod.tolerations->end(),
                     [&](const model::Toleration& t) { return toleratesTaint(t, taint); });
}

bool NodeEligibility::toleratesAll(const model::Pod& pod, const Group& group) const {
  return std::all_of(group.hard_taints.begin(), group.hard_taints.end(),
                     [&](const auto& taint) { return tolerates(pod, taint); });
}

// The group's values stand for its nodes' labels. A key no node shows is not checked: the
// node labels kube-state-metrics exports are allow-listed, so a missing one proves nothing.
bool NodeEligibility::selects(const model::Pod& pod, const Group& group) const {
  if (!pod.node_selector) {
    return true;  // not known: not checked
  }
  return std::all_of(
      pod.node_selector->items().begin(), pod.node_selector->items().end(), [&](const auto& item) {
        const auto at = std::lower_bound(selector_keys_.begin(), selector_keys_.end(), item.first);
        if (at == selector_keys_.end() || *at != item.first) {
          return true;  // no node shows the label: not checked
        }
        const auto& value = group.selected[static_cast<std::size_t>(at - selector_keys_.begin())];
        return value && *value == item.second;
      });
}

// A key no node shows is not checked, as for node selectors.
bool NodeEligibility::expressionHolds(const model::NodeSelectorRequirement& requirement,
                                      const Group& group) const {
  const std::string key = model::LabelSet::normalizeKey(requirement.key);
  const auto at = std::lower_bound(selector_keys_.begin(), selector_keys_.end(), key);
  if (at == selector_keys_.end() || *at != key) {
    return true;
  }
  return requirementMatches(requirement,
                            group.selected[static_cast<std::size_t>(at - selector_keys_.begin())]);
}

// matchFields: metadata.name is the only field the API allows.
bool NodeEligibility::fieldHolds(const model::NodeSelectorRequirement& requirement,
                                 const Group& group) const {
  return requirement.key == "metadata.name" && requirementMatches(requirement, group.named_node);
}

// Kubernetes' nodeSelectorTerms: the terms ORed, each term's requirements ANDed, an empty term
// matching nothing. An affinity not known is not checked.
bool NodeEligibility::affinityAllows(const model::Pod& pod, const Group& group) const {
  if (!pod.required_node_affinity || pod.required_node_affinity->empty()) {
    return true;
  }
  return std::any_of(pod.required_node_affinity->begin(), pod.required_node_affinity->end(),
                     [&](const model::NodeSelectorTerm& term) {
                       if (term.match_expressions.empty() && term.match_fields.empty()) {
                         return false;
                       }
                       return std::all_of(
                                  term.match_expressions.begin(), term.match_expressions.end(),
                                  [&](const auto& r) { return expressionHolds(r, group); }) &&
                              std::all_of(term.match_fields.begin(), term.match_fields.end(),
                                          [&](const auto& r) { return fieldHolds(r, group); });
                     });
}

std::string NodeEligibility::groupsFor(const model::Pod& pod) const {
  std::string flags(groups_.size(), '0');
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    if (selects(pod, groups_[g]) && affinityAllows(pod, groups_[g]) &&
        toleratesAll(pod, groups_[g])) {
      flags[g] = '1';
    }
  }
  return flags;
}

std::string NodeEligibility::exclusion(const model::Pod& pod, model::NodeId id) const {
  const Group& group = groups_[group_of_[id]];
  if (!affinityAllows(pod, group)) {
    return "required node affinity " + describeTerms(*pod.required_node_affinity);
  }
  if (!selects(pod, group)) {
    return "node selector";
  }
  for (const model::Taint& taint : group.hard_taints) {
    if (!tolerates(pod, taint)) {
      return "taint " + taint.key + (taint.value.empty() ? "" : "=" + taint.value) + ":" +
             taint.effect;
    }
  }
  return "";
}

std::string describeTerms(const std::vector<model::NodeSelectorTerm>& terms) {
  const auto requirement = [](const model::NodeSelectorRequirement& r) {
    std::string out = r.key + " " + r.operator_;
    if (!r.values.empty()) {
      out += " [";
      for (std::size_t i = 0; i < r.values.size(); ++i) {
        out += (i == 0 ? "" : ", ") + r.values[i];
      }
      out += "]";
    }
    return out;
  };
  std::string out;
  for (std::size_t t = 0; t < terms.size(); ++t) {
    out += t == 0 ? "(" : " or (";
    std::string sep;
    for (const auto* list : {&terms[t].match_expressions, &terms[t].match_fields}) {
      for (const model::NodeSelectorRequirement& r : *list) {
        out += sep + requirement(r);
        sep = " and ";
      }
    }
    out += ")";
  }
  return out;
}

}  // namespace dagadvisor::analysis
