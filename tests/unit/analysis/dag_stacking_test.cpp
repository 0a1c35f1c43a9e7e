#include "analysis/detectors/dag_stacking.h"

#include <catch2/catch.hpp>

#include "run_fixture.h"

using namespace dagadvisor;
using testing::makeNode;
using testing::makePod;
using testing::RunFixture;
using testing::TaskSpec;

namespace {

model::Node poolNode(const std::string& name, const std::string& pool,
                     const std::function<void(model::Node&)>& tweak = {}) {
  return makeNode(name, 16, 64, 0, [&](model::Node& n) {
    if (!pool.empty()) {
      n.labels.set("node-type", pool);
    }
    if (tweak) {
      tweak(n);
    }
  });
}

// `count` tasks of `cores` each of run etl/daily/r1, all running on w1 at the analysis time
// (finish 0 <= start: not finished). w2 is an empty node of the same pool.
RunFixture stacked(std::size_t count, double cores) {
  RunFixture fx;
  fx.nodes = {poolNode("w1", "compute"), poolNode("w2", "compute")};
  std::vector<TaskSpec> tasks;
  for (std::size_t i = 0; i < count; ++i) {
    tasks.push_back({"side-" + std::to_string(i), "w1", 100, 0, cores});
  }
  fx.addRun("etl", "daily", "r1", tasks, {});
  return fx;
}

std::vector<analysis::Finding> detectDagStacking(RunFixture& fx,
                                                 const config::Config& config = {}) {
  return fx.detect(analysis::DagStacking(), config);
}

}  // namespace

TEST_CASE("tasks of one run piled on a busy node beside an idle peer are reported",
          "[detector][dag-stacking]") {
  RunFixture fx = stacked(5, 3);  // 15 of 16 cores on w1
  const auto findings = detectDagStacking(fx);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "dag-stacking");
  CHECK(f.target == "run/etl/daily/r1");
  CHECK(f.severity == analysis::Severity::kWarning);
  CHECK(f.impact == 5);
  const auto& e = f.evidenceAs<analysis::DagStackingEvidence>();
  CHECK(e.scope.dag == "daily");
  CHECK(e.scope.run == "r1");
  CHECK(e.stacked_tasks == 5);
  REQUIRE(e.stacked_nodes.size() == 1);
  const analysis::StackedNode& s = e.stacked_nodes[0];
  CHECK(s.node == "w1");
  CHECK(s.pool == "compute");
  CHECK(s.tasks() == 5);
  CHECK(s.run_cpu_millis == 15'000);
  CHECK(s.node_cpu_requested_share == Approx(15.0 / 16));
  CHECK(s.idle_peer_count == 1);
  REQUIRE(s.idle_peers.size() == 1);
  CHECK(s.idle_peers[0].node == "w2");
  CHECK(s.idle_peers[0].free_cpu_share == Approx(1.0));
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["stacked_tasks"] == 5);
  CHECK(json["stacked_nodes"][0]["pool"] == "compute");
  CHECK(json["stacked_nodes"][0]["tasks"] == 5);
  CHECK(json["stacked_nodes"][0]["task_ids"].size() == 5);
  CHECK(json["stacked_nodes"][0]["idle_peer_count"] == 1);
  CHECK(json["stacked_nodes"][0]["idle_peers"][0]["node"] == "w2");
}

TEST_CASE("min_tasks_per_node holds at its edge", "[detector][dag-stacking]") {
  RunFixture fx = stacked(4, 4);  // 16 of 16 cores
  config::Config config;
  REQUIRE(config.detectors.get<analysis::DagStackingSettings>().min_tasks_per_node == 4);
  CHECK(detectDagStacking(fx, config).size() == 1);
  config.detectors.get<analysis::DagStackingSettings>().min_tasks_per_node = 5;
  CHECK(detectDagStacking(fx, config).empty());
}

TEST_CASE("min_node_cpu_share holds at its edge", "[detector][dag-stacking]") {
  RunFixture fx = stacked(4, 3.2);  // 12.8 of 16 cores = 0.8
  config::Config config;
  REQUIRE(config.detectors.get<analysis::DagStackingSettings>().min_node_cpu_share == 0.8);
  CHECK(detectDagStacking(fx, config).size() == 1);
  config.detectors.get<analysis::DagStackingSettings>().min_node_cpu_share = 0.81;
  CHECK(detectDagStacking(fx, config).empty());
}

