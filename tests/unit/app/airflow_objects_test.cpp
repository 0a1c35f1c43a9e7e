// The Airflow REST API as an object source of the cycle: which runs it asks for, and what a
// failing API does to the cycle (a warning, never a failure).
#include <algorithm>
#include <catch2/catch.hpp>

#include "app/setup.h"
#include "model/adapters/airflow_api_objects.h"
#include "support/test_support.h"
#include "unit/sources/loopback_server.h"

namespace dagadvisor {
namespace {

using testing::LoopbackServer;
using testing::Reply;
using testing::SeenRequest;

const std::string kRun = "scheduled__2024-05-01T00:00:00+00:00";

void serveFixture(const std::string& path, const std::string& name) {
  const std::string body = testing::readFile(testing::fixturePath("airflow/v1/" + name));
  LoopbackServer::instance().route(path, [body](const SeenRequest&, std::size_t) {
    return Reply{200, "application/json", body, {}};
  });
}

std::unique_ptr<sources::AirflowSource> airflowAt(const std::string& prefix) {
  sources::AirflowOptions options;
  options.url = LoopbackServer::instance().url(prefix);
  options.api_version = "v1";
  options.timeout = std::chrono::milliseconds(5000);
  options.retry_backoff = std::chrono::milliseconds(1);
  auto source = sources::AirflowSource::create(options);
  REQUIRE(source.ok());
  return std::move(source).value();
}

model::WorkflowRun run(std::string engine, std::string dag, std::string id) {
  model::WorkflowRun r;
  r.namespace_ = "airflow";
  r.engine = std::move(engine);
  r.dag = std::move(dag);
  r.run = std::move(id);
  return r;
}

}  // namespace

TEST_CASE("the Airflow source is asked for Airflow runs only and gives their exact DAG") {
  const std::string prefix = "/airflow-objects";
  serveFixture(prefix + "/api/v1/dags/etl_daily/tasks", "etl_daily_tasks.json");
  serveFixture(prefix + "/api/v1/dags/etl_daily/dagRuns/" + kRun + "/taskInstances",
               "etl_daily_task_instances_page1.json");
  auto airflow = airflowAt(prefix);
  config::Config config;
  const auto sources = app::objectSources(config, nullptr, airflow.get());
  REQUIRE(sources.size() == 1);

  const std::vector<model::WorkflowRun> runs = {run("argo", "etl_daily", kRun),
                                                run("airflow", "etl_daily", kRun)};
  const model::ObjectFetch fetched = sources[0]->fetch(runs);
  REQUIRE(fetched.objects.size() == 1);
  const model::SourcedObject& object = fetched.objects[0];
  CHECK(object.scope == model::ObjectScope::kDagRun);
  CHECK(object.object.name == "etl_daily/" + kRun);
  const model::ObjectTask* load = object.object.find("load");
  REQUIRE(load != nullptr);
  CHECK(load->parents == std::vector<std::string>{"transform", "validate"});

  // No Airflow run in the cycle: no request at all.
  const std::size_t before = airflow->requestCount();
  CHECK(sources[0]->fetch({run("argo", "etl_daily", kRun)}).objects.empty());
  CHECK(airflow->requestCount() == before);
}

TEST_CASE("an Airflow API that refuses the credentials is a warning, not a failed cycle") {
  const std::string prefix = "/airflow-refused";
  LoopbackServer::instance().route(
      prefix + "/api/v1/dags/etl_daily/tasks", [](const SeenRequest&, std::size_t) {
        return Reply{401, "application/json", R"({"title":"Unauthorized"})", {}};
      });
  auto airflow = airflowAt(prefix);
  model::AirflowObjects source(*airflow);
  const model::ObjectFetch fetched = source.fetch({run("airflow", "etl_daily", kRun)});
  CHECK(fetched.objects.empty());
  REQUIRE(fetched.warnings.size() == 1);
  CHECK(fetched.warnings[0].find("401") != std::string::npos);
}

}  // namespace dagadvisor
