#include "ingestion/scrape_facts.h"

#include <algorithm>

namespace dagadvisor::ingestion::scrape {

void copyPrefixed(const sources::SampleView& s, std::string_view prefix, LabelPairs& out) {
  for (std::size_t i = 0; i < s.label_count; ++i) {
    // Not a structured binding: clang 14 cannot capture one in the lambda below.
    const std::string_view name = s.labels[i].first;
    const std::string_view value = s.labels[i].second;
    if (!name.starts_with(prefix) || name.size() == prefix.size()) {
      continue;
    }
    const bool known =
        std::any_of(out.begin(), out.end(), [&](const auto& pair) { return pair.first == name; });
    if (!known) {
      out.emplace_back(name, value);
    }
  }
}

bool realContainer(std::string_view container) {
  return !container.empty() && container != "POD";
}

void seriesKey(std::string_view target, const sources::SampleView& s, std::string& key) {
  key.assign(target);
  for (std::size_t i = 0; i < s.label_count; ++i) {
    key += '\x1f';
    key += s.labels[i].first;
    key += '=';
    key += s.labels[i].second;
  }
}

void PodFacts::resetFacts() {
  node.clear();
  created_by_kind.clear();
  created_by_name.clear();
  priority_class.clear();
  owners.clear();
  phase.clear();
  labels.clear();
  annotations.clear();
  requests.clear();
  tolerations.clear();
  node_selector.clear();
  has_node_selector = false;
  times.fill(std::numeric_limits<double>::quiet_NaN());
  has_info = false;
  has_labels = false;
  has_annotations = false;
}

void PodFacts::addOwner(std::string_view kind, std::string_view owner) {
  for (const auto& [k, n] : owners) {
    if (k == kind && n == owner) {
      return;
    }
  }
  owners.emplace_back(kind, owner);
}

void PodFacts::addRequest(std::string_view container, std::string_view resource, double value,
                          bool init) {
  for (Request& r : requests) {
    if (r.init == init && r.container == container && r.resource == resource) {
      r.value = std::max(r.value, value);
      return;
    }
  }
  requests.push_back({std::string(container), std::string(resource), value, init});
}

void PodFacts::addTime(std::size_t event, double value) {
  if (event < times.size() && std::isfinite(value)) {
    times[event] = std::isnan(times[event]) ? value : std::max(times[event], value);
  }
}

void PodFacts::addToleration(const sources::SampleView& s) {
  std::array<std::string, 5> t = {std::string(s.label("key")), std::string(s.label("operator")),
                                  std::string(s.label("value")), std::string(s.label("effect")),
                                  std::string(s.label("toleration_seconds"))};
  if (std::find(tolerations.begin(), tolerations.end(), t) == tolerations.end()) {
    tolerations.push_back(std::move(t));
  }
}

void NodeFacts::addAllocatable(std::string_view resource, double value) {
  for (auto& [name, amount] : allocatable) {
    if (name == resource) {
      amount = std::max(amount, value);
      return;
    }
  }
  allocatable.emplace_back(resource, value);
}

void NodeFacts::addTaint(std::string_view key, std::string_view value, std::string_view effect) {
  for (const auto& taint : taints) {
    if (taint[0] == key && taint[1] == value && taint[2] == effect) {
      return;
    }
  }
  taints.push_back({std::string(key), std::string(value), std::string(effect)});
}

}  // namespace dagadvisor::ingestion::scrape
