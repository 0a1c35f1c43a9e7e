#include "kube.h"

#include <algorithm>
#include <stdexcept>

#include "scenario.h"

namespace dagadvisor::sim {
namespace {

using nlohmann::json;

[[noreturn]] void badField(const std::string& field, const std::string& why) {
  throw std::invalid_argument(field + ": " + why);
}

const json* member(const json& object, const char* key) {
  if (!object.is_object()) {
    return nullptr;
  }
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string stringAt(const json& object, const char* key, const std::string& field) {
  const json* v = member(object, key);
  if (v == nullptr) {
    return "";
  }
  if (!v->is_string()) {
    badField(field + "." + key, "expected a string");
  }
  return v->get<std::string>();
}

const json& listAt(const json& object, const char* key, const std::string& field) {
  static const json kEmpty = json::array();
  const json* v = member(object, key);
  if (v == nullptr) {
    return kEmpty;
  }
  if (!v->is_array()) {
    badField(field + "." + key, "expected a list");
  }
  return *v;
}

KeyValues stringMap(const json* object, const std::string& field) {
  KeyValues out;
  if (object == nullptr) {
    return out;
  }
  if (!object->is_object()) {
    badField(field, "expected a map");
  }
  for (const auto& [k, v] : object->items()) {
    if (!v.is_string()) {
      badField(field + "." + k, "expected a string");
    }
    out.emplace_back(k, v.get<std::string>());
  }
  return out;
}

SelectorTerm requirements(const json& list, const std::string& field) {
  SelectorTerm out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string f = field + "[" + std::to_string(i) + "]";
    Requirement r{stringAt(list[i], "key", f), stringAt(list[i], "operator", f), {}};
    for (const auto& v : listAt(list[i], "values", f)) {
      if (!v.is_string()) {
        badField(f + ".values", "expected strings");
      }
      r.values.push_back(v.get<std::string>());
    }
    static const char* kOps[] = {"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"};
    if (std::find(std::begin(kOps), std::end(kOps), r.op) == std::end(kOps)) {
      badField(f + ".operator", "unknown operator '" + r.op + "'");
    }
    out.push_back(std::move(r));
  }
  return out;
}

SelectorTerm nodeSelectorTerm(const json& term, const std::string& field) {
  return requirements(listAt(term, "matchExpressions", field), field + ".matchExpressions");
}

std::vector<std::string> labelKeys(const json& term, const char* key, const std::string& field,
                                   bool hasSelector) {
  std::vector<std::string> keys;
  const json& list = listAt(term, key, field);
  if (!list.empty() && !hasSelector) {
    badField(field + "." + key, "needs labelSelector (the API server rejects it without one)");
  }
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string() || list[i].get<std::string>().empty()) {
      badField(field + "." + key + "[" + std::to_string(i) + "]", "expected a label key");
    }
    keys.push_back(list[i].get<std::string>());
  }
  return keys;
}

PodAffinityTerm podAffinityTerm(const json& term, const std::string& field) {
  PodAffinityTerm t;
  const json* selector = member(term, "labelSelector");
  if (selector != nullptr) {
    t.selector.matchLabels = stringMap(member(*selector, "matchLabels"), field + ".matchLabels");
    t.selector.matchExpressions = requirements(listAt(*selector, "matchExpressions", field),
                                               field + ".labelSelector.matchExpressions");
  }
  t.matchLabelKeys = labelKeys(term, "matchLabelKeys", field, selector != nullptr);
  t.mismatchLabelKeys = labelKeys(term, "mismatchLabelKeys", field, selector != nullptr);
  t.topologyKey = stringAt(term, "topologyKey", field);
  if (t.topologyKey.empty()) {
    badField(field + ".topologyKey", "must not be empty");
  }
  for (const auto& ns : listAt(term, "namespaces", field)) {
    t.namespaces.push_back(ns.is_string() ? ns.get<std::string>() : "");
  }
  return t;
}

int weightOf(const json& entry, const std::string& field) {
  const json* w = member(entry, "weight");
  if (w == nullptr || !w->is_number_integer() || *w < 1 || *w > 100) {
    badField(field + ".weight", "expected an integer from 1 to 100");
  }
  return w->get<int>();
}

