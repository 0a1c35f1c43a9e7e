#include "app/whatif_command.h"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "graph/plan_file.h"
#include "support/test_support.h"

using dagadvisor::app::parsePlanJson;
using dagadvisor::app::runWhatIfCommand;
using dagadvisor::graph::compilePlan;
using dagadvisor::graph::Plan;

namespace {

struct Run {
  int code;
  std::string out;
  std::string err;
};

Run whatIf(const std::string& path, const std::string& format) {
  std::ostringstream out;
  std::ostringstream err;
  const int code = runWhatIfCommand(path, format, out, err);
  return {code, out.str(), err.str()};
}

// One file per process: ctest runs each test case as its own process, possibly in parallel.
std::string tempPlanPath() {
  const std::string name = "dagadvisor_whatif_test_" + std::to_string(::getpid()) + ".json";
  return (std::filesystem::temp_directory_path() / name).string();
}

// Writes `text` to a temporary plan file and runs the command on it.
Run whatIfText(const std::string& text, const std::string& format = "table") {
  const std::string path = tempPlanPath();
  {
    std::ofstream file(path, std::ios::binary);
    file << text;
  }
  Run run = whatIf(path, format);
  std::remove(path.c_str());
  return run;
}

// "field: message" of the first problem, through the decoder and the checks.
std::string planError(const std::string& text) {
  auto plan = parsePlanJson(text);
  if (!plan.ok()) {
    return plan.error().describe();
  }
  auto compiled = compilePlan(*plan);
  return compiled.ok() ? std::string("ok") : compiled.error().describe();
}

const std::string kTwoProcessors = R"("processors":[{"name":"p1"},{"name":"p2"}])";

std::string plan(const std::string& tasks, const std::string& edges = "[]") {
  return "{" + kTwoProcessors + R"(,"tasks":)" + tasks + R"(,"edges":)" + edges + "}";
}

}  // namespace

TEST_CASE("whatif on the paper's example prints makespan 80 and rank 108 as JSON", "[whatif]") {
  const Run run = whatIf(dagadvisor::testing::fixturePath("plans/topcuoglu2002.json"), "json");
  REQUIRE(run.code == 0);
  CHECK(run.err.empty());
  const auto report = nlohmann::json::parse(run.out);
  CHECK(report["makespan"] == 80);
  CHECK(report["processors"] == nlohmann::json({"P1", "P2", "P3"}));
  REQUIRE(report["schedule"].size() == 10);
  CHECK(report["schedule"][0]["task"] == "1");  // the entry task starts first, at 0
  CHECK(report["schedule"][0]["start"] == 0);
  CHECK(report["upward_rank"][0]["task"] == "1");
  CHECK(report["upward_rank"][0]["rank"].get<double>() == Approx(108));
  CHECK(report["critical_path"]["tasks"] == nlohmann::json({"1", "2", "9", "10"}));
  CHECK(report["critical_path"]["length"].get<double>() == Approx(108));
  double last = 0;
  for (const auto& row : report["schedule"]) {
    last = std::max(last, row["finish"].get<double>());
  }
  CHECK(last == 80);
  CHECK(report["idle_slots"].is_array());
}

TEST_CASE("whatif table output lists every task, the makespan and the critical path", "[whatif]") {
  const Run run = whatIf(dagadvisor::testing::fixturePath("plans/topcuoglu2002.json"), "table");
  REQUIRE(run.code == 0);
  CHECK(run.out.find("makespan 80\n") != std::string::npos);
  CHECK(run.out.find("critical path (mean costs, length 108): 1 → 2 → 9 → 10") !=
        std::string::npos);
  CHECK(run.out.find("63.333") != std::string::npos);  // rank of task 6, three decimals
  // The rows sit between the "task processor …" header and the next blank line.
  std::vector<std::string> first_cells;
  std::istringstream lines(run.out);
  bool in_rows = false;
  for (std::string line; std::getline(lines, line);) {
    if (in_rows && line.empty()) {
      break;
    }
    if (in_rows) {
      first_cells.push_back(line.substr(0, line.find(' ')));
    }
    in_rows = in_rows || line.rfind("task ", 0) == 0;
  }
  std::sort(first_cells.begin(), first_cells.end());
  CHECK(first_cells == std::vector<std::string>{"1", "10", "2", "3", "4", "5", "6", "7", "8", "9"});
}

TEST_CASE("whatif accepts a single cost, null for an unusable processor, and no edges",
          "[whatif]") {
  const Run run = whatIfText(plan(R"([{"id":"a","cost":3},{"id":"b","cost":[null,5]}])"), "json");
  REQUIRE(run.code == 0);
  const auto report = nlohmann::json::parse(run.out);
  CHECK(report["makespan"] == 5);
  for (const auto& row : report["schedule"]) {
    if (row["task"] == "b") {
      CHECK(row["processor"] == "p2");
    }
  }
}

TEST_CASE("whatif exits 2 naming the file and the JSON path of a bad plan", "[whatif]") {
  const Run bad = whatIfText(plan(R"([{"id":"a","cost":[1,2,3]}])"));
  CHECK(bad.code == 2);
  CHECK(bad.out.empty());
  CHECK(bad.err == "dagadvisor: whatif: " + tempPlanPath() +
                       ": tasks[0].cost: expected 2 numbers (one per processor) or 1, got 3\n");
  const Run missing = whatIf("/nonexistent/plan.json", "table");
  CHECK(missing.code == 2);
  CHECK(missing.err.find("/nonexistent/plan.json: cannot read") != std::string::npos);
  const Run format = whatIf(dagadvisor::testing::fixturePath("plans/topcuoglu2002.json"), "yaml");
  CHECK(format.code == 2);
  CHECK(format.err.find("--output: unknown output format \"yaml\"") != std::string::npos);
}

