#include "model/adapters/scheduling_objects.h"

#include <string_view>
#include <utility>
#include <vector>

#include "model/adapters/object_json.h"

namespace dagadvisor::model {
namespace {

using detail::json;
using detail::member;
using detail::text;

std::optional<std::int64_t> integer(const json& object, std::string_view key) {
  const json* value = member(object, key);
  if (value == nullptr || !value->is_number_integer()) {
    return std::nullopt;
  }
  return value->get<std::int64_t>();
}

// A list member, or nullptr when absent or not a list.
const json* array(const json* object, std::string_view key) {
  const json* value = object != nullptr ? member(*object, key) : nullptr;
  return value != nullptr && value->is_array() ? value : nullptr;
}

std::vector<NodeSelectorRequirement> requirements(const json& term, std::string_view key) {
  std::vector<NodeSelectorRequirement> out;
  const json* list = array(&term, key);
  if (list == nullptr) {
    return out;
  }
  for (const json& item : *list) {
    NodeSelectorRequirement r{text(item, "key"), text(item, "operator"), {}};
    if (const json* values = array(&item, "values")) {
      for (const json& v : *values) {
        // Gt/Lt values are strings in the API; a number written bare still means that number.
        r.values.push_back(v.is_string() ? v.get<std::string>() : v.dump());
      }
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<NodeSelectorTerm> requiredTerms(const json& spec) {
  const json* affinity = member(spec, "affinity");
  const json* node = affinity != nullptr ? member(*affinity, "nodeAffinity") : nullptr;
  const json* required =
      node != nullptr ? member(*node, "requiredDuringSchedulingIgnoredDuringExecution") : nullptr;
  std::vector<NodeSelectorTerm> out;
  if (const json* terms = array(required, "nodeSelectorTerms")) {
    for (const json& term : *terms) {
      out.push_back({requirements(term, "matchExpressions"), requirements(term, "matchFields")});
    }
  }
  return out;
}

}  // namespace

std::optional<PriorityClass> parsePriorityClass(const json& object) {
  const json* metadata = member(object, "metadata");
  const auto value = integer(object, "value");
  PriorityClass out;
  out.name = metadata != nullptr ? text(*metadata, "name") : std::string();
  if (out.name.empty() || !value) {
    return std::nullopt;
  }
  out.value = *value;
  if (std::string policy = text(object, "preemptionPolicy"); !policy.empty()) {
    out.preemption_policy = std::move(policy);
  }
  const json* global = member(object, "globalDefault");
  out.global_default = global != nullptr && global->is_boolean() && global->get<bool>();
  return out;
}

std::optional<PendingPodSpec> parsePendingPodSpec(const json& pod) {
  const json* metadata = member(pod, "metadata");
  PendingPodSpec out;
  if (metadata != nullptr) {
    out.namespace_ = text(*metadata, "namespace");
    out.name = text(*metadata, "name");
  }
  if (out.name.empty()) {
    return std::nullopt;
  }
  if (const json* spec = member(pod, "spec")) {
    out.priority = integer(*spec, "priority");
    out.priority_class = text(*spec, "priorityClassName");
    out.required_node_affinity = requiredTerms(*spec);
  }
  return out;
}

}  // namespace dagadvisor::model