void podAffinity(const json* section, const std::string& field,
                 std::vector<PodAffinityTerm>& required,
                 std::vector<Weighted<PodAffinityTerm>>& preferred) {
  if (section == nullptr) {
    return;
  }
  const std::string req = field + ".requiredDuringSchedulingIgnoredDuringExecution";
  const json& r = listAt(*section, "requiredDuringSchedulingIgnoredDuringExecution", field);
  for (std::size_t i = 0; i < r.size(); ++i) {
    required.push_back(podAffinityTerm(r[i], req + "[" + std::to_string(i) + "]"));
  }
  const std::string pref = field + ".preferredDuringSchedulingIgnoredDuringExecution";
  const json& p = listAt(*section, "preferredDuringSchedulingIgnoredDuringExecution", field);
  for (std::size_t i = 0; i < p.size(); ++i) {
    const std::string f = pref + "[" + std::to_string(i) + "]";
    const json* term = member(p[i], "podAffinityTerm");
    if (term == nullptr) {
      badField(f, "needs podAffinityTerm");
    }
    preferred.push_back({weightOf(p[i], f), podAffinityTerm(*term, f + ".podAffinityTerm")});
  }
}

void nodeAffinity(const json* section, SchedulingSpec& s) {
  if (section == nullptr) {
    return;
  }
  const std::string field = "affinity.nodeAffinity";
  if (const json* req = member(*section, "requiredDuringSchedulingIgnoredDuringExecution")) {
    const json& terms = listAt(*req, "nodeSelectorTerms", field);
    for (std::size_t i = 0; i < terms.size(); ++i) {
      s.requiredNodeTerms.push_back(
          nodeSelectorTerm(terms[i], field + ".nodeSelectorTerms[" + std::to_string(i) + "]"));
    }
  }
  const json& p = listAt(*section, "preferredDuringSchedulingIgnoredDuringExecution", field);
  for (std::size_t i = 0; i < p.size(); ++i) {
    const std::string f = field + ".preferred[" + std::to_string(i) + "]";
    const json* term = member(p[i], "preference");
    if (term == nullptr) {
      badField(f, "needs preference");
    }
    s.preferredNodeTerms.push_back({weightOf(p[i], f), nodeSelectorTerm(*term, f)});
  }
}

Toleration toleration(const json& t, const std::string& field) {
  Toleration out{stringAt(t, "key", field), stringAt(t, "operator", field),
                 stringAt(t, "value", field), stringAt(t, "effect", field), std::nullopt};
  if (out.op.empty()) {
    out.op = "Equal";
  }
  if (out.op != "Equal" && out.op != "Exists") {
    badField(field + ".operator", "expected Equal or Exists");
  }
  if (out.key.empty() && out.op != "Exists") {
    badField(field + ".key", "an empty key needs operator Exists");
  }
  if (const json* s = member(t, "tolerationSeconds")) {
    out.seconds = s->get<long long>();
  }
  return out;
}

bool matchesRequirement(const Requirement& r, const KeyValues& labels) {
  const std::string* v = labelValue(labels, r.key);
  const bool listed =
      v != nullptr && std::find(r.values.begin(), r.values.end(), *v) != r.values.end();
  if (r.op == "In") {
    return listed;
  }
  if (r.op == "NotIn") {
    return !listed;
  }
  if (r.op == "Exists") {
    return v != nullptr;
  }
  if (r.op == "DoesNotExist") {
    return v == nullptr;
  }
  if (v == nullptr || r.values.size() != 1) {
    return false;  // Gt and Lt take one integer value
  }
  try {
    long long have = std::stoll(*v);
    long long want = std::stoll(r.values[0]);
    return r.op == "Gt" ? have > want : have < want;
  } catch (const std::exception&) {
    return false;
  }
}

void mergeLabelKeys(PodAffinityTerm& term, const KeyValues& podLabels) {
  auto merge = [&](const std::vector<std::string>& keys, const char* op) {
    for (const auto& key : keys) {
      if (const std::string* value = labelValue(podLabels, key)) {
        term.selector.matchExpressions.push_back({key, op, {*value}});
      }
    }
  };
  merge(term.matchLabelKeys, "In");
  merge(term.mismatchLabelKeys, "NotIn");
  term.matchLabelKeys.clear();  // merged once, as at creation
  term.mismatchLabelKeys.clear();
}

}  // namespace

const std::string* labelValue(const KeyValues& labels, const std::string& key) {
  for (const auto& [k, v] : labels) {
    if (k == key) {
      return &v;
    }
  }
  return nullptr;
}

bool toleratesTaint(const Toleration& t, const Taint& taint) {
  if (!t.effect.empty() && t.effect != taint.effect) {
    return false;
  }
  if (!t.key.empty() && t.key != taint.key) {
    return false;
  }
  return t.op == "Exists" || t.value == taint.value;
}

namespace {

bool tolerated(const std::vector<Toleration>& tolerations, const Taint& taint) {
  return std::any_of(tolerations.begin(), tolerations.end(),
                     [&](const Toleration& t) { return toleratesTaint(t, taint); });
}

}  // namespace

