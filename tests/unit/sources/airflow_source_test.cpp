#include "sources/airflow/airflow_source.h"

#include <catch2/catch.hpp>
#include <fstream>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>

#include "loopback_server.h"
#include "support/test_support.h"
#include "temp_dir.h"

namespace dagadvisor::sources {
namespace {

using testing::LoopbackServer;
using testing::Reply;
using testing::SeenRequest;

const std::string kV1Run = "scheduled__2024-05-01T00:00:00+00:00";
const std::string kV2Run = "manual__2025-06-01T02:00:00.123456+00:00";

std::string fixture(const std::string& name) {
  return testing::readFile(testing::fixturePath("airflow/" + name));
}

void serveFile(const std::string& path, const std::string& name) {
  const std::string body = fixture(name);
  LoopbackServer::instance().route(path, [body](const SeenRequest&, std::size_t) {
    return Reply{200, "application/json", body, {}};
  });
}

// The v1 fixtures: etl_daily's task list and its run's 6 task instances as two pages of 4.
void serveV1(const std::string& prefix) {
  serveFile(prefix + "/api/v1/version", "v1/version.json");
  serveFile(prefix + "/api/v1/dags/etl_daily/tasks", "v1/etl_daily_tasks.json");
  const std::string first = fixture("v1/etl_daily_task_instances_page1.json");
  const std::string second = fixture("v1/etl_daily_task_instances_page2.json");
  LoopbackServer::instance().route(
      prefix + "/api/v1/dags/etl_daily/dagRuns/" + kV1Run + "/taskInstances",
      [first, second](const SeenRequest& request, std::size_t) {
        if (request.query == "limit=4&offset=0") {
          return Reply{200, "application/json", first, {}};
        }
        if (request.query == "limit=4&offset=4") {
          return Reply{200, "application/json", second, {}};
        }
        return Reply{400, "application/json", R"({"title":"unexpected page"})", {}};
      });
}

void serveV2(const std::string& prefix) {
  serveFile(prefix + "/api/v2/version", "v2/version.json");
  serveFile(prefix + "/api/v2/dags/ml_train/tasks", "v2/ml_train_tasks.json");
  serveFile(prefix + "/api/v2/dags/ml_train/dagRuns/" + kV2Run + "/taskInstances",
            "v2/ml_train_task_instances.json");
}

AirflowOptions optionsFor(const std::string& prefix, const std::string& version) {
  AirflowOptions options;
  options.url = LoopbackServer::instance().url(prefix);
  options.api_version = version;
  options.timeout = std::chrono::milliseconds(5000);
  options.retry_backoff = std::chrono::milliseconds(1);
  return options;
}

std::unique_ptr<AirflowSource> sourceFor(const AirflowOptions& options) {
  auto source = AirflowSource::create(options);
  REQUIRE(source.ok());
  return std::move(source).value();
}

std::vector<std::string> taskIds(const AirflowRun& run) {
  std::vector<std::string> ids;
  for (const AirflowTaskInstance& instance : run.task_instances) {
    ids.push_back(instance.task_id +
                  (instance.map_index >= 0 ? "[" + std::to_string(instance.map_index) + "]" : ""));
  }
  return ids;
}

// An Airflow 3 API server that wants a JWT: POST <prefix>/auth/token with the JSON credentials
// of "dagadvisor" issues "jwt-<n>"; the API routes answer 401 unless they get the newest one.
class Airflow3 {
 public:
  Airflow3(const std::string& prefix, std::string password) {
    state_->password = std::move(password);
    auto& server = LoopbackServer::instance();
    server.route(prefix + "/auth/token", [state = state_](const SeenRequest& request, std::size_t) {
      const auto body = nlohmann::json::parse(request.body, nullptr, false);
      std::lock_guard lock(state->mutex);
      const bool valid = request.method == "POST" &&
                         request.header("Content-Type") == "application/json" && body.is_object() &&
                         body.contains("username") && body.contains("password") &&
                         body["username"] == "dagadvisor" && body["password"] == state->password;
      if (!valid) {
        return Reply{401, "application/json", R"({"detail":"Invalid credentials"})", {}};
      }
      state->current = "jwt-" + std::to_string(++state->issued);
      return Reply{
          201, "application/json", nlohmann::json{{"access_token", state->current}}.dump(), {}};
    });
    guard(prefix + "/api/v2/version", "v2/version.json");
    guard(prefix + "/api/v2/dags/ml_train/tasks", "v2/ml_train_tasks.json");
    guard(prefix + "/api/v2/dags/ml_train/dagRuns/" + kV2Run + "/taskInstances",
          "v2/ml_train_task_instances.json");
  }

