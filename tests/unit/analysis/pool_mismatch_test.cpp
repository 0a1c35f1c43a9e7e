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
