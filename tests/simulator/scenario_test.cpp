#include <string>

#include "sim_test_support.h"

using namespace dagadvisor::sim;
using namespace dagadvisor::sim::test;

namespace {

const char* kMinimal = R"(
name: minimal
node_pools: [{name: n, count: 1, cpu: 4, memory: 8Gi}]
workflows:
  - name: w
    tasks:
)";

}  // namespace

TEST_CASE("quantities parse as Kubernetes writes them", "[simulator][scenario]") {
  CHECK(parseQuantity("500m").value() == Approx(0.5));
  CHECK(parseQuantity("4Gi").value() == Approx(4.0 * 1024 * 1024 * 1024));
  CHECK(parseQuantity("1.5G").value() == Approx(1.5e9));
  CHECK(parseQuantity("2").value() == Approx(2));
  CHECK_FALSE(parseQuantity("4GiB").has_value());
  CHECK_FALSE(parseQuantity("").has_value());
  CHECK_FALSE(parseQuantity("abc").has_value());
}

TEST_CASE("label keys are sanitised as kube-state-metrics does", "[simulator][scenario]") {
  CHECK(sanitizeLabelKey("dag-id") == "dag_id");
  CHECK(sanitizeLabelKey("workflows.argoproj.io/workflow") == "workflows_argoproj_io_workflow");
  CHECK(sanitizeLabelKey("tekton.dev/pipelineRun") == "tekton_dev_pipeline_run");
  CHECK(sanitizeLabelKey("tekton.dev/pipelineRunUID") == "tekton_dev_pipeline_run_uid");
  CHECK(sanitizeLabelKey("workflow.dependencies") == "workflow_dependencies");
}

TEST_CASE("every shipped scenario loads", "[simulator][scenario]") {
  for (const char* name :
       {"seed", "gpu-hoarding", "split-dependencies", "dag-stacking", "latency-spike",
        "burst-shortfall", "mixed-online", "healthy", "scale"}) {
    INFO(name);
    Scenario s = loadShipped(name);
    CHECK(s.name == name);
    CHECK_FALSE(s.workflows.empty());
  }
}

TEST_CASE("a bad scenario is refused with the field named", "[simulator][scenario]") {
  SECTION("unknown parent") {
    auto r = loadText(std::string(kMinimal) + "      - {id: a, parents: [nope]}\n");
    CHECK_FALSE(r.scenario.has_value());
    CHECK_THAT(r.error, Catch::Contains("unknown parent 'nope'"));
  }
  SECTION("cycle") {
    auto r = loadText(std::string(kMinimal) +
                      "      - {id: a, parents: [b]}\n      - {id: b, parents: [a]}\n");
    CHECK_THAT(r.error, Catch::Contains("cycle"));
  }
  SECTION("duplicate task id") {
    auto r = loadText(std::string(kMinimal) + "      - {id: a}\n      - {id: a}\n");
    CHECK_THAT(r.error, Catch::Contains("duplicate task id 'a'"));
  }
  SECTION("unknown engine") {
    auto r = loadText(std::string(kMinimal) + "      - {id: a}\n    engine: luigi\n");
    CHECK_THAT(r.error, Catch::Contains("workflows[0].engine"));
  }
  SECTION("bad quantity") {
    auto r = loadText(
        "name: x\nnode_pools: [{name: n, count: 1, cpu: lots, memory: 8Gi}]\n"
        "workflows: [{name: w, tasks: [{id: a}]}]\n");
    CHECK_THAT(r.error, Catch::Contains("node_pools[0].cpu"));
  }
  SECTION("refresh beyond the lookback") {
    auto r =
        loadText(std::string(kMinimal) + "      - {id: a}\noutput: {step: 60, refresh: 270}\n");
    CHECK_THAT(r.error, Catch::Contains("output.refresh"));
  }
  SECTION("a toleration with an empty key must be Exists") {
    auto r = loadText(std::string(kMinimal) +
                      "      - {id: a, tolerations: [{operator: Equal, value: x}]}\n");
    CHECK_THAT(r.error, Catch::Contains("workflows[0].tasks[0]"));
    CHECK_THAT(r.error, Catch::Contains("operator Exists"));
  }
  SECTION("an unknown preemption policy") {
    auto r = loadText(std::string(kMinimal) + "      - {id: a}\n" +
                      "priority_classes: [{name: p, value: 1, preemption_policy: Sometimes}]\n");
    CHECK_THAT(r.error, Catch::Contains("priority_classes[0].preemption_policy"));
  }
  SECTION("not YAML at all") {
    auto r = loadText("name: [unclosed\n");
    CHECK_FALSE(r.scenario.has_value());
    CHECK_FALSE(r.error.empty());
  }
  SECTION("missing file") {
    auto r = loadScenario("/nonexistent/scenario.yaml");
    CHECK_FALSE(r.scenario.has_value());
  }
}
