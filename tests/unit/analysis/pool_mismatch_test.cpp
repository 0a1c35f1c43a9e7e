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
  CHECK(f.evidence["pod_role"] == "memory-optimized");
  CHECK(f.evidence["pods"][0]["pod"] == "cache-1");
  CHECK(f.evidence["pods"][0]["node"] == "c1");
  CHECK(f.evidence["pods"][0]["node_pool"] == "compute-optimized");
  const auto& pool = f.evidence["suggested_pool"];
  CHECK(pool["name"] == "memory-optimized");
  CHECK(pool["labelled"] == false);
  CHECK(pool["nodes"] == nlohmann::json::array({"m1"}));
}

TEST_CASE("labelled pools are named by their label", "[detector][pool-mismatch]") {
  testing::RunFixture fx = testing::poolMismatchScenario();
  fx.nodes[0].labels.set("node-type", "cpu");
  fx.nodes[1].labels.set("node-type", "cpu");
  fx.nodes[2].labels.set("node-type", "highmem");
  const auto findings = detectPoolMismatch(fx);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].evidence["pods"][0]["node_pool"] == "cpu");
  CHECK(findings[0].evidence["suggested_pool"]["name"] == "highmem");
  CHECK(findings[0].evidence["suggested_pool"]["labelled"] == true);
}

TEST_CASE("pool-mismatch thresholds hold at their edges", "[detector][pool-mismatch]") {
  testing::RunFixture fx = testing::poolMismatchScenario();  // cache: 12 GiB/core, 24/32 memory
  config::Config config;
  auto& params = config.detectors.pool_mismatch;
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