  int issued() const {
    std::lock_guard lock(state_->mutex);
    return state_->issued;
  }
  /// Every token issued so far stops working, as at its expiry.
  void expire() {
    std::lock_guard lock(state_->mutex);
    state_->current.clear();
  }
  /// Tokens are issued but never accepted (a user the API refuses whatever it sends).
  void refuseAll() {
    std::lock_guard lock(state_->mutex);
    state_->refuse_all = true;
  }

 private:
  struct State {
    std::mutex mutex;
    std::string password;
    std::string current;
    int issued = 0;
    bool refuse_all = false;
  };

  void guard(const std::string& path, const std::string& name) {
    LoopbackServer::instance().route(
        path, [state = state_, body = fixture(name)](const SeenRequest& request, std::size_t) {
          std::lock_guard lock(state->mutex);
          if (state->refuse_all || state->current.empty() ||
              request.header("Authorization") != "Bearer " + state->current) {
            return Reply{401, "application/json", R"({"detail":"Invalid or expired token"})", {}};
          }
          return Reply{200, "application/json", body, {}};
        });
  }

  std::shared_ptr<State> state_ = std::make_shared<State>();
};

AirflowOptions passwordOptions(const std::string& prefix, const std::string& version,
                               const std::string& password_file) {
  AirflowOptions options = optionsFor(prefix, version);
  options.http.basic_auth_user = "dagadvisor";
  options.http.basic_auth_password_file = password_file;
  return options;
}

TEST_CASE("airflow v1: the task list once per DAG, task instances over two pages", "[airflow]") {
  serveV1("/af-v1");
  AirflowOptions options = optionsFor("/af-v1", "v1");
  options.page_size = 4;
  auto source = sourceFor(options);
  // The same run twice, as two pods of one run would name it: read once.
  auto fetched = source->fetch({{"etl_daily", kV1Run}, {"etl_daily", kV1Run}});
  REQUIRE(fetched.ok());
  CHECK(fetched->api_version == "v1");
  CHECK(fetched->warnings.empty());
  REQUIRE(fetched->dags.size() == 1);
  CHECK(fetched->dags[0].dag_id == "etl_daily");
  CHECK(fetched->dags[0].tasks_body == fixture("v1/etl_daily_tasks.json"));
  REQUIRE(fetched->runs.size() == 1);
  const AirflowRun& run = fetched->runs[0];
  CHECK(run.run_id == kV1Run);
  CHECK(taskIds(run) == std::vector<std::string>{"extract", "load", "transform[0]", "transform[1]",
                                                 "transform[2]", "validate"});
  const AirflowTaskInstance& validate = run.task_instances[5];
  CHECK(validate.try_number == 3);
  CHECK(validate.state == "success");
  CHECK(validate.start_date == "2024-05-01T02:01:10.000000+00:00");
  CHECK(validate.end_date == "2024-05-01T02:07:10.000000+00:00");
  CHECK(validate.hostname == "etl-daily-validate-q9w8e7");
  CHECK(run.task_instances[3].try_number == 2);
  // One task list and two pages; no version probe with an explicit version.
  CHECK(fetched->requests == 3);
  auto& server = LoopbackServer::instance();
  CHECK(server.seen("/af-v1/api/v1/dags/etl_daily/tasks").size() == 1);
  CHECK(server.seen("/af-v1/api/v1/version").empty());
  const auto pages =
      server.seen("/af-v1/api/v1/dags/etl_daily/dagRuns/" + kV1Run + "/taskInstances");
  REQUIRE(pages.size() == 2);
  CHECK(pages[0].query == "limit=4&offset=0");
  CHECK(pages[1].query == "limit=4&offset=4");
  CHECK(fetched->bytes > fixture("v1/etl_daily_tasks.json").size());
}

TEST_CASE("airflow v2: /api/v2 paths, nulls of unstarted tasks read as empty", "[airflow]") {
  serveV2("/af-v2");
  auto source = sourceFor(optionsFor("/af-v2", "v2"));
  auto fetched = source->fetch({{"ml_train", kV2Run}});
  REQUIRE(fetched.ok());
  CHECK(fetched->api_version == "v2");
  REQUIRE(fetched->dags.size() == 1);
  CHECK(fetched->dags[0].tasks_body == fixture("v2/ml_train_tasks.json"));
  REQUIRE(fetched->runs.size() == 1);
  const AirflowRun& run = fetched->runs[0];
  CHECK(taskIds(run) == std::vector<std::string>{"evaluate", "features", "prepare", "train"});
  const AirflowTaskInstance& evaluate = run.task_instances[0];
  CHECK(evaluate.state.empty());
  CHECK(evaluate.start_date.empty());
  CHECK(evaluate.try_number == 0);
  const AirflowTaskInstance& train = run.task_instances[3];
  CHECK(train.state == "running");
  CHECK(train.try_number == 3);
  CHECK(train.start_date == "2025-06-01T02:06:30Z");
  CHECK(train.end_date.empty());
  CHECK(fetched->requests == 2);  // total_entries 4 < the page size: one page
}

// A proxy echoing the JWT the login issued into the task list and the task instances: the
// task ids and hostnames the daemon reads must not carry it.
TEST_CASE("airflow 3: an echo of the JWT in the API's answers is redacted", "[airflow]") {
  auto& server = LoopbackServer::instance();
  server.route("/af-echo/auth/token", [](const SeenRequest&, std::size_t) {
    return Reply{201, "application/json", R"({"access_token":"jwt-echoed-4711"})", {}};
  });
  const auto echoing = [](const std::string& name) {
    return [body = fixture(name)](const SeenRequest& request, std::size_t) {
      std::string echoed = body;
      const std::string token = request.header("Authorization").substr(7);
      for (auto at = echoed.find("\"train\""); at != std::string::npos;
           at = echoed.find("\"train\"", at + token.size())) {
        echoed.replace(at + 1, 5, token);  // the task "train" renamed to the token
      }
      return Reply{200, "application/json", echoed, {}};
    };
  };
  serveFile("/af-echo/api/v2/version", "v2/version.json");
  server.route("/af-echo/api/v2/dags/ml_train/tasks", echoing("v2/ml_train_tasks.json"));
  server.route("/af-echo/api/v2/dags/ml_train/dagRuns/" + kV2Run + "/taskInstances",
               echoing("v2/ml_train_task_instances.json"));
  testing::TempDir dir;
  std::ofstream(dir / "password") << "airflow-password";
  auto source = sourceFor(passwordOptions("/af-echo", "v2", dir / "password"));
  auto fetched = source->fetch({{"ml_train", kV2Run}});
  REQUIRE(fetched.ok());
  REQUIRE(fetched->dags.size() == 1);
  CHECK_THAT(fetched->dags[0].tasks_body, !Catch::Contains("jwt-echoed-4711"));
  CHECK_THAT(fetched->dags[0].tasks_body, Catch::Contains("<redacted>"));
  REQUIRE(fetched->runs.size() == 1);
  CHECK(taskIds(fetched->runs[0]) ==
        std::vector<std::string>{"evaluate", "features", "prepare", "<redacted>"});
}

TEST_CASE("airflow auto: v2 when /api/v2 answers, else v1, probed once", "[airflow]") {
  auto& server = LoopbackServer::instance();
  SECTION("Airflow 3") {
    serveV2("/af-auto3");
    auto source = sourceFor(optionsFor("/af-auto3", "auto"));
    auto fetched = source->fetch({{"ml_train", kV2Run}});
    REQUIRE(fetched.ok());
    CHECK(fetched->api_version == "v2");
    CHECK(fetched->runs.size() == 1);
    CHECK(server.seen("/af-auto3/api/v1/version").empty());
  }
  SECTION("Airflow 2: /api/v2 is a 404") {
    serveV1("/af-auto2");
    server.route("/af-auto2/api/v2/version", [](const SeenRequest&, std::size_t) {
      return Reply{404, "text/html", "<html><body>Not Found</body></html>", {}};
    });
    AirflowOptions options = optionsFor("/af-auto2", "auto");
    options.page_size = 4;
    auto source = sourceFor(options);
    for (int cycle = 0; cycle < 2; ++cycle) {
      auto fetched = source->fetch({{"etl_daily", kV1Run}});
      REQUIRE(fetched.ok());
      CHECK(fetched->api_version == "v1");
      CHECK(fetched->runs.at(0).task_instances.size() == 6);
    }
    CHECK(server.seen("/af-auto2/api/v2/version").size() == 1);
    CHECK(server.seen("/af-auto2/api/v1/version").size() == 1);
  }
  SECTION("no run wanted: no request, not even the probe") {
    auto source = sourceFor(optionsFor("/af-idle", "auto"));
    auto fetched = source->fetch({});
    REQUIRE(fetched.ok());
    CHECK(fetched->requests == 0);
    CHECK(server.seen("/af-idle/api/v2/version").empty());
  }
  SECTION("no Airflow at all") {
    auto source = sourceFor(optionsFor("/af-nothing", "auto"));
    auto fetched = source->fetch({{"etl_daily", kV1Run}});
    REQUIRE_FALSE(fetched.ok());
    CHECK(fetched.error().field == "url");
    CHECK_THAT(fetched.error().message, Catch::Contains("/api/v1/version"));
  }
}

TEST_CASE("airflow: a DAG or run the API does not know is a warning, the rest is read",
          "[airflow]") {
  serveV1("/af-404");
  AirflowOptions options = optionsFor("/af-404", "v1");
  options.page_size = 4;
  auto source = sourceFor(options);
  auto fetched = source->fetch(
      {{"etl_daily", kV1Run}, {"etl_daily", "manual__gone"}, {"deleted_dag", "manual__1"}});
  REQUIRE(fetched.ok());
  REQUIRE(fetched->dags.size() == 1);
  CHECK(fetched->dags[0].dag_id == "etl_daily");
  REQUIRE(fetched->runs.size() == 1);
  CHECK(fetched->runs[0].run_id == kV1Run);
  REQUIRE(fetched->warnings.size() == 2);
  CHECK_THAT(fetched->warnings[0], Catch::Contains("\"deleted_dag\"") && Catch::Contains("404"));
  CHECK_THAT(fetched->warnings[1], Catch::Contains("\"manual__gone\"") && Catch::Contains("404"));
}

// etl_daily's runs as `GET /api/v1/dags/etl_daily/dagRuns` lists them.
void serveRunList(const std::string& prefix, const std::vector<std::string>& ids) {
  std::string body = R"({"dag_runs":[)";
  for (const std::string& id : ids) {
    body += (body.back() == '[' ? "" : ",") +
            std::string(R"({"dag_id":"etl_daily","dag_run_id":")") + id + R"(","state":"success"})";
  }
  body += R"(],"total_entries":)" + std::to_string(ids.size()) + "}";
  LoopbackServer::instance().route(prefix + "/api/v1/dags/etl_daily/dagRuns",
                                   [body](const SeenRequest&, std::size_t) {
                                     return Reply{200, "application/json", body, {}};
                                   });
}

TEST_CASE("airflow: a run known only by its sanitised label is found in the DAG's run list",
          "[airflow]") {
  serveV1("/af-label");
  serveRunList("/af-label", {"scheduled__2024-04-30T00:00:00+00:00", kV1Run,
                             "manual__2024-05-01T00:00:00+00:00"});
  AirflowOptions options = optionsFor("/af-label", "v1");
  options.page_size = 4;
  auto source = sourceFor(options);
  // What make_safe_label_value makes of kV1Run (computed with Airflow's Python code).
  const std::string label = "scheduled__2024-05-01T0000000000-3a72560e5";
  auto fetched = source->fetch({{"etl_daily", label}});
  REQUIRE(fetched.ok());
  CHECK(fetched->warnings.empty());
  REQUIRE(fetched->runs.size() == 1);
  // Named as asked, so that it meets the run the pods make; read under the raw id.
  CHECK(fetched->runs[0].run_id == label);
  CHECK(fetched->runs[0].task_instances.size() == 6);
  auto& server = LoopbackServer::instance();
  CHECK(server.seen("/af-label/api/v1/dags/etl_daily/dagRuns/" + label + "/taskInstances").size() ==
        1);
  CHECK(
      server.seen("/af-label/api/v1/dags/etl_daily/dagRuns/" + kV1Run + "/taskInstances").size() ==
      2);
  const auto listed = server.seen("/af-label/api/v1/dags/etl_daily/dagRuns");
  REQUIRE(listed.size() == 1);
  // Only the logical dates around the one in the label are listed.
  CHECK_THAT(listed[0].query, Catch::Contains("execution_date_gte=2024-04-30T00%3A00%3A00Z") &&
                                  Catch::Contains("execution_date_lte=2024-05-03T00%3A00%3A00Z"));
}

TEST_CASE("airflow: a label that fits no run, or two, is a warning and nothing is read",
          "[airflow]") {
  const std::string stem = "backfill__2024-05-01T00:00:00+00:00_with_a_rather_long_custom_suffix_";
  serveV1("/af-label2");
  serveRunList("/af-label2", {stem + "a", stem + "b"});
  AirflowOptions options = optionsFor("/af-label2", "v1");
  auto source = sourceFor(options);
  // Airflow's label of stem + "a"; stem + "b" has the same first 53 safe characters.
  const std::string ambiguous = "backfill__2024-05-01T0000000000_with_a_rather_long_cu-8cbf19c71";
  const std::string unknown = "scheduled__2024-05-09T0000000000-0123abcde";
  auto fetched = source->fetch({{"etl_daily", ambiguous}, {"etl_daily", unknown}});
  REQUIRE(fetched.ok());
  CHECK(fetched->runs.empty());
  REQUIRE(fetched->warnings.size() == 3);
  CHECK_THAT(fetched->warnings[0], Catch::Contains(ambiguous) && Catch::Contains("fits 2 runs"));
  CHECK_THAT(fetched->warnings[1], Catch::Contains(ambiguous) && Catch::Contains("404"));
  CHECK_THAT(fetched->warnings[2], Catch::Contains(unknown) && Catch::Contains("404"));
}

TEST_CASE("airflow: DAGs beyond max_dags are skipped with a warning", "[airflow]") {
  serveV1("/af-cap");
  AirflowOptions options = optionsFor("/af-cap", "v1");
  options.page_size = 4;
  options.max_dags = 1;
  auto source = sourceFor(options);
  // "etl_daily" sorts before "zz_other", so it is the one read.
  auto fetched = source->fetch({{"zz_other", "r1"}, {"etl_daily", kV1Run}});
  REQUIRE(fetched.ok());
  REQUIRE(fetched->dags.size() == 1);
  CHECK(fetched->dags[0].dag_id == "etl_daily");
  REQUIRE(fetched->warnings.size() == 1);
  CHECK_THAT(fetched->warnings[0], Catch::Contains("1 airflow DAGs beyond max_dags_per_cycle (1)"));
  CHECK(LoopbackServer::instance().seen("/af-cap/api/v1/dags/zz_other/tasks").empty());
}

TEST_CASE("airflow: refused credentials are an error that shows no secret", "[airflow]") {
  testing::TempDir dir;
  const std::string token = "s3cr3t-jwt-value";
  const std::string password = "hunter2-password";
  std::ofstream(dir / "token") << token << "\n";
  std::ofstream(dir / "password") << password << "\n";
  auto& server = LoopbackServer::instance();
  // Echoes the credentials back, as a careless proxy might: they must not reach the error.
  const testing::Route server401 = [](const SeenRequest& request, std::size_t) {
    return Reply{401,
                 "application/json",
                 R"({"detail":"Not authenticated: )" + request.header("Authorization") + "\"}",
                 {}};
  };
  std::string version = "v2";
  AirflowOptions options = optionsFor("/af-401", version);
  SECTION("bearer token (Airflow 3)") {
    options.http.bearer_token_file = dir / "token";
  }
  SECTION("basic auth (Airflow 2)") {
    version = options.api_version = "v1";
    options.http.basic_auth_user = "dagadvisor";
    options.http.basic_auth_password_file = dir / "password";
  }
  server.route("/af-401/api/v1/dags/ml_train/tasks", server401);
  server.route("/af-401/api/v2/dags/ml_train/tasks", server401);
  auto source = sourceFor(options);
  auto fetched = source->fetch({{"ml_train", kV2Run}});
  REQUIRE_FALSE(fetched.ok());
  const std::string message = fetched.error().describe();
  CHECK_THAT(message, Catch::Contains("HTTP 401") &&
                          Catch::Contains("/api/" + version + "/dags/ml_train/tasks") &&
                          Catch::Contains("credentials"));
  if (version == "v2") {
    CHECK_THAT(message, Catch::Contains("JWT"));
  }
  CHECK_THAT(message, !Catch::Contains(token) && !Catch::Contains(password) &&
                          !Catch::Contains("Basic ") && !Catch::Contains("Bearer "));
  const auto seen = server.seen("/af-401/api/" + version + "/dags/ml_train/tasks");
  REQUIRE_FALSE(seen.empty());
  CHECK_FALSE(seen[0].header("Authorization").empty());  // the credentials were sent
}

TEST_CASE("airflow 3: a password login gets a JWT once, an expired one is renewed once",
          "[airflow]") {
  testing::TempDir dir;
  std::ofstream(dir / "password") << "hunter2-password\n";
  Airflow3 airflow("/af-jwt", "hunter2-password");
  auto source = sourceFor(passwordOptions("/af-jwt", "v2", dir / "password"));
  auto& server = LoopbackServer::instance();
  const std::string tasks = "/af-jwt/api/v2/dags/ml_train/tasks";

  auto first = source->fetch({{"ml_train", kV2Run}});
  REQUIRE(first.ok());
  REQUIRE(first->runs.size() == 1);
  CHECK(first->runs[0].task_instances.size() == 4);
  CHECK(first->requests == 3);  // the login, the task list, one page
  const auto logins = server.seen("/af-jwt/auth/token");
  REQUIRE(logins.size() == 1);
  CHECK(logins[0].header("Authorization").empty());  // the password travels in the body only
  CHECK(server.seen(tasks).at(0).header("Authorization") == "Bearer jwt-1");

  REQUIRE(source->fetch({{"ml_train", kV2Run}}).ok());
  CHECK(airflow.issued() == 1);  // kept across fetches

  airflow.expire();
  auto renewed = source->fetch({{"ml_train", kV2Run}});
  REQUIRE(renewed.ok());
  CHECK(airflow.issued() == 2);   // exactly one refresh
  CHECK(renewed->requests == 4);  // the refused task list, the login, the task list, one page
  const auto seen = server.seen(tasks);
  REQUIRE(seen.size() == 4);
  CHECK(seen[2].header("Authorization") == "Bearer jwt-1");
  CHECK(seen[3].header("Authorization") == "Bearer jwt-2");
}

TEST_CASE("airflow 3: a refused login names the token URL and never the password", "[airflow]") {
  testing::TempDir dir;
  std::ofstream(dir / "password") << "wrong-pa55word\n";
  Airflow3 airflow("/af-jwt-bad", "hunter2-password");
  auto source = sourceFor(passwordOptions("/af-jwt-bad", "v2", dir / "password"));
  auto fetched = source->fetch({{"ml_train", kV2Run}});
  REQUIRE_FALSE(fetched.ok());
  const std::string message = fetched.error().describe();
  auto& server = LoopbackServer::instance();
  CHECK_THAT(message, Catch::Contains("POST " + server.url("/af-jwt-bad/auth/token")) &&
                          Catch::Contains("HTTP 401") &&
                          Catch::Contains("sources.airflow.basic_auth"));
  CHECK_THAT(message, !Catch::Contains("wrong-pa55word") && !Catch::Contains("hunter2"));
  CHECK(server.seen("/af-jwt-bad/auth/token").size() == 1);  // a 401 is not retried
  CHECK(server.seen("/af-jwt-bad/api/v2/dags/ml_train/tasks").empty());
}

TEST_CASE("airflow 3: a token the API keeps refusing is renewed once, then an error", "[airflow]") {
  testing::TempDir dir;
  std::ofstream(dir / "password") << "hunter2-password\n";
  Airflow3 airflow("/af-jwt-refused", "hunter2-password");
  airflow.refuseAll();
  auto source = sourceFor(passwordOptions("/af-jwt-refused", "v2", dir / "password"));
  auto fetched = source->fetch({{"ml_train", kV2Run}});
  REQUIRE_FALSE(fetched.ok());
  CHECK_THAT(fetched.error().describe(),
             Catch::Contains("HTTP 401") && Catch::Contains("/api/v2/dags/ml_train/tasks") &&
                 !Catch::Contains("jwt-1") && !Catch::Contains("jwt-2") &&
                 !Catch::Contains("hunter2"));
  CHECK(airflow.issued() == 2);
  CHECK(LoopbackServer::instance().seen("/af-jwt-refused/api/v2/dags/ml_train/tasks").size() == 2);
}

TEST_CASE("airflow auto with a password: Airflow 3 gets a JWT, Airflow 2 keeps basic auth",
          "[airflow]") {
  testing::TempDir dir;
  std::ofstream(dir / "password") << "hunter2-password\n";
  auto& server = LoopbackServer::instance();

  // This Airflow 3 wants the token for its version too: the probe's 401 leads to the login.
  Airflow3 airflow("/af-auto-jwt", "hunter2-password");
  auto v3 = sourceFor(passwordOptions("/af-auto-jwt", "auto", dir / "password"));
  auto fetched = v3->fetch({{"ml_train", kV2Run}});
  REQUIRE(fetched.ok());
  CHECK(fetched->api_version == "v2");
  CHECK(airflow.issued() == 1);
  CHECK(fetched->requests == 5);  // the refused probe, the login, the probe, the list, one page

  serveV1("/af-auto-basic");
  server.route("/af-auto-basic/auth/token", [](const SeenRequest&, std::size_t) {
    return Reply{404, "application/json", R"({"detail":"Not Found"})", {}};
  });
  AirflowOptions options = passwordOptions("/af-auto-basic", "auto", dir / "password");
  options.page_size = 4;
  auto v2 = sourceFor(options);
  auto basic = v2->fetch({{"etl_daily", kV1Run}});
  REQUIRE(basic.ok());
  CHECK(basic->api_version == "v1");
  CHECK(server.seen("/af-auto-basic/auth/token").empty());
  CHECK_THAT(
      server.seen("/af-auto-basic/api/v1/dags/etl_daily/tasks").at(0).header("Authorization"),
      Catch::StartsWith("Basic "));
}

TEST_CASE("airflow: a body that is not the API's JSON names the URL and status", "[airflow]") {
  auto& server = LoopbackServer::instance();
  const std::string login =
      "<!DOCTYPE html>\n<html><head><title>Sign In - Airflow</title></head></html>";
  SECTION("HTML with 200 (a login page behind a proxy)") {
    server.route("/af-html/api/v1/dags/etl_daily/tasks", [login](const SeenRequest&, std::size_t) {
      return Reply{200, "text/html; charset=utf-8", login, {}};
    });
    auto fetched = sourceFor(optionsFor("/af-html", "v1"))->fetch({{"etl_daily", kV1Run}});
    REQUIRE_FALSE(fetched.ok());
    CHECK_THAT(fetched.error().message,
               Catch::Contains("GET " + server.url("/af-html/api/v1/dags/etl_daily/tasks")) &&
                   Catch::Contains("HTTP 200 (text/html; charset=utf-8)") &&
                   Catch::Contains("not JSON") && Catch::Contains("Sign In - Airflow"));
  }
  SECTION("JSON of another shape") {
    server.route("/af-shape/api/v1/dags/etl_daily/tasks", [](const SeenRequest&, std::size_t) {
      return Reply{200, "application/json", R"({"dags":[]})", {}};
    });
    auto fetched = sourceFor(optionsFor("/af-shape", "v1"))->fetch({{"etl_daily", kV1Run}});
    REQUIRE_FALSE(fetched.ok());
    CHECK_THAT(fetched.error().message, Catch::Contains("\"tasks\" array"));
  }
  SECTION("HTML 502 from a gateway, after the retries") {
    serveFile("/af-502/api/v1/dags/etl_daily/tasks", "v1/etl_daily_tasks.json");
    const std::string path = "/af-502/api/v1/dags/etl_daily/dagRuns/" + kV1Run + "/taskInstances";
    server.route(path, [](const SeenRequest&, std::size_t) {
      return Reply{502, "text/html", "<html><body><h1>502 Bad Gateway</h1></body></html>", {}};
    });
    AirflowOptions options = optionsFor("/af-502", "v1");
    options.max_retries = 1;
    auto source = sourceFor(options);
    auto fetched = source->fetch({{"etl_daily", kV1Run}});
    REQUIRE_FALSE(fetched.ok());
    CHECK_THAT(fetched.error().message,
               Catch::Contains("HTTP 502") && Catch::Contains("502 Bad Gateway"));
    CHECK(server.seen(path).size() == 2);
    CHECK(source->requestCount() == 3);  // the task list, then the page and its retry
  }
}

TEST_CASE("airflow: a 503 is retried and the fetch succeeds", "[airflow]") {
  serveV2("/af-503");
  const std::string body = fixture("v2/ml_train_tasks.json");
  LoopbackServer::instance().route("/af-503/api/v2/dags/ml_train/tasks",
                                   [body](const SeenRequest&, std::size_t index) {
                                     return index == 0 ? Reply{503, "text/plain", "starting", {}}
                                                       : Reply{200, "application/json", body, {}};
                                   });
  auto fetched = sourceFor(optionsFor("/af-503", "v2"))->fetch({{"ml_train", kV2Run}});
  REQUIRE(fetched.ok());
  CHECK(fetched->dags.size() == 1);
  CHECK(fetched->requests == 3);  // 503, 200, one page of task instances
}

TEST_CASE("airflow: DAG and run ids are percent-encoded in the path", "[airflow]") {
  // Unescaped, '?' would start the query, '#' a fragment and "%5" a broken escape: the server
  // (which decodes the path) would then see another path than the run's.
  const std::string run = "manual__2025-06-01T02:00:00+00:00?x=1#50%";
  serveFile("/af-enc/api/v2/dags/ml.train-2/tasks", "v2/ml_train_tasks.json");
  const std::string path = "/af-enc/api/v2/dags/ml.train-2/dagRuns/" + run + "/taskInstances";
  serveFile(path, "v2/ml_train_task_instances.json");
  auto fetched = sourceFor(optionsFor("/af-enc", "v2"))->fetch({{"ml.train-2", run}});
  REQUIRE(fetched.ok());
  CHECK(fetched->warnings.empty());
  REQUIRE(fetched->runs.size() == 1);
  CHECK(fetched->runs[0].task_instances.size() == 4);
  const auto seen = LoopbackServer::instance().seen(path);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].query == "limit=100&offset=0");
  CHECK(encodePathSegment(run) == "manual__2025-06-01T02%3A00%3A00%2B00%3A00%3Fx%3D1%2350%25");
  CHECK(encodePathSegment("a b/c~d") == "a%20b%2Fc%7Ed");
  CHECK(encodePathSegment("etl.daily-v2_x") == "etl.daily-v2_x");
}

