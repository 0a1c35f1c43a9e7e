#include "replay/selectors.h"

#include <algorithm>

namespace dagadvisor::replay {

bool LabelRequirement::matches(const model::LabelSet& labels) const {
  const auto value = labels.get(key);
  const auto listed = [&] {
    return value && std::find(values.begin(), values.end(), *value) != values.end();
  };
  switch (op) {
    case SelectorOp::kIn:
      return listed();
    case SelectorOp::kNotIn:
      // Kubernetes: NotIn also matches objects without the key.
      return !listed();
    case SelectorOp::kExists:
      return value.has_value();
    case SelectorOp::kDoesNotExist:
      return !value.has_value();
  }
  return false;
}

LabelSelector LabelSelector::equals(const std::vector<std::pair<std::string, std::string>>& pairs) {
  LabelSelector selector;
  for (const auto& [key, value] : pairs) {
    selector.requirements.push_back({key, SelectorOp::kIn, {value}});
  }
  return selector;
}

bool LabelSelector::matches(const model::LabelSet& labels) const {
  return std::all_of(requirements.begin(), requirements.end(),
                     [&](const LabelRequirement& r) { return r.matches(labels); });
}

bool RequiredNodeAffinity::matches(const model::LabelSet& node_labels) const {
  return terms.empty() || std::any_of(terms.begin(), terms.end(), [&](const LabelSelector& t) {
           return t.matches(node_labels);
         });
}

bool Toleration::tolerates(const model::Taint& taint) const {
  if (!effect.empty() && effect != taint.effect) {
    return false;
  }
  if (op == TolerationOp::kExists) {
    return key.empty() || key == taint.key;
  }
  return key == taint.key && value == taint.value;
}

}  // namespace dagadvisor::replay
