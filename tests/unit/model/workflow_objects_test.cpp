#include "model/adapters/workflow_objects.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

using namespace dagadvisor;
using nlohmann::json;

namespace {

using Parents = std::vector<std::string>;

const model::ObjectTask& task(const model::WorkflowObject& object, std::string_view id) {
  const model::ObjectTask* found = object.find(id);
  INFO("task " << id);
  REQUIRE(found != nullptr);
  return *found;
}

std::vector<std::string> ids(const model::WorkflowObject& object) {
  std::vector<std::string> out;
  for (const auto& t : object.tasks) {
    out.push_back(t.id);
  }
  return out;
}

}  // namespace

TEST_CASE("Argo status.nodes: retries collapse, edges stored on attempts", "[model][objects]") {
  const auto wf =
      model::parseArgoWorkflow(testing::workflowFixture("argo-dag-disable-fail-fast.json"));
  REQUIRE(wf.ok());
  CHECK(wf->name == "dag-disable-fail-fast-r6xdc");
  CHECK(ids(*wf) == std::vector<std::string>{"A", "B", "C", "D", "E"});
  // The spec: B and C depend on A, D on B, E on D. B → D is stored on B(0).children.
  CHECK(task(*wf, "A").parents.empty());
  CHECK(task(*wf, "B").parents == Parents{"A"});
  CHECK(task(*wf, "C").parents == Parents{"A"});
  CHECK(task(*wf, "D").parents == Parents{"B"});
  CHECK(task(*wf, "E").parents == Parents{"D"});
  CHECK(wf->edgeCount() == 4);
  CHECK(task(*wf, "C").attempts == 2);  // C(0) and C(1)
  CHECK(task(*wf, "B").attempts == 1);
  // Timings of the latest attempt C(1): 09:12:09 → 09:12:12.
  CHECK(task(*wf, "C").phase == "Failed");
  CHECK(task(*wf, "C").started == Approx(1561540329));
  CHECK(task(*wf, "C").finished == Approx(1561540332));
  CHECK(task(*wf, "A").started == Approx(1561540318));
  CHECK(task(*wf, "A").finished == Approx(1561540322));
  CHECK(wf->problems.empty());
}

TEST_CASE("Argo nested DAG: edges cross the sub-DAG boundary to its tasks", "[model][objects]") {
  const auto wf =
      model::parseArgoWorkflow(testing::workflowFixture("argo-dag-exhausted-retries-xfail.json"));
  REQUIRE(wf.ok());
  CHECK(ids(*wf) == std::vector<std::string>{"sub-dag1.fail", "success1", "success2"});
  // success1(0).children = [sub-dag1] whose entry is the Retry `fail`; fail(1).children =
  // [success2].
  CHECK(task(*wf, "success1").parents.empty());
  CHECK(task(*wf, "sub-dag1.fail").parents == Parents{"success1"});
  CHECK(task(*wf, "success2").parents == Parents{"sub-dag1.fail"});
  const auto& fail = task(*wf, "sub-dag1.fail");
  CHECK(fail.attempts == 2);
  CHECK(fail.node == "minikube");
  CHECK(fail.started == Approx(1591057602));
  CHECK(fail.finished == Approx(1591057605));
  CHECK(task(*wf, "success2").attempts == 0);  // Skipped: never ran
  CHECK(task(*wf, "success2").phase == "Omitted");
}

TEST_CASE("Argo steps: step groups hold tasks, retries fold", "[model][objects]") {
  const auto wf =
      model::parseArgoWorkflow(testing::workflowFixture("argo-steps-failed-retries.json"));
  REQUIRE(wf.ok());
  CHECK(ids(*wf) == std::vector<std::string>{"[0].delayed-fail", "[0].fail"});
  CHECK(wf->edgeCount() == 0);
  CHECK(task(*wf, "[0].fail").attempts == 2);
}

TEST_CASE("Argo offloaded or compressed node status is a data gap", "[model][objects]") {
  const auto offloaded = model::parseArgoWorkflow(json::parse(
      R"J({"metadata":{"name":"big"},"status":{"offloadNodeStatusVersion":"fnv:1","nodes":{}}})J"));
  REQUIRE(offloaded.ok());
  CHECK(offloaded->tasks.empty());
  REQUIRE(offloaded->problems.size() == 1);
  CHECK_THAT(offloaded->problems[0], Catch::Contains("offloaded"));

  const auto compressed = model::parseArgoWorkflow(
      json::parse(R"J({"metadata":{"name":"big"},"status":{"compressedNodes":"H4sIAAAA"}})J"));
  REQUIRE(compressed.ok());
  REQUIRE(compressed->problems.size() == 1);
  CHECK_THAT(compressed->problems[0], Catch::Contains("compressed"));

  const auto dangling = model::parseArgoWorkflow(json::parse(
      R"J({"status":{"nodes":{"w":{"type":"Pod","name":"w","children":["gone", 7]}}}})J"));
  REQUIRE(dangling.ok());
  CHECK(dangling->name == "w");
  REQUIRE(dangling->problems.size() == 1);
  CHECK_THAT(dangling->problems[0], Catch::Contains("gone"));

  CHECK_FALSE(model::parseArgoWorkflow(json(42)).ok());
  CHECK(model::parseArgoWorkflow(json::parse(R"J({"status":{"nodes":[1,2]}})J")).ok());
}

