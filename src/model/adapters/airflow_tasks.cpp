#include <map>

#include "model/adapters/object_json.h"

namespace dagadvisor::model {

using detail::json;
using detail::member;
using detail::text;

Result<WorkflowObject> parseAirflowTasks(const json& response) {
  const json* tasks = member(response, "tasks");
  if (tasks == nullptr || !tasks->is_array()) {
    return makeError("expected {\"tasks\": [...]} from /dags/{dag_id}/tasks", "tasks");
  }
  // The API lists children (downstream); the model wants parents.
  std::map<std::string, std::vector<std::string>> parents;
  for (const json& task : *tasks) {
    const std::string id = text(task, "task_id");
    parents[id];
    if (const json* down = member(task, "downstream_task_ids"); down && down->is_array()) {
      for (const json& child : *down) {
        if (child.is_string()) {
          parents[child.get<std::string>()].push_back(id);
        }
      }
    }
  }
  WorkflowObject out;
  out.engine = "airflow";
  for (auto& [id, list] : parents) {
    out.tasks.push_back(ObjectTask{id, std::move(list), "", {}, {}, "", 0});
  }
  detail::normalise(out);
  return out;
}

}  // namespace dagadvisor::model
