#include "ingestion/airflow_api_objects.h"

#include <catch2/catch.hpp>

#include "support/test_support.h"

namespace dagadvisor::ingestion {
namespace {

std::string fixture(const std::string& name) {
  return testing::readFile(testing::fixturePath("airflow/" + name));
}

std::vector<sources::AirflowTaskInstance> instances(const std::vector<std::string>& pages) {
  std::vector<sources::AirflowTaskInstance> out;
  for (const std::string& page : pages) {
    auto decoded = sources::parseAirflowTaskInstances(fixture(page));
    REQUIRE(decoded.ok());
    out.insert(out.end(), decoded->task_instances.begin(), decoded->task_instances.end());
  }
  return out;
}

// What AirflowSource::fetch reads from the v1 fixtures (tested against the loopback server in
// unit_sources).
sources::AirflowFetch v1Fetch() {
  sources::AirflowFetch fetch;
  fetch.api_version = "v1";
  fetch.dags.push_back({"etl_daily", fixture("v1/etl_daily_tasks.json")});
  fetch.runs.push_back({"etl_daily", "scheduled__2024-05-01T00:00:00+00:00",
                        instances({"v1/etl_daily_task_instances_page1.json",
                                   "v1/etl_daily_task_instances_page2.json"})});
  return fetch;
}

// Seconds since the epoch of 2024-05-01T02:mm:ss UTC.
UnixSeconds may1(int minute, double second) {
  return 1714528800.0 + minute * 60 + second;
}

TEST_CASE("airflow v1 run: edges, timings, retries as attempts, mapped task collapsed",
          "[airflow]") {
  const auto objects = airflowRunObjects(v1Fetch());
  REQUIRE(objects.size() == 1);
  const model::WorkflowObject& run = objects[0];
  CHECK(run.engine == "airflow");
  CHECK(run.name == "etl_daily/scheduled__2024-05-01T00:00:00+00:00");
  CHECK(run.problems.empty());
  // extract >> [transform, validate] >> load; the three map indexes are one task.
  REQUIRE(run.tasks.size() == 4);
  CHECK(run.edgeCount() == 4);
  const model::ObjectTask* load = run.find("load");
  REQUIRE(load != nullptr);
  CHECK(load->parents == std::vector<std::string>{"transform", "validate"});
  CHECK(load->started == Approx(may1(9, 0)));
  CHECK(load->finished == Approx(may1(10, 30.5)));
  const model::ObjectTask* transform = run.find("transform");
  REQUIRE(transform != nullptr);
  CHECK(transform->parents == std::vector<std::string>{"extract"});
  CHECK(transform->attempts == 4);                    // map indexes 0 and 2 once, map index 1 twice
  CHECK(transform->started == Approx(may1(1, 20)));   // the earliest map index
  CHECK(transform->finished == Approx(may1(8, 40)));  // the latest
  CHECK(transform->phase == "success");
  const model::ObjectTask* validate = run.find("validate");
  REQUIRE(validate != nullptr);
  CHECK(validate->attempts == 3);
  CHECK(validate->node.empty());  // hostname is a pod, not a node
  CHECK(run.find("extract")->attempts == 1);
  CHECK(run.find("extract")->parents.empty());
}

TEST_CASE("airflow v2 run: a running task has no finish, an unstarted one no attempts",
          "[airflow]") {
  sources::AirflowFetch fetch;
  fetch.api_version = "v2";
  fetch.dags.push_back({"ml_train", fixture("v2/ml_train_tasks.json")});
  fetch.runs.push_back({"ml_train", "manual__2025-06-01T02:00:00.123456+00:00",
                        instances({"v2/ml_train_task_instances.json"})});
  const auto objects = airflowRunObjects(fetch);
  REQUIRE(objects.size() == 1);
  const model::WorkflowObject& run = objects[0];
  CHECK(run.name == "ml_train/manual__2025-06-01T02:00:00.123456+00:00");
  CHECK(run.edgeCount() == 4);
  CHECK(run.find("train")->parents == std::vector<std::string>{"features", "prepare"});
  CHECK(run.find("evaluate")->parents == std::vector<std::string>{"train"});
  const model::ObjectTask* train = run.find("train");
  CHECK(train->phase == "running");
  CHECK(train->attempts == 3);
  CHECK(train->started == Approx(1748743590.0));  // 2025-06-01T02:06:30Z
  CHECK_FALSE(train->finished.has_value());
  const model::ObjectTask* evaluate = run.find("evaluate");
  CHECK(evaluate->attempts == 0);
  CHECK(evaluate->phase.empty());
  CHECK_FALSE(evaluate->started.has_value());
}

TEST_CASE("airflow: mapped instances in mixed states, unknown tasks, runs of each DAG",
          "[airflow]") {
  sources::AirflowFetch fetch = v1Fetch();
  auto& run = fetch.runs[0].task_instances;
  for (auto& instance : run) {
    if (instance.task_id == "transform" && instance.map_index == 1) {
      instance.state = "failed";
    }
    if (instance.task_id == "transform" && instance.map_index == 2) {
      instance.state = "running";
      instance.end_date.clear();
    }
  }
  run.push_back({"dropped_task", -1, 1, "success", "", "", ""});
  fetch.runs.push_back({"etl_daily", "manual__2", {}});
  const auto objects = airflowRunObjects(fetch);
  REQUIRE(objects.size() == 2);
  const model::ObjectTask* transform = objects[0].find("transform");
  CHECK(transform->phase == "running");  // running outranks failed and success
  CHECK_FALSE(transform->finished.has_value());
  REQUIRE(objects[0].find("dropped_task") != nullptr);
  CHECK(objects[0].find("dropped_task")->parents.empty());
  REQUIRE(objects[0].problems.size() == 1);
  CHECK_THAT(objects[0].problems[0], Catch::Contains("dropped_task"));
  // A run without task instances still carries the DAG's edges.
  CHECK(objects[1].name == "etl_daily/manual__2");
  CHECK(objects[1].edgeCount() == 4);
  CHECK(objects[1].find("load")->attempts == 0);
}

}  // namespace
}  // namespace dagadvisor::ingestion
