#pragma once

// Tolerant accessors shared by the workflow object parsers: a missing or mistyped field reads
// as empty, never as an exception, because objects from the API vary by engine version.

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/duration.h"
#include "model/adapters/workflow_objects.h"

namespace dagadvisor::model::detail {

using nlohmann::json;

/// The member `key` of `object` when `object` is an object holding it, else nullptr.
inline const json* member(const json& object, std::string_view key) {
  if (!object.is_object()) {
    return nullptr;
  }
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

/// The string member `key`, or "" when absent or not a string.
inline std::string text(const json& object, std::string_view key) {
  const json* value = member(object, key);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

/// The RFC 3339 time in member `key`, or nullopt.
inline std::optional<UnixSeconds> time(const json& object, std::string_view key) {
  return optionalRfc3339(text(object, key));
}

/// Sorts the tasks by id and each task's parents, dropping duplicate parents.
inline void normalise(WorkflowObject& object) {
  std::sort(object.tasks.begin(), object.tasks.end(),
            [](const ObjectTask& a, const ObjectTask& b) { return a.id < b.id; });
  for (ObjectTask& task : object.tasks) {
    std::sort(task.parents.begin(), task.parents.end());
    task.parents.erase(std::unique(task.parents.begin(), task.parents.end()), task.parents.end());
  }
}

}  // namespace dagadvisor::model::detail
