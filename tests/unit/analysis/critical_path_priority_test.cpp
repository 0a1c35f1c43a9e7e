#include "analysis/detectors/critical_path_priority.h"

#include <catch2/catch.hpp>

#include "scenarios.h"

using namespace dagadvisor;

namespace {

std::vector<analysis::Finding> detect(testing::RunFixture& fx, const config::Config& config = {}) {
  return fx.detect(analysis::CriticalPathPriority(), config);
}

}  // namespace

TEST_CASE("pending critical-path tasks at the priority of slack-rich work are reported",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  const auto findings = detect(fx);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "critical-path-priority");
  CHECK(f.target == "run/etl/train/r1");
  CHECK(f.severity == analysis::Severity::kWarning);
  // Remaining work b (1000 s) → d (50 s) is critical; c (10 s) has 1050 − 60 = 990 s of slack.
  const auto& tasks = f.evidence["critical_tasks"];
  REQUIRE(tasks.size() == 2);
  CHECK(tasks[0]["task"] == "b");
  CHECK(tasks[1]["task"] == "d");
  CHECK(tasks[0]["slack_seconds"].get<double>() == Approx(0));
  CHECK(tasks[0]["waiting_seconds"].get<double>() == Approx(10'000));
  CHECK(f.evidence["critical_waiting_seconds"].get<double>() == Approx(20'000));
  CHECK(f.impact == Approx(20'000));
  CHECK(f.evidence["slack_rich_pending"] == 1);
  REQUIRE(f.evidence["slack_rich_examples"].size() == 1);
  CHECK(f.evidence["slack_rich_examples"][0]["task"] == "c");
  CHECK(f.evidence["slack_rich_examples"][0]["slack_seconds"].get<double>() == Approx(990));
}

TEST_CASE("min_rich_slack holds at its edge", "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  config::Config config;
  config.detectors.critical_path_priority.min_rich_slack = config::Seconds(990);
  CHECK(detect(fx, config).size() == 1);
  config.detectors.critical_path_priority.min_rich_slack = config::Seconds(991);
  CHECK(detect(fx, config).empty());
}

TEST_CASE("critical tasks already in the critical PriorityClass are not reported",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  for (model::Pod& pod : fx.pods) {
    if (pod.name == "r1-b" || pod.name == "r1-d") {
      pod.priority_class = "dag-critical-path";
    }
  }
  CHECK(detect(fx).empty());
}

TEST_CASE("without an earlier run to estimate durations there is no finding",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  fx.runs.pop_front();
  fx.pods.erase(fx.pods.begin(), fx.pods.begin() + 4);
  for (std::size_t i = 0; i < fx.runs.front().tasks.size(); ++i) {
    fx.runs.front().tasks[i].pod = static_cast<model::PodId>(i);
  }
  CHECK(detect(fx).empty());
}

TEST_CASE("critical-path-priority stays silent on a healthy cluster",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::healthyScenario();
  CHECK(detect(fx).empty());
}
