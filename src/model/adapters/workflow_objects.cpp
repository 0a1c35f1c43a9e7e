#include "model/adapters/workflow_objects.h"

#include <algorithm>
#include <cstdio>

namespace dagadvisor::model {

const ObjectTask* WorkflowObject::find(std::string_view id) const {
  auto it = std::lower_bound(tasks.begin(), tasks.end(), id,
                             [](const ObjectTask& t, std::string_view key) { return t.id < key; });
  return it != tasks.end() && it->id == id ? &*it : nullptr;
}

std::size_t WorkflowObject::edgeCount() const {
  std::size_t count = 0;
  for (const ObjectTask& task : tasks) {
    count += task.parents.size();
  }
  return count;
}

}  // namespace dagadvisor::model
