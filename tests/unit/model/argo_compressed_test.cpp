// Argo's status.compressedNodes (base64 of the gzipped nodes map). The compressed fixtures were
// made from the plain ones with Python's gzip and base64 (tests/fixtures/workflows/README.md), so
// the plain parse is an independent reference for the compressed one.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "model/adapters/workflow_objects.h"
#include "support/test_support.h"

using namespace dagadvisor;
using nlohmann::json;

namespace {

void checkSameTasks(const model::WorkflowObject& plain, const model::WorkflowObject& compressed) {
  REQUIRE(compressed.tasks.size() == plain.tasks.size());
  CHECK(compressed.name == plain.name);
  CHECK(compressed.edgeCount() == plain.edgeCount());
  CHECK(compressed.problems == plain.problems);
  for (std::size_t i = 0; i < plain.tasks.size(); ++i) {
    const model::ObjectTask& a = plain.tasks[i];
    const model::ObjectTask& b = compressed.tasks[i];
    INFO("task " << a.id);
    CHECK(b.id == a.id);
    CHECK(b.parents == a.parents);
    CHECK(b.phase == a.phase);
    CHECK(b.started == a.started);
    CHECK(b.finished == a.finished);
    CHECK(b.node == a.node);
    CHECK(b.attempts == a.attempts);
  }
}

// The compressed fixture with its compressedNodes replaced.
json withCompressedNodes(const std::string& value) {
  json wf = testing::workflowFixture("argo-dag_retry_succeeded.compressed.json");
  wf["status"]["compressedNodes"] = value;
  return wf;
}

void checkDataGap(const json& wf, const std::string& reason) {
  const auto parsed = model::parseArgoWorkflow(wf);
  REQUIRE(parsed.ok());
  CHECK(parsed->tasks.empty());
  REQUIRE(parsed->problems.size() == 1);
  CHECK_THAT(parsed->problems[0], Catch::Contains("compressedNodes"));
  CHECK_THAT(parsed->problems[0], Catch::Contains(reason));
}

}  // namespace

TEST_CASE("Argo compressedNodes decode to the same tasks and edges as status.nodes",
          "[model][objects][argo]") {
  for (const std::string name : {"argo-dag_retry_succeeded", "argo-dag-disable-fail-fast"}) {
    INFO(name);
    const auto plain = model::parseArgoWorkflow(testing::workflowFixture(name + ".json"));
    const auto compressed =
        model::parseArgoWorkflow(testing::workflowFixture(name + ".compressed.json"));
    REQUIRE(plain.ok());
    REQUIRE(compressed.ok());
    REQUIRE_FALSE(plain->tasks.empty());
    checkSameTasks(*plain, *compressed);
  }
  // The multi-task fixture really has edges to compare (the retry one has a single task).
  CHECK(model::parseArgoWorkflow(
            testing::workflowFixture("argo-dag-disable-fail-fast.compressed.json"))
            ->edgeCount() > 0);
}

TEST_CASE("Argo compressedNodes beyond the inflate cap are a data gap", "[model][objects][argo]") {
  const json wf = testing::workflowFixture("argo-dag-disable-fail-fast.compressed.json");
  const auto capped = model::parseArgoWorkflow(wf, 512);
  REQUIRE(capped.ok());
  CHECK(capped->tasks.empty());
  REQUIRE(capped->problems.size() == 1);
  CHECK_THAT(capped->problems[0], Catch::Contains("inflates beyond 512 bytes"));
  // The default cap (64 MiB) lets the same object through.
  CHECK_FALSE(model::parseArgoWorkflow(wf)->tasks.empty());
}

TEST_CASE("corrupt Argo compressedNodes are a data gap, never a crash", "[model][objects][argo]") {
  const std::string good = testing::workflowFixture(
      "argo-dag_retry_succeeded.compressed.json")["status"]["compressedNodes"];
  SECTION("not base64") {
    checkDataGap(withCompressedNodes("%%%not-base64%%%"), "base64");
  }
  SECTION("base64 of something that is not gzip") {
    checkDataGap(withCompressedNodes("aGVsbG8gd29ybGQ="), "gzip");  // "hello world"
  }
  SECTION("truncated gzip stream") {
    checkDataGap(withCompressedNodes(good.substr(0, good.size() / 2 / 4 * 4)), "gzip");
  }
  SECTION("a flipped byte in the compressed data") {
    std::string bad = good;
    bad[bad.size() / 2] = bad[bad.size() / 2] == 'A' ? 'B' : 'A';
    checkDataGap(withCompressedNodes(bad), "gzip");
  }
  SECTION("gzip of a JSON value that is not the nodes map") {
    // base64(gzip("[1,2]")), from python3: base64.b64encode(gzip.compress(b"[1,2]", mtime=0)).
    checkDataGap(withCompressedNodes("H4sIAAAAAAACA4s21DGKBQC/UIsIBQAAAA=="), "JSON object");
  }
}

TEST_CASE("an offloaded Argo node status stays a data gap even with compressedNodes",
          "[model][objects][argo]") {
  json wf = testing::workflowFixture("argo-dag_retry_succeeded.compressed.json");
  wf["status"]["offloadNodeStatusVersion"] = "fnv:1";
  const auto parsed = model::parseArgoWorkflow(wf);
  REQUIRE(parsed.ok());
  CHECK(parsed->tasks.empty());
  REQUIRE(parsed->problems.size() == 1);
  CHECK_THAT(parsed->problems[0], Catch::Contains("offloaded"));
}
