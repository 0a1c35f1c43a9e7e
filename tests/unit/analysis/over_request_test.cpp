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
  // Nothing pends: what it frees is needed by no one now, and the finding says so.
  CHECK(e.pending_pods == 0);
  CHECK(e.needed == dagadvisor::model::ResourceVector{});
  CHECK(json["needed_cpu_millis"] == 0);
  CHECK(json["needed_memory_bytes"] == 0);
  CHECK(f.impact == 0);
  CHECK(f.summary.find("frees nothing pending pods need now") != std::string::npos);
}

TEST_CASE("a usage that differs from a whole figure in its last bit is rounded as the figure",
          "[detector][over-request]") {
  // Prometheus 3 sums with compensation: 1.2000000000000002 cores where Prometheus 2 gives 1.2.
  for (const double cores : {1.2, 1.2000000000000002}) {
    testing::RunFixture fx = testing::overRequestScenario();
    fx.pods[0].usage->cpu_cores = cores;
    const auto findings = detectOverRequest(fx);
    REQUIRE(findings.size() == 1);
    // 1.2 cores + 20 % = 1440m, on a step of 10m.
    CHECK(findings[0].evidenceAs<analysis::OverRequestEvidence>().recommended.cpu_millis == 1440);
  }
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

namespace {

// overRequestScenario (n1: 1 core and 20 GiB free; right-sizing api frees 3,400m and
// 8,192 − 2,458 MiB) with one pending pod of `cores` and `mem_gib` (and `gpus`).
testing::RunFixture withPending(double cores, double mem_gib, std::int64_t gpus = 0) {
  testing::RunFixture fx = testing::overRequestScenario();
  fx.pods.push_back(testing::makePod("batch", "waiting", "", cores, mem_gib, gpus));
  return fx;
}

// A copy: callers pass the detector's findings as a temporary, which ends with the call.
analysis::OverRequestEvidence onlyEvidence(const std::vector<analysis::Finding>& findings) {
  REQUIRE(findings.size() == 1);
  return findings[0].evidenceAs<analysis::OverRequestEvidence>();
}

}  // namespace

TEST_CASE("freed CPU counts where a pending pod lacks CPU and would fit once it is freed",
          "[detector][over-request]") {
  testing::RunFixture fx = withPending(3, 1);  // lacks CPU only (1 core free)
  const auto findings = detectOverRequest(fx);
  const auto& e = onlyEvidence(findings);
  CHECK(e.pending_pods == 1);
  CHECK(e.needed.cpu_millis == 3'400);
  CHECK(e.needed.memory_bytes == 0);  // memory is not what it lacks
  REQUIRE(e.pods.size() == 1);
  CHECK(e.pods[0].needed.cpu_millis == 3'400);
  CHECK(findings[0].impact == Approx(3.4));
  CHECK(findings[0].summary.find("frees nothing") == std::string::npos);
}

TEST_CASE("freed memory counts where memory is what a pending pod lacks",
          "[detector][over-request]") {
  testing::RunFixture fx = withPending(1, 24);  // 20 GiB free, 25.6 GiB once right-sized
  const auto findings = detectOverRequest(fx);
  const auto& e = onlyEvidence(findings);
  CHECK(e.needed.cpu_millis == 0);
  CHECK(e.needed.memory_bytes == 8 * 1024 * kMi - 2458 * kMi);
  CHECK(findings[0].impact == Approx((8 * 1024 - 2458) / 1024.0 / 4));
}

TEST_CASE("freed CPU counts for nothing where memory or GPUs still block the pending pods",
          "[detector][over-request]") {
  // Lacks 2 cores and 10 GiB: the CPU freed would do, but 25.6 GiB is still short of 30.
  testing::RunFixture memory_blocks = withPending(3, 30);
  const auto& e = onlyEvidence(detectOverRequest(memory_blocks));
  CHECK(e.reclaimable.cpu_millis == 3'400);
  CHECK(e.needed == dagadvisor::model::ResourceVector{});
  // A GPU pod cannot land on n1 at all, whatever it frees.
  testing::RunFixture gpu = withPending(3, 1, 1);
  CHECK(onlyEvidence(detectOverRequest(gpu)).needed == dagadvisor::model::ResourceVector{});
  // A pod that fits n1 already is not blocked by resources there.
  testing::RunFixture fits = withPending(0.5, 1);
  CHECK(onlyEvidence(detectOverRequest(fits)).needed == dagadvisor::model::ResourceVector{});
}

TEST_CASE("an unschedulable node frees nothing pending pods can use", "[detector][over-request]") {
  testing::RunFixture fx = withPending(3, 1);
  fx.nodes[0].unschedulable = true;
  CHECK(onlyEvidence(detectOverRequest(fx)).needed == dagadvisor::model::ResourceVector{});
}
