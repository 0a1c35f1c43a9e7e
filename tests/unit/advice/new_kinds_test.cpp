#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "advice/recommender.h"
#include "analysis/detectors/critical_path_priority.h"
#include "analysis/detectors/over_request.h"
#include "analysis/detectors/pool_mismatch.h"
#include "unit/advice/patch_docs.h"
#include "unit/analysis/scenarios.h"

using namespace dagadvisor;

namespace {

std::vector<advice::Recommendation> adviseOn(testing::RunFixture& fx,
                                             const analysis::Detector& detector) {
  return advice::recommend(fx.detect(detector), config::Config{});
}

}  // namespace

TEST_CASE("critical-path advice creates the PriorityClass and lists the pending pods",
          "[advice][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  const auto recs = adviseOn(fx, analysis::CriticalPathPriority());
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK(rec.target == "cluster/default");
  CHECK(rec.instances == std::vector<std::string>{"run/etl/train/r1"});
  CHECK(rec.evidence["pending_critical_pods"] == nlohmann::json::array({"etl/r1-b", "etl/r1-d"}));
  const YAML::Node pc = YAML::Load(rec.patch_yaml.substr(0, rec.patch_yaml.find("---", 4)));
  CHECK(pc["kind"].as<std::string>() == "PriorityClass");
  CHECK(pc["metadata"]["name"].as<std::string>() == "dag-critical-path");
  CHECK(pc["value"].as<int>() == 100000);
  CHECK(testing::addedValue(rec.patch_yaml, "/spec/priorityClassName").as<std::string>() ==
        "dag-critical-path");
  // Nothing runs on w1 to preempt: the class orders the queue and evicts nothing.
  CHECK(pc["preemptionPolicy"].as<std::string>() == "Never");
  CHECK(rec.evidence["preemption_policy"] == "Never");
  CHECK(rec.evidence["preemptible"]["pods"] == 0);
  CHECK(rec.action.find("preemptionPolicy: Never") != std::string::npos);
}

TEST_CASE("critical-path advice never preempts GPU or online pods, and says what it spared",
          "[advice][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  fx.pods.push_back(testing::makePod("web", "api-1", "w1", 2, 4, 0, [](model::Pod& p) {
    testing::ownedBy("ReplicaSet", "api-7d9")(p);
    p.started = 0;
  }));
  const auto recs = adviseOn(fx, analysis::CriticalPathPriority());
  REQUIRE(recs.size() == 1);
  const YAML::Node pc = YAML::Load(recs[0].patch_yaml.substr(0, recs[0].patch_yaml.find("---", 4)));
  CHECK(pc["preemptionPolicy"].as<std::string>() == "Never");
  CHECK(recs[0].evidence["preemptible"]["online_pods"] == 1);
  CHECK(recs[0].action.find("1 pod(s) of online services") != std::string::npos);
}

TEST_CASE("critical-path advice preempts when only young batch pods without GPUs are in the way",
          "[advice][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();  // b and d have waited 10,000 s
  fx.pods.push_back(testing::makePod("etl", "young", "w1", 1, 1, 0, [](model::Pod& p) {
    p.labels.set("dag-id", "other");
    p.started = 9'900;
  }));
  const auto recs = adviseOn(fx, analysis::CriticalPathPriority());
  REQUIRE(recs.size() == 1);
  const YAML::Node pc = YAML::Load(recs[0].patch_yaml.substr(0, recs[0].patch_yaml.find("---", 4)));
  CHECK(pc["preemptionPolicy"].as<std::string>() == "PreemptLowerPriority");
  CHECK(recs[0].evidence["preemption_policy"] == "PreemptLowerPriority");
}

