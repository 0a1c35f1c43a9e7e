#pragma once

// The promises every workflow object parser makes about what it returns
// (model/adapters/workflow_objects.h), checked on fuzzed objects.

#include <algorithm>

#include "fuzz_check.h"
#include "model/adapters/workflow_objects.h"

namespace dagadvisor::fuzz {

/// Tasks sorted by id, each task's parents sorted without duplicates, find() finding each task
/// and edgeCount() counting the parents.
inline void checkWorkflowObject(const model::WorkflowObject& object) {
  const auto byId = [](const model::ObjectTask& a, const model::ObjectTask& b) {
    return a.id < b.id;
  };
  check(std::is_sorted(object.tasks.begin(), object.tasks.end(), byId), "tasks sorted by id");
  std::size_t edges = 0;
  for (const model::ObjectTask& task : object.tasks) {
    check(std::is_sorted(task.parents.begin(), task.parents.end()), "parents sorted");
    check(std::adjacent_find(task.parents.begin(), task.parents.end()) == task.parents.end(),
          "parents without duplicates");
    check(object.find(task.id) != nullptr, "find() finds every task");
    edges += task.parents.size();
  }
  check(object.edgeCount() == edges, "edgeCount() counts the parents");
}

}  // namespace dagadvisor::fuzz