TEST_CASE("plan decoding errors name the JSON path", "[whatif]") {
  CHECK(planError("{").find("parse error at line 1, column 2") == 0);
  CHECK(planError("[]") == "plan: expected an object");
  CHECK(planError(R"({"tasks":[]})") == "processors: missing");
  CHECK(planError(R"({"processors":{},"tasks":[]})") == "processors: expected an array");
  CHECK(planError(R"({"processors":[{"name":"p"}],"tasks":[],"extra":1})") ==
        "plan.extra: unknown key (expected description, processors, tasks, edges)");
  CHECK(planError(R"({"processors":[{"nam":"p"}],"tasks":[]})") ==
        "processors[0].nam: unknown key (expected name)");
  CHECK(planError(R"({"processors":[{}],"tasks":[]})") == "processors[0].name: missing");
  CHECK(planError(plan(R"([{"id":"a","cost":[1,2]},{"id":7,"cost":1}])")) ==
        "tasks[1].id: expected a string");
  CHECK(planError(plan(R"([{"id":"a"}])")) == "tasks[0].cost: missing");
  CHECK(planError(plan(R"([{"id":"a","cost":[1,"x"]}])")) ==
        "tasks[0].cost[1]: expected a number or null");
  CHECK(planError(plan(R"([{"id":"a","cost":1}])", R"([{"from":"a"}])")) == "edges[0].to: missing");
  CHECK(planError(plan(R"([{"id":"a","cost":1}])", R"([{"from":"a","to":"a","transfer":"1"}])")) ==
        "edges[0].transfer: expected a number");
  CHECK(planError(plan(R"([{"id":"a","cost":1}])", R"([{"from":"a","to":"b","tranfer":1}])")) ==
        "edges[0].tranfer: unknown key (expected from, to, transfer)");
}

TEST_CASE("plan content errors name the JSON path", "[whatif]") {
  CHECK(planError(R"({"processors":[{"name":"p"}],"tasks":[{"id":"a","cost":[1,2]}]})") ==
        "tasks[0].cost: expected 1 number, got 2");
  CHECK(planError(R"({"processors":[],"tasks":[]})") ==
        "processors: at least one processor is needed");
  CHECK(planError(R"({"processors":[{"name":"p"},{"name":"p"}],"tasks":[{"id":"a","cost":1}]})") ==
        "processors[1].name: duplicate name \"p\" (also processors[0])");
  CHECK(planError(plan("[]")) == "tasks: at least one task is needed");
  CHECK(planError(plan(R"([{"id":"","cost":1}])")) == "tasks[0].id: must not be empty");
  CHECK(planError(plan(R"([{"id":"a","cost":1},{"id":"a","cost":2}])")) ==
        "tasks[1].id: duplicate id \"a\" (also tasks[0])");
  CHECK(planError(plan(R"([{"id":"a","cost":[1,2,3]}])")) ==
        "tasks[0].cost: expected 2 numbers (one per processor) or 1, got 3");
  CHECK(planError(plan(R"([{"id":"a","cost":[1,-2]}])")) ==
        "tasks[0].cost[1]: must be a number from 0 to 1e15");
  CHECK(planError(plan(R"([{"id":"a","cost":[1,1e16]}])")) ==
        "tasks[0].cost[1]: must be a number from 0 to 1e15");
  CHECK(planError(plan(R"([{"id":"a","cost":[null,null]}])")) ==
        "tasks[0].cost: the task can run on no processor (every cost is null)");
  const std::string ab = R"([{"id":"a","cost":1},{"id":"b","cost":1}])";
  CHECK(planError(plan(ab, R"([{"from":"a","to":"x"}])")) == "edges[0].to: unknown task \"x\"");
  CHECK(planError(plan(ab, R"([{"from":"y","to":"a"}])")) == "edges[0].from: unknown task \"y\"");
  CHECK(planError(plan(ab, R"([{"from":"a","to":"a"}])")) ==
        "edges[0]: a task cannot depend on itself (\"a\")");
  CHECK(planError(plan(ab, R"([{"from":"a","to":"b","transfer":-1}])")) ==
        "edges[0].transfer: must be a number from 0 to 1e15");
  CHECK(planError(plan(ab, R"([{"from":"a","to":"b"},{"from":"a","to":"b"}])")) ==
        "edges[1]: duplicate edge a → b (also edges[0])");
  CHECK(planError(plan(ab, R"([{"from":"a","to":"b"},{"from":"b","to":"a"}])")) ==
        "edges: cycle a → b → a");
  CHECK(planError(plan(ab, R"([{"from":"a","to":"b","transfer":2.5}])")) == "ok");
}

TEST_CASE("the example plan in docs/whatif.md runs as documented", "[whatif]") {
  // The first ```json block of the page, so the documentation cannot rot.
  const std::string page =
      dagadvisor::testing::readFile(std::string(DAGADVISOR_SOURCE_DIR) + "/docs/whatif.md");
  const auto begin = page.find("```json\n");
  REQUIRE(begin != std::string::npos);
  const auto end = page.find("```", begin + 8);
  REQUIRE(end != std::string::npos);
  const Run run = whatIfText(page.substr(begin + 8, end - begin - 8), "json");
  REQUIRE(run.code == 0);
  const auto report = nlohmann::json::parse(run.out);
  // By hand: extract (rank 503.3) ties at 30 everywhere → cpu-a; transform finishes first on
  // gpu-1 (30 + 20 transfer + 40 = 90); train can only use gpu-1: 90 + 300.
  CHECK(report["makespan"] == 390);
  CHECK(report["critical_path"]["tasks"] == nlohmann::json({"extract", "transform", "train"}));
}