TEST_CASE("airflow: options are checked, errors name the setting", "[airflow]") {
  AirflowOptions options;
  options.url = "ftp://airflow";
  auto bad_url = AirflowSource::create(options);
  REQUIRE_FALSE(bad_url.ok());
  CHECK(bad_url.error().field == "url");
  options.url = "http://airflow:8080/";
  options.api_version = "v3";
  auto bad_version = AirflowSource::create(options);
  REQUIRE_FALSE(bad_version.ok());
  CHECK(bad_version.error().field == "api_version");
  options.api_version = "v1";
  auto good = AirflowSource::create(options);
  REQUIRE(good.ok());
  CHECK((*good)->describe() == "airflow http://airflow:8080");
}

TEST_CASE("airflow: a task-instance page is decoded tolerantly", "[airflow]") {
  auto page = parseAirflowTaskInstances(
      R"({"task_instances":[{"task_id":"a","map_index":2,"try_number":1,"state":null},7],
          "total_entries":9})");
  REQUIRE(page.ok());
  REQUIRE(page->task_instances.size() == 1);
  CHECK(page->task_instances[0].map_index == 2);
  CHECK(page->task_instances[0].state.empty());
  CHECK(page->total_entries == 9);
  CHECK_FALSE(parseAirflowTaskInstances("<html>").ok());
  CHECK_FALSE(parseAirflowTaskInstances(R"({"task_instances":{}})").ok());
}

}  // namespace
}  // namespace dagadvisor::sources