TEST_CASE("critical-path advice preempts only what the PriorityClass values put below it",
          "[advice][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();  // b and d have waited 10,000 s
  // A trainer of its own class, running 11,000 s (longer than the wait), beside a young batch
  // pod without a class.
  fx.pods.push_back(testing::makePod("ml", "trainer", "w1", 1, 1, 0, [](model::Pod& p) {
    p.labels.set("dag-id", "training");
    p.priority_class = "gpu-training";
    p.started = -1'000;
  }));
  fx.pods.push_back(testing::makePod("etl", "young", "w1", 1, 1, 0, [](model::Pod& p) {
    p.labels.set("dag-id", "other");
    p.started = 9'900;
  }));
  const auto policyOf = [](const advice::Recommendation& rec) {
    return YAML::Load(rec.patch_yaml.substr(0, rec.patch_yaml.find("---", 4)))["preemptionPolicy"]
        .as<std::string>();
  };
  SECTION("values listed: the trainer's class is above 100000, only the young pod is exposed") {
    fx.specs.priority_classes = std::vector<model::PriorityClass>{
        {"gpu-training", 1'000'000, "PreemptLowerPriority", false}};
    const auto recs = adviseOn(fx, analysis::CriticalPathPriority());
    REQUIRE(recs.size() == 1);
    CHECK(policyOf(recs[0]) == "PreemptLowerPriority");
    CHECK(recs[0].evidence["preemption_policy"] == "PreemptLowerPriority");
    CHECK(recs[0].evidence["preemptible"]["protected_pods"] == 1);
    CHECK(recs[0].evidence["preemptible"]["pods"] == 1);
    CHECK(recs[0].action.find("1 more at or above 100000 that it cannot preempt") !=
          std::string::npos);
    CHECK(recs[0].action.find("no class at 0: 1 pod(s)") != std::string::npos);
  }
  SECTION("values listed: the class is below 100000, so the trainer could be preempted") {
    fx.specs.priority_classes =
        std::vector<model::PriorityClass>{{"gpu-training", 1000, "PreemptLowerPriority", false}};
    const auto recs = adviseOn(fx, analysis::CriticalPathPriority());
    REQUIRE(recs.size() == 1);
    CHECK(policyOf(recs[0]) == "Never");  // it has run longer than the critical tasks waited
    CHECK(recs[0].action.find("gpu-training at 1000: 1 pod(s)") != std::string::npos);
  }
  SECTION("values not known: the trainer may be below, so nothing is preempted") {
    const auto recs = adviseOn(fx, analysis::CriticalPathPriority());
    REQUIRE(recs.size() == 1);
    CHECK(policyOf(recs[0]) == "Never");
    CHECK(recs[0].evidence["preemptible"]["values_known"] == false);
    CHECK(recs[0].action.find("value was not checked") != std::string::npos);
  }
}

TEST_CASE("over-request advice patches the ReplicaSet's Deployment with the right-sized requests",
          "[advice][over-request]") {
  testing::RunFixture fx = testing::overRequestScenario();
  // A pending pod short of CPU on n1 only (1 core free): the 3,400m freed is what it lacks.
  fx.pods.push_back(testing::makePod("batch", "waiting", "", 3, 1));
  const auto recs = adviseOn(fx, analysis::OverRequest());
  REQUIRE(recs.size() == 1);
  const YAML::Node doc = YAML::Load(recs[0].patch_yaml);
  CHECK(doc["kind"].as<std::string>() == "Deployment");
  CHECK(doc["metadata"]["name"].as<std::string>() == "api");
  CHECK(doc["metadata"]["namespace"].as<std::string>() == "web");
  // The pod's real containers by name, the recommended 600m split as they request now (3:1).
  const YAML::Node containers = doc["spec"]["template"]["spec"]["containers"];
  REQUIRE(containers.size() == 2);
  CHECK(containers[0]["name"].as<std::string>() == "app");
  CHECK(containers[1]["name"].as<std::string>() == "proxy");
  CHECK(containers[0]["resources"]["requests"]["cpu"].as<std::string>() == "450m");
  CHECK(containers[1]["resources"]["requests"]["cpu"].as<std::string>() == "150m");
  CHECK(containers[0]["resources"]["requests"]["memory"].as<std::string>() == "1844Mi");
  CHECK(containers[1]["resources"]["requests"]["memory"].as<std::string>() == "615Mi");
  CHECK(recs[0].impact_score == Approx(3.4));
  CHECK(recs[0].impact.find("3400m CPU and 0 MiB freed where pending pods lack it") == 0);
}

TEST_CASE("over-request advice says it frees nothing needed when no pending pod lacks it",
          "[advice][over-request]") {
  testing::RunFixture fx = testing::overRequestScenario();  // nothing pends
  const auto recs = adviseOn(fx, analysis::OverRequest());
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].impact_score == 0);
  CHECK(recs[0].impact.find("frees nothing pending pods need now") == 0);
  CHECK(recs[0].action.find("hygiene, not a fix") != std::string::npos);
}

TEST_CASE("pool-mismatch advice labels the inferred pool and pins the workload to it",
          "[advice][pool-mismatch]") {
  testing::RunFixture fx = testing::poolMismatchScenario();
  const auto recs = adviseOn(fx, analysis::PoolMismatch());
  REQUIRE(recs.size() == 1);
  const std::string& patch = recs[0].patch_yaml;
  CHECK(patch.find("kubectl label node m1 node-type=memory-optimized") != std::string::npos);
  CHECK(patch.find("node-type: memory-optimized") != std::string::npos);
  // A nodeSelector key added to the Deployment's pod spec: ANDed, the other keys kept.
  CHECK(
      testing::addedValue(patch, "/spec/template/spec/nodeSelector/node-type").as<std::string>() ==
      "memory-optimized");
  CHECK(patch.find("kubectl patch deployment cache -n web --type=json") != std::string::npos);
}
