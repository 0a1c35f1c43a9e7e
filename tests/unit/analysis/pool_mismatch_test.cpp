#include "analysis/detectors/pool_mismatch.h"

#include <catch2/catch.hpp>

#include "scenarios.h"

using namespace dagadvisor;

namespace {

std::vector<analysis::Finding> detectPoolMismatch(testing::RunFixture& fx,
                                                  const config::Config& config = {}) {
  return fx.detect(analysis::PoolMismatch(), config);
}

}  // namespace

TEST_CASE("a memory-heavy pod on a compute node is sent to the inferred memory pool",
          "[detector][pool-mismatch]") {
  testing::RunFixture fx = testing::poolMismatchScenario();
  const auto findings = detectPoolMismatch(fx);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "pool-mismatch");
  CHECK(f.target == "workload/web/ReplicaSet/cache-5f6");
  CHECK(f.impact == 1);
  const auto& e = f.evidenceAs<analysis::PoolMismatchEvidence>();
  CHECK(e.namespace_ == "web");
  CHECK(e.owner_kind == "ReplicaSet");
  CHECK(e.owner_name == "cache-5f6");
  CHECK(e.pod_role == "memory-optimized");
  REQUIRE(e.pods.size() == 1);
  CHECK(e.pods[0].pod == "cache-1");
  CHECK(e.pods[0].node == "c1");
  CHECK(e.pods[0].node_pool == "compute-optimized");
  const analysis::SuggestedPool& pool = e.suggested_pool;
  CHECK(pool.name == "memory-optimized");
  CHECK_FALSE(pool.labelled);
  CHECK(pool.nodes == std::vector<std::string>{"m1"});
  CHECK(pool.node_count == 1);
  // The API renders the same values under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["pod_role"] == "memory-optimized");
  CHECK(json["pool_label"] == "node-type");
  CHECK(json["pods"][0]["pod"] == "cache-1");
  CHECK(json["pods"][0]["node_pool"] == "compute-optimized");
  CHECK(json["pods"][0]["node_pool_role"] == "compute-optimized");
  CHECK(json["suggested_pool"]["name"] == "memory-optimized");
  CHECK(json["suggested_pool"]["labelled"] == false);
  CHECK(json["suggested_pool"]["node_count"] == 1);
  CHECK(json["suggested_pool"]["nodes"] == nlohmann::json::array({"m1"}));
  // m1 is empty (8 cores, 128 GiB free): the cache fits, alone and with every other move.
  CHECK(e.pod_count == 1);
  CHECK(e.room.free == dagadvisor::model::ResourceVector{8000, 128 * testing::kGiB, 0});
  CHECK(e.room.pods_fitting == 1);
  CHECK(e.room.pool_moves == 1);
  CHECK(e.room.pool_moves_fitting == 1);
  CHECK(e.room.takesAll());
  CHECK(json["room"]["pods_fitting"] == 1);
  CHECK(json["room"]["takes_all"] == true);
  CHECK(json["pod_count"] == 1);
}

namespace {

// poolMismatchScenario with `caches` cache pods (2 cores, 24 GiB each) on c1 and c2, and a
// second memory-heavy workload of `reports` pods (1 core, 12 GiB) on c2. m1: 8 cores, 128 GiB.
testing::RunFixture crowdedMove(int caches, int reports) {
  testing::RunFixture fx = testing::poolMismatchScenario();
  for (int i = 1; i < caches; ++i) {
    fx.pods.push_back(testing::makePod("web", "cache-" + std::to_string(i + 1), i % 2 ? "c2" : "c1",
                                       2, 24, 0, testing::ownedBy("ReplicaSet", "cache-5f6")));
  }
  for (int i = 0; i < reports; ++i) {
    fx.pods.push_back(testing::makePod("etl", "report-" + std::to_string(i), "c2", 1, 12, 0,
                                       testing::ownedBy("Job", "report")));
  }
  return fx;
}

const analysis::PoolMismatchEvidence& evidenceOf(const std::vector<analysis::Finding>& findings,
                                                 const std::string& target) {
  for (const auto& f : findings) {
    if (f.target == target) {
      return f.evidenceAs<analysis::PoolMismatchEvidence>();
    }
  }
  FAIL("no finding for " << target);
  return findings.front().evidenceAs<analysis::PoolMismatchEvidence>();
}

}  // namespace