TEST_CASE("a peer counts as idle only with enough free CPU, edge included",
          "[detector][dag-stacking]") {
  RunFixture fx = stacked(5, 3);
  fx.pods.push_back(makePod("web", "api", "w2", 8, 1));  // w2: 8 of 16 free = 0.5
  config::Config config;
  REQUIRE(config.detectors.get<analysis::DagStackingSettings>().min_peer_free_cpu_share == 0.5);
  CHECK(detectDagStacking(fx, config).size() == 1);
  config.detectors.get<analysis::DagStackingSettings>().min_peer_free_cpu_share = 0.51;
  CHECK(detectDagStacking(fx, config).empty());
}

TEST_CASE("no eligible idle peer, no finding", "[detector][dag-stacking]") {
  RunFixture fx = stacked(5, 3);
  SECTION("the only free node is in another pool") {
    fx.nodes[1] = poolNode("w2", "memory");
  }
  SECTION("the free node is cordoned") {
    fx.nodes[1] = poolNode("w2", "compute", [](model::Node& n) { n.unschedulable = true; });
  }
  SECTION("the free node carries a taint the stacked node does not") {
    fx.nodes[1] = poolNode("w2", "compute", [](model::Node& n) {
      n.taints.push_back({"dedicated", "ml", "NoSchedule"});
    });
  }
  SECTION("a labelled pool and an unlabelled node are different pools") {
    fx.nodes[1] = poolNode("w2", "");
  }
  CHECK(detectDagStacking(fx).empty());
}

TEST_CASE("a taint both nodes carry and a PreferNoSchedule taint do not exclude a peer",
          "[detector][dag-stacking]") {
  RunFixture fx = stacked(5, 3);
  const model::Taint shared{"dedicated", "etl", "NoSchedule"};
  fx.nodes[0].taints.push_back(shared);
  fx.nodes[1].taints.push_back(shared);
  fx.nodes[1].taints.push_back({"spot", "true", "PreferNoSchedule"});
  CHECK(detectDagStacking(fx).size() == 1);
}

TEST_CASE("finished, unscheduled and spread tasks do not stack", "[detector][dag-stacking]") {
  SECTION("the tasks finished before the analysis time") {
    RunFixture fx;
    fx.nodes = {poolNode("w1", "compute"), poolNode("w2", "compute")};
    std::vector<TaskSpec> tasks;
    for (int i = 0; i < 5; ++i) {
      tasks.push_back({"t" + std::to_string(i), "w1", 100, 200, 3});
    }
    fx.addRun("etl", "daily", "r1", tasks, {});
    fx.pods.push_back(makePod("web", "api", "w1", 15, 1));  // w1 still busy
    CHECK(detectDagStacking(fx).empty());
  }
  SECTION("the tasks are pending") {
    RunFixture fx;
    fx.nodes = {poolNode("w1", "compute"), poolNode("w2", "compute")};
    fx.addRun("etl", "daily", "r1", {{"a", ""}, {"b", ""}, {"c", ""}, {"d", ""}}, {});
    CHECK(detectDagStacking(fx).empty());
  }
  SECTION("two runs of one DAG with three tasks each on the same node") {
    RunFixture fx;
    fx.nodes = {poolNode("w1", "compute"), poolNode("w2", "compute")};
    for (const char* run : {"r1", "r2"}) {
      fx.addRun("etl", "daily", run,
                {{"a", "w1", 1, 0, 2.5}, {"b", "w1", 1, 0, 2.5}, {"c", "w1", 1, 0, 2.5}}, {});
    }
    CHECK(detectDagStacking(fx).empty());  // per run: 3 < 4, though the node holds 6
  }
  SECTION("no runs") {
    RunFixture fx;
    fx.nodes = {poolNode("w1", "compute")};
    CHECK(detectDagStacking(fx).empty());
  }
}

TEST_CASE("dag-stacking without any rebuilt run gives no advice, and says why",
          "[detector][dag-stacking]") {
  RunFixture fx = stacked(4, 3.5);
  fx.build();
  analysis::FindingSink with_runs;
  analysis::DagStacking().analyze({*fx.cluster, fx.graphs, {}}, with_runs);
  CHECK(with_runs.noAdviceReason().empty());
  analysis::FindingSink sink;
  const std::vector<graph::RunGraph> none;
  analysis::DagStacking().analyze({*fx.cluster, none, {}}, sink);
  CHECK(sink.findings().empty());
  CHECK(sink.noAdviceReason() == "no workflow runs were rebuilt");
}
