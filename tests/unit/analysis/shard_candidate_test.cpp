#include "analysis/detectors/shard_candidate.h"

#include <catch2/catch.hpp>

#include "scenarios.h"

using namespace dagadvisor;

namespace {

std::vector<analysis::Finding> detectShardCandidate(testing::RunFixture& fx,
                                                    const config::Config& config = {}) {
  return fx.detect(analysis::ShardCandidate(), config);
}

}  // namespace

TEST_CASE("a task dominating every run's critical path is a shard candidate",
          "[detector][shard-candidate]") {
  testing::RunFixture fx = testing::shardScenario();
  const auto findings = detectShardCandidate(fx);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "shard-candidate");
  CHECK(f.target == "dag/etl/daily");
  const auto& e = f.evidenceAs<analysis::ShardCandidateEvidence>();
  CHECK(e.namespace_ == "etl");
  CHECK(e.dag == "daily");
  CHECK(e.task == "big");
  CHECK(e.runs == 3);
  CHECK(e.median_critical_share == Approx(1000.0 / 1200));
  CHECK(e.idle_nodes == 3);
  CHECK(e.chunks == 4);
  // 1000 s in 4 chunks saves 750 s of the 1200 s makespan.
  CHECK(e.expected_saving_seconds == Approx(750));
  CHECK(e.expectedMakespanSeconds() == Approx(450));
  CHECK(f.impact == Approx(750));
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["namespace"] == "etl");
  CHECK(json["dag"] == "daily");
  CHECK_FALSE(json.contains("run"));
  CHECK(json["task"] == "big");
  CHECK(json["chunks"] == 4);
  CHECK(json["median_makespan_seconds"].get<double>() == Approx(1200));
  CHECK(json["expected_makespan_seconds"].get<double>() == Approx(450));
}

TEST_CASE("shard-candidate thresholds hold at their edges", "[detector][shard-candidate]") {
  testing::RunFixture fx = testing::shardScenario();
  config::Config config;
  auto& params = config.detectors.get<analysis::ShardCandidateSettings>();
  params.min_critical_share = 0.83;
  CHECK(detectShardCandidate(fx, config).size() == 1);
  params.min_critical_share = 0.84;
  CHECK(detectShardCandidate(fx, config).empty());
  params = {};
  params.min_idle_nodes = 3;
  CHECK(detectShardCandidate(fx, config).size() == 1);
  params.min_idle_nodes = 4;
  CHECK(detectShardCandidate(fx, config).empty());
  testing::RunFixture two_runs = testing::shardScenario(2);
  CHECK(detectShardCandidate(two_runs).empty());
}

TEST_CASE("shard-candidate stays silent on a healthy cluster", "[detector][shard-candidate]") {
  testing::RunFixture fx = testing::healthyScenario();
  CHECK(detectShardCandidate(fx).empty());
}