bool toleratesHardTaints(const std::vector<Toleration>& tolerations,
                         const std::vector<Taint>& taints) {
  return std::all_of(taints.begin(), taints.end(), [&](const Taint& taint) {
    return taint.effect == "PreferNoSchedule" || tolerated(tolerations, taint);
  });
}

int intolerablePreferNoSchedule(const std::vector<Toleration>& tolerations,
                                const std::vector<Taint>& taints) {
  int n = 0;
  for (const auto& taint : taints) {
    n += taint.effect == "PreferNoSchedule" && !tolerated(tolerations, taint) ? 1 : 0;
  }
  return n;
}

bool matchesTerm(const SelectorTerm& term, const KeyValues& labels) {
  return std::all_of(term.begin(), term.end(),
                     [&](const Requirement& r) { return matchesRequirement(r, labels); });
}

bool matchesSelector(const LabelSelector& selector, const KeyValues& labels) {
  for (const auto& [k, v] : selector.matchLabels) {
    const std::string* have = labelValue(labels, k);
    if (have == nullptr || *have != v) {
      return false;
    }
  }
  return matchesTerm(selector.matchExpressions, labels);
}

bool matchesRequiredNodeAffinity(const SchedulingSpec& spec, const KeyValues& nodeLabels) {
  for (const auto& [k, v] : spec.nodeSelector) {
    const std::string* have = labelValue(nodeLabels, k);
    if (have == nullptr || *have != v) {
      return false;
    }
  }
  // An empty term matches no node (NodeSelectorTerm semantics); the terms are ORed.
  return spec.requiredNodeTerms.empty() ||
         std::any_of(
             spec.requiredNodeTerms.begin(), spec.requiredNodeTerms.end(),
             [&](const SelectorTerm& t) { return !t.empty() && matchesTerm(t, nodeLabels); });
}

int preferredNodeAffinityScore(const SchedulingSpec& spec, const KeyValues& nodeLabels) {
  int score = 0;
  for (const auto& w : spec.preferredNodeTerms) {
    score += !w.term.empty() && matchesTerm(w.term, nodeLabels) ? w.weight : 0;
  }
  return score;
}

SchedulingSpec schedulingSpecOf(const json& podSpec) {
  SchedulingSpec s;
  const json& tolerations = listAt(podSpec, "tolerations", "spec");
  for (std::size_t i = 0; i < tolerations.size(); ++i) {
    s.tolerations.push_back(toleration(tolerations[i], "tolerations[" + std::to_string(i) + "]"));
  }
  s.nodeSelector = stringMap(member(podSpec, "nodeSelector"), "nodeSelector");
  s.priorityClassName = stringAt(podSpec, "priorityClassName", "spec");
  if (const json* affinity = member(podSpec, "affinity")) {
    nodeAffinity(member(*affinity, "nodeAffinity"), s);
    podAffinity(member(*affinity, "podAffinity"), "affinity.podAffinity", s.requiredAffinity,
                s.preferredAffinity);
    podAffinity(member(*affinity, "podAntiAffinity"), "affinity.podAntiAffinity",
                s.requiredAntiAffinity, s.preferredAntiAffinity);
  }
  return s;
}

void mergeLabelKeys(SchedulingSpec& spec, const KeyValues& podLabels) {
  for (auto& t : spec.requiredAffinity) {
    mergeLabelKeys(t, podLabels);
  }
  for (auto& t : spec.requiredAntiAffinity) {
    mergeLabelKeys(t, podLabels);
  }
  for (auto& w : spec.preferredAffinity) {
    mergeLabelKeys(w.term, podLabels);
  }
  for (auto& w : spec.preferredAntiAffinity) {
    mergeLabelKeys(w.term, podLabels);
  }
}

Requests requestsOf(const json& podSpec) {
  Requests r;
  const json& containers = listAt(podSpec, "containers", "spec");
  for (std::size_t i = 0; i < containers.size(); ++i) {
    const std::string field = "containers[" + std::to_string(i) + "].resources.requests";
    const json* resources = member(containers[i], "resources");
    const json* requests = resources ? member(*resources, "requests") : nullptr;
    for (const auto& [name, value] : stringMap(requests, field)) {
      auto amount = parseQuantity(value);
      if (!amount) {
        badField(field + "." + name, "not a quantity: '" + value + "'");
      }
      if (name == "cpu") {
        r.cpu += *amount;
      } else if (name == "memory") {
        r.memory += *amount;
      } else if (name == "nvidia.com/gpu") {
        r.gpu += static_cast<int>(*amount);
      }
    }
  }
  return r;
}

}  // namespace dagadvisor::sim
