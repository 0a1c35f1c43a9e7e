#include "model/adapters/object_edges.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "common/duration.h"
#include "model/adapters/adapter_registry.h"
#include "support/builders.h"
#include "support/test_support.h"

using namespace dagadvisor;
using nlohmann::json;

namespace {

using EdgeSet = std::set<std::pair<std::string, std::string>>;

// One pod per Pod node of an Argo Workflow, labelled and annotated as the controller does, and
// created and finished when the object says the node started and finished.
std::vector<model::Pod> argoPods(const json& workflow, const std::set<std::string>& skip = {}) {
  const std::string wf = workflow["metadata"]["name"];
  std::vector<model::Pod> pods;
  for (const auto& item : workflow["status"]["nodes"].items()) {
    const std::string id = item.key();
    const json& node = item.value();
    const std::string name = node["name"];
    if (node["type"] != "Pod" || skip.count(name)) {
      continue;
    }
    pods.push_back(
        testing::makePod(workflow["metadata"]["namespace"], id, "n1", 1, 1, 0, [&](model::Pod& p) {
          p.labels.set("workflows.argoproj.io/workflow", wf);
          p.annotations.set("workflows.argoproj.io/node-name", name);
          p.created = *dagadvisor::parseRfc3339(node["startedAt"].get<std::string>());
          p.started = p.created;
          p.finished = *dagadvisor::parseRfc3339(node["finishedAt"].get<std::string>());
          p.phase = model::PodPhase::kSucceeded;
        }));
  }
  return pods;
}

model::ClusterSnapshot cluster(std::vector<model::Pod> pods) {
  return model::ClusterSnapshot(2e9, {testing::makeNode("n1", 8, 32)}, std::move(pods));
}

EdgeSet edges(const model::WorkflowRun& run, bool inferred) {
  EdgeSet out;
  for (const model::Edge& e : run.edges) {
    if (e.inferred == inferred) {
      out.emplace(run.tasks[e.parent].id, run.tasks[e.child].id);
    }
  }
  return out;
}

const model::Task& task(const model::WorkflowRun& run, std::string_view id) {
  auto it = std::find_if(run.tasks.begin(), run.tasks.end(),
                         [&](const model::Task& t) { return t.id == id; });
  INFO("task " << id);
  REQUIRE(it != run.tasks.end());
  return *it;
}

// A source that hands out fixed objects and records the runs it was shown.
class FixedObjects final : public model::ObjectSource {
 public:
  explicit FixedObjects(std::vector<model::SourcedObject> objects, std::string warning = {})
      : objects_(std::move(objects)), warning_(std::move(warning)) {}
  model::ObjectFetch fetch(const std::vector<model::WorkflowRun>& runs) override {
    runs_seen = runs.size();
    model::ObjectFetch out{objects_, {}};
    if (!warning_.empty()) {
      out.warnings.push_back(warning_);
    }
    return out;
  }
  std::string describe() const override { return "fixed"; }
  std::size_t runs_seen = 0;

 private:
  std::vector<model::SourcedObject> objects_;
  std::string warning_;
};

model::SourcedObject sourced(const json& object, std::string ns,
                             model::ObjectScope scope = model::ObjectScope::kRun) {
  auto parsed = object.contains("kind") && object["kind"] == "Workflow"
                    ? model::parseArgoWorkflow(object)
                    : model::parseTektonPipelineRun(object);
  REQUIRE(parsed.ok());
  return model::SourcedObject{*parsed, std::move(ns), scope};
}

config::WorkflowLabels keys() {
  return config::WorkflowLabels{};
}

}  // namespace

TEST_CASE("an Argo Workflow's edges replace the ones inferred from timing", "[model][objects]") {
  const json wf = testing::workflowFixture("argo-dag-disable-fail-fast.json");
  const model::ClusterSnapshot snapshot = cluster(argoPods(wf));
  // The fixture's README: A → B, C; B → D → E. Timing alone also links C (which failed at
  // 09:12:12) to D and E, created within the inference window after it.
  const EdgeSet declared = {{"A", "B"}, {"A", "C"}, {"B", "D"}, {"D", "E"}};

  auto inferred_runs = model::buildRuns(snapshot, keys());
  REQUIRE(inferred_runs.size() == 1);
  REQUIRE(edges(inferred_runs[0], true).count({"C", "D"}) == 1);
  CHECK(edges(inferred_runs[0], false).empty());

  SECTION("applied to runs that already have inferred edges") {
    const auto described = model::applyWorkflowObjects(inferred_runs, {sourced(wf, "default")});
    REQUIRE(described == std::vector<bool>{true});
    const model::WorkflowRun& run = inferred_runs[0];
    CHECK(edges(run, false) == declared);
    CHECK(edges(run, true).empty());
    CHECK_FALSE(testing::anyContains(run.problems, "inferred"));
    CHECK(task(run, "C").attempts == 2);  // pods C(0) and C(1)
    CHECK(task(run, "D").parent_ids == std::vector<std::string>{"B"});
  }
  SECTION("through the cycle's entry point, which infers only for undescribed runs") {
    std::vector<model::ObjectSourcePtr> sources;
    sources.push_back(std::make_unique<FixedObjects>(
        std::vector<model::SourcedObject>{
            sourced(wf, ""),
        },
        "a gap"));
    std::vector<std::string> warnings;
    const auto runs = model::buildRunsWithObjects(snapshot, keys(), sources, warnings);
    REQUIRE(runs.size() == 1);
    CHECK(edges(runs[0], false) == declared);
    CHECK(edges(runs[0], true).empty());
    CHECK(warnings == std::vector<std::string>{"a gap"});
    CHECK(static_cast<FixedObjects&>(*sources[0]).runs_seen == 1);
  }
}

