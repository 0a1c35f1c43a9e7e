#include "analysis/detectors/over_request.h"

#include <catch2/catch.hpp>

#include "scenarios.h"

using namespace dagadvisor;

namespace {

constexpr std::int64_t kMi = 1024 * 1024;

std::vector<analysis::Finding> detectOverRequest(testing::RunFixture& fx,
                                                 const config::Config& config = {}) {
  return fx.detect(analysis::OverRequest(), config);
}

}  // namespace

TEST_CASE("an over-requested pod on a full node gets right-sized requests",
          "[detector][over-request]") {
  testing::RunFixture fx = testing::overRequestScenario();
  const auto findings = detectOverRequest(fx);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "over-request");
  CHECK(f.target == "workload/web/ReplicaSet/api-7d9");
  // 0.5 core + 20 % = 600m; 2 GiB + 20 % = 2457.6 MiB, rounded up to 2458 MiB.
  const auto& e = f.evidenceAs<analysis::OverRequestEvidence>();
  CHECK(e.recommended.cpu_millis == 600);
  CHECK(e.recommended.memory_bytes == 2458 * kMi);
  CHECK(e.reclaimable.cpu_millis == 3'400);
  CHECK(e.reclaimable.memory_bytes == 8 * 1024 * kMi - 2458 * kMi);
  REQUIRE(e.pods.size() == 1);
  CHECK(e.pods[0].pod == "api-1");
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["owner_kind"] == "ReplicaSet");
  CHECK(json["requested_cpu_millis"] == 4'000);
  CHECK(json["recommended_cpu_millis"] == 600);
  CHECK(json["recommended_memory_bytes"] == 2458 * kMi);
  CHECK(json["reclaimable_cpu_millis"] == 3'400);
  CHECK(json["reclaimable_memory_bytes"] == 8 * 1024 * kMi - 2458 * kMi);
  CHECK(json["pod_count"] == 1);
  CHECK(json["headroom"].get<double>() == Approx(0.2));
  CHECK(json["pods"][0]["pod"] == "api-1");
  CHECK(json["pods"][0]["cpu_used_millis"].get<double>() == Approx(500));
  CHECK(f.impact == Approx(3.4));
}

TEST_CASE("over-request needs enough samples", "[detector][over-request]") {
  testing::RunFixture enough = testing::overRequestScenario(30);
  CHECK(detectOverRequest(enough).size() == 1);
  testing::RunFixture too_few = testing::overRequestScenario(29);
  CHECK(detectOverRequest(too_few).empty());
  testing::RunFixture none = testing::overRequestScenario();
  none.pods[0].usage.reset();
  CHECK(detectOverRequest(none).empty());
}

TEST_CASE("over-request thresholds hold at their edges", "[detector][over-request]") {
  testing::RunFixture fx = testing::overRequestScenario();  // node 7/8 CPU requested
  config::Config config;
  auto& params = config.detectors.get<analysis::OverRequestSettings>();
  params.min_node_requested_share = 0.875;
  CHECK(detectOverRequest(fx, config).size() == 1);
  params.min_node_requested_share = 0.876;
  CHECK(detectOverRequest(fx, config).empty());
  params = {};
  params.max_usage_share = 0.12;  // CPU use is 0.125 of the request, memory 0.25
  CHECK(detectOverRequest(fx, config).empty());
  params.max_usage_share = 0.125;
  const auto cpu_only = detectOverRequest(fx, config);
  REQUIRE(cpu_only.size() == 1);
  CHECK(cpu_only[0].evidenceAs<analysis::OverRequestEvidence>().recommended.memory_bytes ==
        8 * 1024 * kMi);
}

TEST_CASE("over-request stays silent on a healthy cluster", "[detector][over-request]") {
  testing::RunFixture fx = testing::healthyScenario();
  CHECK(detectOverRequest(fx).empty());
}

TEST_CASE("over-request gives one finding per owner, in owner order, pods summed",
          "[detector][over-request]") {
  testing::RunFixture fx = testing::overRequestScenario();
  auto usage = [](model::Pod& p) {
    p.usage = model::ObservedUsage{0.25, 1.0 * testing::kGiB, 100, std::nullopt};
  };
  // A second api pod on a second full node, and a bare pod (no owner) in another namespace.
  fx.nodes.push_back(testing::makeNode("n2", 8, 32));
  fx.pods.push_back(testing::makePod("web", "api-2", "n2", 4, 8, 0, [&](model::Pod& p) {
    testing::ownedBy("ReplicaSet", "api-7d9")(p);
    usage(p);
  }));
  fx.pods.push_back(testing::makePod("batch", "solo", "n2", 3, 8, 0, usage));
  const auto findings = detectOverRequest(fx);
  REQUIRE(findings.size() == 2);
  CHECK(findings[0].target == "workload/batch/Pod/solo");
  CHECK(findings[1].target == "workload/web/ReplicaSet/api-7d9");
  const auto& api = findings[1].evidenceAs<analysis::OverRequestEvidence>();
  CHECK(api.pod_count == 2);
  CHECK(api.pods.size() == 2);
  // api-1 gives back 3,400m (4,000 − 600), api-2 3,700m (4,000 − 300).
  CHECK(api.reclaimable.cpu_millis == 7'100);
}
