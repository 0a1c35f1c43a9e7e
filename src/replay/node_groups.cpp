#include "replay/node_groups.h"

#include <algorithm>

namespace dagadvisor::replay {
namespace {

// A node selector or affinity may name a single node by its hostname label; every other label
// is shared by the nodes of a pool, so nodes are grouped by everything but the hostname, and
// pods whose placement reads the hostname are checked node by node.
constexpr std::string_view kHostnameKey = "kubernetes_io_hostname";

bool couldEverRun(const ReplayPod& pod, const ReplayNode& node) {
  return filterStatic(pod, node) == FilterResult::kFits &&
         filterResources(pod, node, {}, 0) == FilterResult::kFits;
}

void appendField(std::string& key, std::string_view field) {
  key.append(field);
  key.push_back('\x1f');
}

void appendNumber(std::string& key, std::int64_t value) {
  appendField(key, std::to_string(value));
}

void appendSelector(std::string& key, const LabelSelector& selector) {
  for (const LabelRequirement& r : selector.requirements) {
    appendField(key, r.key);
    appendNumber(key, static_cast<std::int64_t>(r.op));
    for (const std::string& v : r.values) {
      appendField(key, v);
    }
    key.push_back('\x1e');
  }
  key.push_back('\x1d');
}

}  // namespace

std::string placementKey(const ReplayPod& pod) {
  std::string key;
  appendNumber(key, pod.requests.cpu_millis);
  appendNumber(key, pod.requests.memory_bytes);
  appendNumber(key, pod.requests.gpus);
  for (const Toleration& t : pod.tolerations) {
    appendField(key, t.key);
    appendNumber(key, static_cast<std::int64_t>(t.op));
    appendField(key, t.value);
    appendField(key, t.effect);
  }
  key.push_back('\x1d');
  for (const auto& [k, v] : pod.node_selector) {
    appendField(key, k);
    appendField(key, v);
  }
  key.push_back('\x1d');
  for (const LabelSelector& term : pod.node_affinity.terms) {
    appendSelector(key, term);
  }
  return key;
}

std::string scoringKey(const ReplayPod& pod) {
  std::string key;
  for (const PreferredPodAffinityTerm& term : pod.preferred_pod_affinity) {
    appendNumber(key, term.signedWeight());
    appendField(key, term.topology_key);
    appendSelector(key, term.selector);
  }
  return key;
}

std::string nodeKey(const ReplayNode& node, bool with_hostname) {
  std::string key;
  appendNumber(key, node.allocatable.cpu_millis);
  appendNumber(key, node.allocatable.memory_bytes);
  appendNumber(key, node.allocatable.gpus);
  appendNumber(key, node.max_pods);
  appendNumber(key, node.unschedulable ? 1 : 0);
  for (const model::Taint& t : node.taints) {
    appendField(key, t.key);
    appendField(key, t.value);
    appendField(key, t.effect);
  }
  key.push_back('\x1d');
  for (const auto& [k, v] : node.labels.items()) {
    if (with_hostname || model::LabelSet::normalizeKey(k) != kHostnameKey) {
      appendField(key, k);
      appendField(key, v);
    }
  }
  return key;
}

bool readsHostname(const ReplayPod& pod) {
  const auto names = [](const std::string& k) {
    return model::LabelSet::normalizeKey(k) == kHostnameKey;
  };
  if (std::any_of(pod.node_selector.begin(), pod.node_selector.end(),
                  [&](const auto& kv) { return names(kv.first); })) {
    return true;
  }
  return std::any_of(pod.node_affinity.terms.begin(), pod.node_affinity.terms.end(),
                     [&](const LabelSelector& term) {
                       return std::any_of(term.requirements.begin(), term.requirements.end(),
                                          [&](const auto& r) { return names(r.key); });
                     });
}

std::vector<NodeGroup> NodeGroups::add(const ReplayInput& input) {
  std::vector<NodeGroup> group_of;
  group_of.reserve(input.nodes.size());
  for (const ReplayNode& node : input.nodes) {
    auto [it, added] = index_.try_emplace(nodeKey(node, false), representatives_.size());
    if (added) {
      representatives_.push_back(node);
    }
    group_of.push_back(it->second);
  }
  return group_of;
}

const EligibleGroups& PodEligibility::of(const ReplayPod& pod) {
  if (readsHostname(pod)) {
    by_node_.groups.clear();
    for (ReplayNodeId n = 0; n < input_.nodes.size(); ++n) {
      if (couldEverRun(pod, input_.nodes[n])) {
        by_node_.groups.push_back(group_of_[n]);
      }
    }
    std::sort(by_node_.groups.begin(), by_node_.groups.end());
    by_node_.groups.erase(std::unique(by_node_.groups.begin(), by_node_.groups.end()),
                          by_node_.groups.end());
    return by_node_;
  }
  auto [it, added] = memo_.try_emplace(placementKey(pod));
  if (added) {
    EligibleGroups& e = it->second;
    e.static_filter.assign(groups_.size(), FilterResult::kFits);
    std::vector<std::uint8_t> seen(groups_.size());
    for (NodeGroup g : group_of_) {
      if (seen[g] != 0) {
        continue;
      }
      seen[g] = 1;
      const ReplayNode& node = groups_.representative(g);
      e.static_filter[g] = filterStatic(pod, node);
      if (e.static_filter[g] == FilterResult::kFits &&
          filterResources(pod, node, {}, 0) == FilterResult::kFits) {
        e.groups.push_back(g);
      }
    }
    std::sort(e.groups.begin(), e.groups.end());
    for (ReplayNodeId n = 0; n < group_of_.size(); ++n) {
      if (e.static_filter[group_of_[n]] == FilterResult::kFits) {
        e.static_nodes.push_back(n);
      }
    }
  }
  return it->second;
}

}  // namespace dagadvisor::replay
