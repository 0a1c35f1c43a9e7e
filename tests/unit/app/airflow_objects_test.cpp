// The Airflow REST API as an object source of the cycle: which runs it asks for, and what a
// failing API does to the cycle (a warning, never a failure).
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>

#include "app/setup.h"
#include "ingestion/airflow_api_objects.h"
#include "sources/snapshot/snapshot_source.h"
#include "sources/snapshot/snapshot_writer.h"
#include "support/test_support.h"
#include "unit/sources/loopback_server.h"
#include "unit/sources/temp_dir.h"

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

void writeText(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::trunc) << text;
}

// A snapshot needs a metrics source to wrap; these tests record Airflow only.
class NoMetrics final : public sources::MetricsSource {
 public:
  Result<sources::QueryBody> instantQuery(const sources::Query&, UnixSeconds) override {
    return makeError("no metrics in this test");
  }
  std::string describe() const override { return "no metrics"; }
};

// What the cycle takes from an object: task ids with their parents, phases and attempts.
std::vector<std::string> edgesOf(const model::ObjectFetch& fetched) {
  std::vector<std::string> out;
  for (const model::SourcedObject& sourced : fetched.objects) {
    for (const model::ObjectTask& task : sourced.object.tasks) {
      std::string line = sourced.object.name + " " + task.id + " " + task.phase + " " +
                         std::to_string(task.attempts) + " <-";
      for (const std::string& parent : task.parents) {
        line += " " + parent;
      }
      out.push_back(line);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("a snapshot records the Airflow API and replays it offline with the same edges") {
  const std::string prefix = "/airflow-snapshot";
  serveFixture(prefix + "/api/v1/dags/etl_daily/tasks", "etl_daily_tasks.json");
  serveFixture(prefix + "/api/v1/dags/etl_daily/dagRuns/" + kRun + "/taskInstances",
               "etl_daily_task_instances_page1.json");
  auto airflow = airflowAt(prefix);
  testing::TempDir dir;
  const std::string out = dir.path() + "/snap";
  NoMetrics metrics;
  sources::SnapshotWriter writer(metrics, out);
  config::Config config;
  const std::vector<model::WorkflowRun> runs = {run("airflow", "etl_daily", kRun)};
  const model::ObjectFetch live =
      app::objectSources(config, nullptr, &writer.recordAirflow(*airflow))[0]->fetch(runs);
  REQUIRE(live.objects.size() == 1);
  REQUIRE(writer.finish(1714521600).ok());

  auto snapshot = sources::SnapshotSource::open(out);
  REQUIRE(snapshot.ok());
  CHECK((*snapshot)->manifest().airflow == "airflow.json");
  auto replay = (*snapshot)->airflow();
  REQUIRE(replay.ok());
  REQUIRE(*replay != nullptr);
  const std::size_t requests = airflow->requestCount();
  const auto replayed = app::objectSources(config, nullptr, replay->get());
  const model::ObjectFetch offline = replayed[0]->fetch(runs);
  CHECK(airflow->requestCount() == requests);
  CHECK(offline.warnings.empty());
  const auto edges = edgesOf(live);
  CHECK(edges.size() >= 4);
  CHECK(edgesOf(offline) == edges);
  CHECK(offline.objects[0].object.find("load")->parents ==
        std::vector<std::string>{"transform", "validate"});

  // A run the recording never saw is a warning, not an error.
  const model::ObjectFetch other =
      replayed[0]->fetch({run("airflow", "etl_daily", "manual__elsewhere")});
  CHECK(other.objects.empty());
  REQUIRE(other.warnings.size() == 1);
  CHECK(other.warnings[0].find("was not recorded") != std::string::npos);
}

TEST_CASE("a snapshot without an Airflow part replays none, a damaged one is an error") {
  testing::TempDir dir;
  const std::string out = dir.path() + "/snap";
  NoMetrics metrics;
  sources::SnapshotWriter writer(metrics, out);
  REQUIRE(writer.finish(1714521600).ok());
  auto snapshot = sources::SnapshotSource::open(out);
  REQUIRE(snapshot.ok());
  auto none = (*snapshot)->airflow();
  REQUIRE(none.ok());
  CHECK(*none == nullptr);

  writeText(out + "/airflow.json",
            R"({"api_version":"v1","dags":[],"runs":[{"dag_id":1}],"warnings":[]})");
  std::string manifest = testing::readFile(out + "/manifest.json");
  manifest.insert(manifest.rfind('}'), R"(, "airflow": "airflow.json")");
  writeText(out + "/manifest.json", manifest);
  auto damaged = sources::SnapshotSource::open(out);
  REQUIRE(damaged.ok());
  auto error = (*damaged)->airflow();
  REQUIRE_FALSE(error.ok());
  CHECK(error.error().describe().find("runs[0]") != std::string::npos);
}

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
  ingestion::AirflowObjects source(*airflow);
  const model::ObjectFetch fetched = source.fetch({run("airflow", "etl_daily", kRun)});
  CHECK(fetched.objects.empty());
  REQUIRE(fetched.warnings.size() == 1);
  CHECK(fetched.warnings[0].find("401") != std::string::npos);
}

}  // namespace dagadvisor