TEST_CASE("the target pool's free room says how many of the moved pods fit",
          "[detector][pool-mismatch]") {
  // 6 caches want 12 cores and 144 GiB; m1 has 8 cores and 128 GiB: room for 4 (memory 5,
  // CPU 4).
  testing::RunFixture fx = crowdedMove(6, 0);
  const auto findings = detectPoolMismatch(fx);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::PoolMismatchEvidence>();
  CHECK(e.pod_count == 6);
  CHECK(e.room.pods_fitting == 4);
  CHECK(e.room.pool_moves == 6);
  CHECK(e.room.pool_moves_fitting == 4);
  CHECK_FALSE(e.room.takesAll());
  CHECK(findings[0].impact == 4);
  CHECK(findings[0].summary.find("which has room for 4 of them now") != std::string::npos);
}

TEST_CASE("moves into one pool share its room", "[detector][pool-mismatch]") {
  // 2 caches (4 cores, 48 GiB) and 4 reports (4 cores, 48 GiB) fit m1 alone each, and together
  // (8 cores, 96 GiB); one report more and the pool no longer takes them all.
  testing::RunFixture fits = crowdedMove(2, 4);
  const auto together = detectPoolMismatch(fits);
  REQUIRE(together.size() == 2);
  CHECK(evidenceOf(together, "workload/etl/Job/report").room.takesAll());
  testing::RunFixture over = crowdedMove(2, 5);
  const auto crowded = detectPoolMismatch(over);
  const auto& reports = evidenceOf(crowded, "workload/etl/Job/report");
  const auto& caches = evidenceOf(crowded, "workload/web/ReplicaSet/cache-5f6");
  CHECK(reports.room.pods_fitting == 5);  // alone they fit
  CHECK(caches.room.pods_fitting == 2);
  CHECK(reports.room.pool_moves == 7);
  CHECK(reports.room.pool_moves_fitting == 6);  // together one finds no room
  CHECK_FALSE(caches.room.takesAll());
}

TEST_CASE("an unschedulable node of the target pool has no room", "[detector][pool-mismatch]") {
  testing::RunFixture fx = testing::poolMismatchScenario();
  fx.nodes[2].unschedulable = true;
  const auto findings = detectPoolMismatch(fx);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::PoolMismatchEvidence>();
  CHECK(e.room.pods_fitting == 0);
  CHECK(e.room.free == dagadvisor::model::ResourceVector{});
}

TEST_CASE("labelled pools are named by their label", "[detector][pool-mismatch]") {
  testing::RunFixture fx = testing::poolMismatchScenario();
  fx.nodes[0].labels.set("node-type", "cpu");
  fx.nodes[1].labels.set("node-type", "cpu");
  fx.nodes[2].labels.set("node-type", "highmem");
  const auto findings = detectPoolMismatch(fx);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::PoolMismatchEvidence>();
  CHECK(e.pods[0].node_pool == "cpu");
  CHECK(e.suggested_pool.name == "highmem");
  CHECK(e.suggested_pool.labelled);
}

TEST_CASE("pool-mismatch thresholds hold at their edges", "[detector][pool-mismatch]") {
  testing::RunFixture fx = testing::poolMismatchScenario();  // cache: 12 GiB/core, 24/32 memory
  config::Config config;
  auto& params = config.detectors.get<analysis::PoolMismatchSettings>();
  params.memory_min_gib_per_core = 12;
  CHECK(detectPoolMismatch(fx, config).size() == 1);
  params.memory_min_gib_per_core = 12.5;  // the cache becomes general purpose
  CHECK(detectPoolMismatch(fx, config).empty());
  params = {};
  params.min_pod_share = 0.75;
  CHECK(detectPoolMismatch(fx, config).size() == 1);
  params.min_pod_share = 0.76;
  CHECK(detectPoolMismatch(fx, config).empty());
}

TEST_CASE("DaemonSet pods and clusters without a fitting pool are left out",
          "[detector][pool-mismatch]") {
  testing::RunFixture fx = testing::poolMismatchScenario();
  fx.pods[0].owner_kind = "DaemonSet";
  CHECK(detectPoolMismatch(fx).empty());
  testing::RunFixture no_memory_pool = testing::poolMismatchScenario();
  no_memory_pool.nodes.pop_back();
  CHECK(detectPoolMismatch(no_memory_pool).empty());
}

TEST_CASE("pool-mismatch stays silent on a healthy cluster", "[detector][pool-mismatch]") {
  testing::RunFixture fx = testing::healthyScenario();
  CHECK(detectPoolMismatch(fx).empty());
}
