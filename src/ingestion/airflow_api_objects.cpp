#include "ingestion/airflow_api_objects.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string_view>

#include "common/duration.h"
#include "model/adapters/object_json.h"

namespace dagadvisor::ingestion {
namespace {

using sources::AirflowTaskInstance;

// Airflow's task-instance states, the most telling first: one running map index makes the
// mapped task running, one failed one (with none running) makes it failed.
constexpr std::string_view kStateOrder[] = {
    "running",   "restarting", "deferred",        "up_for_retry", "up_for_reschedule", "queued",
    "scheduled", "failed",     "upstream_failed", "success",      "skipped",           "removed"};

std::size_t stateRank(std::string_view state) {
  const auto* it = std::find(std::begin(kStateOrder), std::end(kStateOrder), state);
  // Unknown words (a newer Airflow) rank after the known ones, an empty state last.
  return static_cast<std::size_t>(std::distance(std::begin(kStateOrder), it)) +
         (state.empty() ? 1 : 0);
}

void fold(const std::vector<const AirflowTaskInstance*>& instances, model::ObjectTask& task) {
  bool all_finished = true;
  std::optional<UnixSeconds> last_end;
  task.phase.clear();
  for (const AirflowTaskInstance* instance : instances) {
    task.attempts += static_cast<std::uint32_t>(std::max(instance->try_number, 0));
    if (stateRank(instance->state) < stateRank(task.phase)) {
      task.phase = instance->state;
    }
    if (const auto start = optionalRfc3339(instance->start_date)) {
      task.started = task.started ? std::min(*task.started, *start) : *start;
    }
    const auto end = optionalRfc3339(instance->end_date);
    all_finished = all_finished && end.has_value();
    if (end) {
      last_end = last_end ? std::max(*last_end, *end) : *end;
    }
  }
  task.finished = all_finished ? last_end : std::nullopt;
}

model::WorkflowObject dagObject(const sources::AirflowDag& dag) {
  const auto document = model::detail::json::parse(dag.tasks_body, nullptr, false);
  auto parsed = model::parseAirflowTasks(document);
  if (parsed) {
    return std::move(parsed).value();
  }
  model::WorkflowObject empty;
  empty.engine = "airflow";
  empty.problems.push_back("airflow DAG \"" + dag.dag_id + "\": " + parsed.error().message);
  return empty;
}

void addInstances(const std::vector<AirflowTaskInstance>& instances,
                  model::WorkflowObject& object) {
  std::map<std::string_view, std::vector<const AirflowTaskInstance*>> by_task;
  for (const AirflowTaskInstance& instance : instances) {
    by_task[instance.task_id].push_back(&instance);
  }
  for (const auto& [task_id, group] : by_task) {
    const std::string_view id = task_id;  // clang 14 cannot capture a structured binding
    auto it = std::find_if(object.tasks.begin(), object.tasks.end(),
                           [&](const model::ObjectTask& task) { return task.id == id; });
    if (it == object.tasks.end()) {
      object.problems.push_back("task instance \"" + std::string(id) +
                                "\" has no task in the DAG's task list (the DAG changed?)");
      it = object.tasks.insert(object.tasks.end(),
                               model::ObjectTask{std::string(id), {}, "", {}, {}, "", 0});
    }
    fold(group, *it);
  }
  model::detail::normalise(object);
}

}  // namespace

std::vector<model::WorkflowObject> airflowRunObjects(const sources::AirflowFetch& fetch) {
  std::map<std::string_view, model::WorkflowObject> dags;
  for (const sources::AirflowDag& dag : fetch.dags) {
    dags.emplace(dag.dag_id, dagObject(dag));
  }
  std::vector<model::WorkflowObject> out;
  for (const sources::AirflowRun& run : fetch.runs) {
    const auto dag = dags.find(run.dag_id);
    if (dag == dags.end()) {
      continue;  // fetch() only reads runs of DAGs it read
    }
    model::WorkflowObject object = dag->second;
    object.name = run.dag_id + "/" + run.run_id;
    addInstances(run.task_instances, object);
    out.push_back(std::move(object));
  }
  return out;
}

model::ObjectFetch AirflowObjects::fetch(const std::vector<model::WorkflowRun>& runs) {
  std::vector<sources::AirflowRunRef> wanted;
  for (const model::WorkflowRun& run : runs) {
    if (run.engine == "airflow") {
      wanted.push_back({run.dag, run.run});
    }
  }
  model::ObjectFetch out;
  if (wanted.empty()) {
    return out;
  }
  auto fetched = source_.fetch(wanted);
  if (!fetched.ok()) {
    out.warnings.push_back(describe() + ": " + fetched.error().describe());
    return out;
  }
  for (model::WorkflowObject& object : airflowRunObjects(*fetched)) {
    out.objects.push_back({std::move(object), "", model::ObjectScope::kDagRun});
  }
  out.warnings = std::move(fetched->warnings);
  return out;
}

}  // namespace dagadvisor::ingestion
