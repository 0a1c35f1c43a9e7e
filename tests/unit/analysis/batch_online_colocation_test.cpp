#include "analysis/detectors/batch_online_colocation.h"

#include <catch2/catch.hpp>

#include "scenarios.h"

using namespace dagadvisor;

namespace {

std::vector<analysis::Finding> detectBatchOnlineColocation(testing::RunFixture& fx,
                                                           const config::Config& config = {}) {
  return fx.detect(analysis::BatchOnlineColocation(), config);
}

}  // namespace

TEST_CASE("workflow tasks beside a service on a busy node are reported",
          "[detector][batch-online-colocation]") {
  testing::RunFixture fx = testing::colocationScenario();
  const auto findings = detectBatchOnlineColocation(fx);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "batch-online-colocation");
  CHECK(f.target == "node/n1");
  const auto& e = f.evidenceAs<analysis::BatchOnlineColocationEvidence>();
  CHECK(e.node == "n1");
  CHECK(e.cpu_requested_share == Approx(14.0 / 16));
  CHECK(e.batch_pods == 1);
  CHECK(e.batch_cpu_millis == 8'000);
  CHECK(e.dags == std::vector<std::string>{"etl/daily"});
  CHECK(e.service_cpu_millis == 6'000);
  REQUIRE(e.services.size() == 1);
  CHECK(e.services[0].name == "web-5d8");
  CHECK(e.services[0].pods == 1);
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["cpu_requested_share"].get<double>() == Approx(14.0 / 16));
  CHECK(json["batch_pods"] == 1);
  CHECK(json["batch_cpu_millis"] == 8'000);
  CHECK(json["dags"] == nlohmann::json::array({"etl/daily"}));
  CHECK(json["service_cpu_millis"] == 6'000);
  CHECK(json["services"][0]["namespace"] == "web");
  CHECK(json["services"][0]["kind"] == "ReplicaSet");
  CHECK(json["services"][0]["name"] == "web-5d8");
  CHECK(json["services"][0]["pods"] == 1);
  CHECK(f.impact == Approx(6));
}

TEST_CASE("batch-online-colocation min_node_cpu_share holds at its edge",
          "[detector][batch-online-colocation]") {
  testing::RunFixture fx = testing::colocationScenario();
  config::Config config;
  config.detectors.get<analysis::BatchOnlineColocationSettings>().min_node_cpu_share = 0.875;
  CHECK(detectBatchOnlineColocation(fx, config).size() == 1);
  config.detectors.get<analysis::BatchOnlineColocationSettings>().min_node_cpu_share = 0.876;
  CHECK(detectBatchOnlineColocation(fx, config).empty());
}

TEST_CASE("a busy node with only batch or only services is not reported",
          "[detector][batch-online-colocation]") {
  testing::RunFixture batch_only = testing::colocationScenario();
  batch_only.pods[1].owner_kind = "Job";
  CHECK(detectBatchOnlineColocation(batch_only).empty());
  testing::RunFixture healthy = testing::healthyScenario();
  CHECK(detectBatchOnlineColocation(healthy).empty());
}