TEST_CASE("a retried Argo task gets the attempts the object counted", "[model][objects]") {
  const json wf = testing::workflowFixture("argo-dag_retry_succeeded.json");
  // Only the last attempt's pod is still known; the object lists step1(0), (1) and (2).
  auto runs = model::buildRuns(
      cluster(argoPods(wf, {"dag-with-retries-4wkh8.step1(0)", "dag-with-retries-4wkh8.step1(1)"})),
      keys());
  REQUIRE(runs.size() == 1);
  REQUIRE(task(runs[0], "step1").attempts == 1);
  model::applyWorkflowObjects(runs, {sourced(wf, "default")});
  CHECK(task(runs[0], "step1").attempts == 3);
  CHECK(runs[0].edges.empty());
  CHECK(runs[0].problems.empty());
}

TEST_CASE("a Tekton PipelineRun's runAfter and result edges override timing", "[model][objects]") {
  json pipeline_run = testing::workflowFixture("tekton-chains-pipelinerun-childrefs.json");
  // The chains fixture has no metadata; the API server always sends it.
  pipeline_run["metadata"] = {{"name", "chains-run"}, {"namespace", "ci"}};
  std::vector<model::Pod> pods;
  for (const char* name : {"git-clone", "build", "scan"}) {
    // Both TaskRuns of the fixture ran 09:50:00 – 09:50:15, so timing sees no order.
    pods.push_back(testing::makePod("ci", std::string("chains-run-") + name, "n1", 1, 1, 0,
                                    [&](model::Pod& p) {
                                      p.labels.set("tekton.dev/pipelineRun", "chains-run");
                                      p.labels.set("tekton.dev/pipelineTask", name);
                                      p.created = 1617011400;
                                      p.finished = 1617011415;
                                    }));
  }
  std::vector<model::ObjectSourcePtr> sources;
  sources.push_back(std::make_unique<FixedObjects>(
      std::vector<model::SourcedObject>{sourced(pipeline_run, "ci")}));
  std::vector<std::string> warnings;
  const auto runs =
      model::buildRunsWithObjects(cluster(std::move(pods)), keys(), sources, warnings);
  REQUIRE(runs.size() == 1);
  CHECK(edges(runs[0], false) == EdgeSet{{"git-clone", "build"}});
  CHECK(edges(runs[0], true).empty());
  // "scan" has a pod but the PipelineRun does not name it: noted, not invented.
  CHECK(testing::anyContains(runs[0].problems, "not in the tekton object chains-run"));
  CHECK(testing::anyContains(runs[0].problems, "scan"));
}

TEST_CASE("objects match by engine, namespace and scope; gaps are run problems",
          "[model][objects]") {
  const json wf = testing::workflowFixture("argo-dag-disable-fail-fast.json");
  // Without E's pod, the D → E edge has nowhere to go.
  const model::ClusterSnapshot snapshot = cluster(argoPods(wf, {"dag-disable-fail-fast-r6xdc.E"}));
  const auto fresh = [&] {
    return model::buildRuns(snapshot, keys());
  };

  SECTION("another namespace does not match") {
    auto runs = fresh();
    CHECK(model::applyWorkflowObjects(runs, {sourced(wf, "elsewhere")}) ==
          std::vector<bool>{false});
    CHECK(edges(runs[0], false).empty());
  }
  SECTION("another engine does not match") {
    model::SourcedObject object = sourced(wf, "default");
    object.object.engine = "tekton";
    auto runs = fresh();
    CHECK(model::applyWorkflowObjects(runs, {object}) == std::vector<bool>{false});
  }
  SECTION("a DAG-run scoped object matches \"<dag>/<run>\"") {
    model::SourcedObject object = sourced(wf, "", model::ObjectScope::kDagRun);
    object.object.name = "dag-disable-fail-fast/dag-disable-fail-fast-r6xdc";
    auto runs = fresh();
    CHECK(model::applyWorkflowObjects(runs, {object}) == std::vector<bool>{true});
  }
  SECTION("a task the object names without a pod is a problem, not an edge") {
    auto runs = fresh();
    model::applyWorkflowObjects(runs, {sourced(wf, "default")});
    CHECK(edges(runs[0], false) == EdgeSet{{"A", "B"}, {"A", "C"}, {"B", "D"}});
    CHECK(testing::anyContains(runs[0].problems, "1 task(s) of the argo object"));
    CHECK(testing::anyContains(runs[0].problems, ": E"));
  }
}
