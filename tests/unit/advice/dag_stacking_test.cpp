#include "analysis/detectors/dag_stacking.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "advice/recommender.h"
#include "unit/advice/patch_docs.h"

using namespace dagadvisor;
using nlohmann::json;

namespace {

analysis::Finding stackingFinding(const std::string& run, int tasks, const std::string& node,
                                  const std::vector<std::string>& peers,
                                  analysis::LabelPairs selector = {},
                                  analysis::LabelPairs dag_selector = {}) {
  analysis::StackedNode stack;
  stack.node = node;
  for (int i = 0; i < tasks; ++i) {
    stack.task_ids.push_back("t" + std::to_string(i));
  }
  stack.idle_peer_count = peers.size();
  for (const std::string& p : peers) {
    stack.idle_peers.push_back({p, 16000, 1.0});
  }
  analysis::DagStackingEvidence evidence;
  evidence.scope = {"etl", "daily", run, std::move(selector), std::move(dag_selector)};
  evidence.stacked_tasks = static_cast<std::size_t>(tasks);
  evidence.stacked_nodes = {stack};
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.severity = analysis::Severity::kWarning;
  f.target = "run/etl/daily/" + run;
  f.impact = tasks;
  return f;
}

}  // namespace

TEST_CASE("stacked runs of one DAG become one anti-affinity recommendation",
          "[advice][dag-stacking]") {
  config::Config config;
  const auto recs = advice::recommend(
      {stackingFinding("r1", 5, "w1", {"w2", "w3"}), stackingFinding("r2", 4, "w2", {"w3"})},
      config);
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK(rec.kind == "dag-stacking");
  CHECK(rec.target == "dag/etl/daily");
  CHECK(rec.instances == std::vector<std::string>{"run/etl/daily/r1", "run/etl/daily/r2"});
  CHECK(rec.impact_score == 9);
  CHECK(rec.evidence["idle_peers"] == json::array({"w2", "w3"}));
  CHECK(rec.evidence["stacked_nodes"] == json::array({"w1", "w2"}));
  CHECK_THAT(rec.title, Catch::Contains("up to 5 concurrent tasks"));

  CHECK_THAT(rec.patch_yaml, !Catch::Contains("/podAffinity/"));
  const auto added = testing::addedValue(
      rec.patch_yaml,
      "/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/-");
  REQUIRE(added.IsMap());
  CHECK(added["weight"].as<int>() == 100);
  const auto term = added["podAffinityTerm"];
  CHECK(term["topologyKey"].as<std::string>() == "kubernetes.io/hostname");
  const auto labels = term["labelSelector"]["matchLabels"];
  REQUIRE(labels.size() == 1);  // the DAG, not the run: spread every run's tasks
  CHECK(labels["dag-id"].as<std::string>() == "daily");
}

TEST_CASE("dag-stacking spreads by the engine's DAG label, else by the run's own labels",
          "[advice][dag-stacking]") {
  config::Config config;
  auto labelsOfPatch = [](const std::string& patch) {
    return testing::addedValue(
        patch,
        "/preferredDuringSchedulingIgnoredDuringExecution/-")["podAffinityTerm"]["labelSelector"]
                                                             ["matchLabels"];
  };
  SECTION("Tekton marks the pipeline on every pod: every run of it is spread") {
    const analysis::Finding f =
        stackingFinding("pr-1", 5, "w1", {"w2"}, {{"tekton.dev/pipelineRun", "pr-1"}},
                        {{"tekton.dev/pipeline", "daily"}});
    const auto recs = advice::recommend({f}, config);
    REQUIRE(recs.size() == 1);
    const auto labels = labelsOfPatch(recs[0].patch_yaml);
    REQUIRE(labels.size() == 1);
    CHECK(labels["tekton.dev/pipeline"].as<std::string>() == "daily");
    CHECK_THAT(recs[0].patch_yaml, !Catch::Contains("per run"));
  }
  SECTION("Argo marks only the workflow: the run's own tasks are spread") {
    const analysis::Finding f = stackingFinding(
        "daily-abcde", 5, "w1", {"w2"}, {{"workflows.argoproj.io/workflow", "daily-abcde"}});
    const auto recs = advice::recommend({f}, config);
    REQUIRE(recs.size() == 1);
    const auto labels = labelsOfPatch(recs[0].patch_yaml);
    REQUIRE(labels.size() == 1);
    CHECK(labels["workflows.argoproj.io/workflow"].as<std::string>() == "daily-abcde");
    CHECK_THAT(recs[0].action, Catch::Contains("set them per run"));
  }
}