TEST_CASE("Tekton PipelineRun: runAfter, result references and TaskRun timings",
          "[model][objects]") {
  const auto run = model::parseTektonPipelineRun(
      testing::workflowFixture("tekton-chains-pipelinerun-childrefs.json"),
      {testing::workflowFixture("tekton-chains-taskrun1-build.json"),
       testing::workflowFixture("tekton-chains-taskrun2-git-clone.json")});
  REQUIRE(run.ok());
  CHECK(ids(*run) == std::vector<std::string>{"build", "git-clone"});
  // build: runAfter [git-clone] and $(tasks.git-clone.results.commit) — one edge.
  CHECK(task(*run, "build").parents == Parents{"git-clone"});
  CHECK(task(*run, "git-clone").parents.empty());
  CHECK(task(*run, "build").started == Approx(1617011400));
  CHECK(task(*run, "build").finished == Approx(1617011415));
  CHECK(task(*run, "build").attempts == 1);
  CHECK(task(*run, "build").phase == "Succeeded");
  CHECK(run->problems.empty());
}

TEST_CASE("Tekton Pipeline: fan-out, fan-in and a result-reference edge", "[model][objects]") {
  const auto run =
      model::parseTektonPipelineRun(testing::workflowFixture("tekton-parallel-pipeline.json"));
  REQUIRE(run.ok());
  CHECK(ids(*run) ==
        std::vector<std::string>{"lower", "reporter", "starter", "upper", "validator"});
  CHECK(task(*run, "upper").parents == Parents{"starter"});
  CHECK(task(*run, "lower").parents == Parents{"starter"});
  CHECK(task(*run, "reporter").parents == Parents{"upper"});
  CHECK(task(*run, "validator").parents == Parents{"lower", "reporter"});
  CHECK(run->edgeCount() == 5);  // workspaces add none
}

TEST_CASE("Tekton finally tasks run after the main DAG's sinks", "[model][objects]") {
  const auto run = model::parseTektonPipelineRun(json::parse(R"J({
    "kind":"PipelineRun","metadata":{"name":"pr"},
    "spec":{"pipelineSpec":{
      "tasks":[{"name":"a"},{"name":"b","runAfter":["a"]},{"name":"c"},
               {"name":"d","params":[{"name":"x","value":"$(tasks.ghost.results.y)"}]}],
      "finally":[{"name":"cleanup","params":[{"name":"s","value":"$(tasks.status)"}]}]}}})J"));
  REQUIRE(run.ok());
  CHECK(task(*run, "cleanup").parents == Parents{"b", "c", "d"});
  CHECK(task(*run, "d").parents == Parents{"ghost"});
  REQUIRE(run->problems.size() == 1);
  CHECK_THAT(run->problems[0], Catch::Contains("ghost"));
  CHECK_FALSE(model::parseTektonPipelineRun(json::parse(R"J({"kind":"TaskRun"})J")).ok());
}

TEST_CASE("KFP: the IR and the compiled workflow give the same user edges", "[model][objects]") {
  const auto ir =
      model::parseKfpPipeline(testing::workflowFixture("kfp-pipeline_with_after.ir.json"));
  const auto compiled =
      model::parseKfpPipeline(testing::workflowFixture("kfp-pipeline_with_after.json"));
  REQUIRE(ir.ok());
  REQUIRE(compiled.ok());
  for (const auto* object : {&*ir, &*compiled}) {
    CHECK(ids(*object) == std::vector<std::string>{"print-text", "print-text-2", "print-text-3"});
    CHECK(task(*object, "print-text").parents.empty());
    CHECK(task(*object, "print-text-2").parents == Parents{"print-text"});
    CHECK(task(*object, "print-text-3").parents == Parents{"print-text", "print-text-2"});
  }
  CHECK(ir->name == "pipeline-with-after");
  CHECK_FALSE(model::parseKfpPipeline(json::parse(R"J({"spec":{"templates":[]}})J")).ok());
}

TEST_CASE("Airflow REST tasks: downstream_task_ids become parents", "[model][objects]") {
  // Shape of GET /api/v2/dags/{dag_id}/tasks (Airflow's own API test, DAG op1 >> op2), plus a
  // fan-in.
  const auto dag = model::parseAirflowTasks(json::parse(R"J({"tasks":[
      {"task_id":"op1","downstream_task_ids":["op2","op3"],"is_mapped":false},
      {"task_id":"op2","downstream_task_ids":["op3"]},
      {"task_id":"op3","downstream_task_ids":[]}],"total_entries":3})J"));
  REQUIRE(dag.ok());
  CHECK(ids(*dag) == std::vector<std::string>{"op1", "op2", "op3"});
  CHECK(task(*dag, "op1").parents.empty());
  CHECK(task(*dag, "op2").parents == Parents{"op1"});
  CHECK(task(*dag, "op3").parents == Parents{"op1", "op2"});
  CHECK_FALSE(model::parseAirflowTasks(json::parse(R"J({"detail":"not found"})J")).ok());
}
