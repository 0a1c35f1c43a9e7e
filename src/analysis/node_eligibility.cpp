#include "analysis/node_eligibility.h"

#include <algorithm>
#include <iterator>
#include <tuple>
#include <utility>

#include "analysis/stranding.h"

namespace dagadvisor::analysis {
namespace {

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

// Every label key the known node selectors name (those of the pending pods: the only ones
// read), sorted and unique.
std::vector<std::string> namedKeys(const model::ClusterSnapshot& cluster) {
  std::vector<std::string> keys;
  for (const model::Pod& pod : cluster.pods()) {
    if (const auto& selector = pod.node_selector) {
      for (const auto& [key, value] : selector->items()) {
        keys.push_back(key);
      }
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

bool someNodeCarries(const model::ClusterSnapshot& cluster, const std::string& key) {
  return std::any_of(cluster.nodes().begin(), cluster.nodes().end(),
                     [&](const model::Node& n) { return n.labels.has(key); });
}

// The named keys some node carries: the only ones a selector can be checked on.
std::vector<std::string> checkableKeys(const model::ClusterSnapshot& cluster) {
  std::vector<std::string> keys = namedKeys(cluster);
  keys.erase(std::remove_if(keys.begin(), keys.end(),
                            [&](const std::string& k) { return !someNodeCarries(cluster, k); }),
             keys.end());
  return keys;
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
  std::vector<std::string> keys = namedKeys(cluster);
  keys.erase(std::remove_if(keys.begin(), keys.end(),
                            [&](const std::string& k) { return someNodeCarries(cluster, k); }),
             keys.end());
  return keys;
}

bool selectorMatches(const model::LabelSet& selector, const model::LabelSet& labels) {
  return std::all_of(selector.items().begin(), selector.items().end(), [&](const auto& item) {
    const auto value = labels.get(item.first);
    return value && *value == item.second;
  });
}

NodeEligibility::NodeEligibility(const model::ClusterSnapshot& cluster, std::string gpu_taint_key)
    : gpu_taint_key_(std::move(gpu_taint_key)), selector_keys_(checkableKeys(cluster)) {
  const std::size_t n = cluster.nodes().size();
  group_of_.resize(n);
  usable_.resize(n);
  for (model::NodeId id = 0; id < n; ++id) {
    usable_[id] = acceptsPods(cluster.node(id));
    Group group{hardTaints(cluster.node(id)), selectedValues(cluster.node(id), selector_keys_)};
    auto it = std::find_if(groups_.begin(), groups_.end(), [&](const Group& g) {
      return sameTaints(g.hard_taints, group.hard_taints) && g.selected == group.selected;
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

bool NodeEligibility::toleratesAll(const model::Pod& pod, const Group& group) const {
  return std::all_of(group.hard_taints.begin(), group.hard_taints.end(), [&](const auto& taint) {
    if (!pod.tolerations) {
      return inferredTolerates(pod, taint);
    }
    return std::any_of(pod.tolerations->begin(), pod.tolerations->end(),
                       [&](const model::Toleration& t) { return toleratesTaint(t, taint); });
  });
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

std::string NodeEligibility::groupsFor(const model::Pod& pod) const {
  std::string flags(groups_.size(), '0');
  for (std::size_t g = 0; g < groups_.size(); ++g) {
    if (selects(pod, groups_[g]) && toleratesAll(pod, groups_[g])) {
      flags[g] = '1';
    }
  }
  return flags;
}

}  // namespace dagadvisor::analysis
