// The Airflow REST API answers: one input is read both as a DAG's task list
// (`GET /dags/{id}/tasks`) and as a task-instance page (`GET …/taskInstances`), then the two
// are folded into the run's workflow object as a fetch would be. Never throws; the object is
// normalised and there is one per run.

#include <nlohmann/json.hpp>

#include "ingestion/airflow_api_objects.h"
#include "sources/airflow/airflow_source.h"
#include "workflow_object_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace dagadvisor;
  const std::string_view body = fuzz::asText(data, size);
  const auto document = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (auto tasks = model::parseAirflowTasks(document)) {
    fuzz::checkWorkflowObject(*tasks);
  }
  sources::AirflowFetch fetch;
  fetch.dags.push_back({"dag", std::string(body)});
  sources::AirflowRun& run = fetch.runs.emplace_back(sources::AirflowRun{"dag", "run", {}});
  if (auto page = sources::parseAirflowTaskInstances(body)) {
    run.task_instances = std::move(page->task_instances);
  }
  const auto objects = ingestion::airflowRunObjects(fetch);
  fuzz::check(objects.size() == 1, "one object per run of a fetched DAG");
  fuzz::checkWorkflowObject(objects.front());
  fuzz::check(objects.front().name == "dag/run", "the object is named dag/run");
  return 0;
}
