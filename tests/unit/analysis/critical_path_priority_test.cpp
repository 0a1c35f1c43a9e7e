#include "analysis/detectors/critical_path_priority.h"

#include <catch2/catch.hpp>

#include "scenarios.h"

using namespace dagadvisor;

namespace {

std::vector<analysis::Finding> detectCriticalPathPriority(testing::RunFixture& fx,
                                                          const config::Config& config = {}) {
  return fx.detect(analysis::CriticalPathPriority(), config);
}

}  // namespace

TEST_CASE("pending critical-path tasks at the priority of slack-rich work are reported",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  const auto findings = detectCriticalPathPriority(fx);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "critical-path-priority");
  CHECK(f.target == "run/etl/train/r1");
  CHECK(f.severity == analysis::Severity::kWarning);
  // Remaining work b (1000 s) → d (50 s) is critical; c (10 s) has 1050 − 60 = 990 s of slack.
  const auto& e = f.evidenceAs<analysis::CriticalPathPriorityEvidence>();
  CHECK(e.scope.namespace_ == "etl");
  CHECK(e.scope.dag == "train");
  CHECK(e.scope.run == "r1");
  const auto& tasks = e.critical_tasks;
  REQUIRE(tasks.size() == 2);
  CHECK(tasks[0].task == "b");
  CHECK(tasks[1].task == "d");
  CHECK(tasks[0].run == "etl/train/r1");
  CHECK(tasks[0].slack_seconds == Approx(0));
  REQUIRE(tasks[0].waiting_seconds);
  CHECK(*tasks[0].waiting_seconds == Approx(10'000));
  CHECK(e.critical_waiting_seconds == Approx(20'000));
  CHECK(f.impact == Approx(20'000));
  CHECK(e.slack_rich_pending == 1);
  REQUIRE(e.slack_rich_examples.size() == 1);
  CHECK(e.slack_rich_examples[0].task == "c");
  CHECK(e.slack_rich_examples[0].slack_seconds == Approx(990));
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["run"] == "r1");
  CHECK(json["critical_tasks"][0]["task"] == "b");
  CHECK(json["critical_tasks"][0]["waiting_seconds"].get<double>() == Approx(10'000));
  CHECK(json["critical_waiting_seconds"].get<double>() == Approx(20'000));
  CHECK(json["slack_rich_pending"] == 1);
  CHECK(json["slack_rich_examples"][0]["slack_seconds"].get<double>() == Approx(990));
}

TEST_CASE("min_rich_slack holds at its edge", "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  config::Config config;
  config.detectors.get<analysis::CriticalPathPrioritySettings>().min_rich_slack =
      config::Seconds(990);
  CHECK(detectCriticalPathPriority(fx, config).size() == 1);
  config.detectors.get<analysis::CriticalPathPrioritySettings>().min_rich_slack =
      config::Seconds(991);
  CHECK(detectCriticalPathPriority(fx, config).empty());
}

TEST_CASE("critical tasks already in the critical PriorityClass are not reported",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  for (model::Pod& pod : fx.pods) {
    if (pod.name == "r1-b" || pod.name == "r1-d") {
      pod.priority_class = "dag-critical-path";
    }
  }
  CHECK(detectCriticalPathPriority(fx).empty());
}

TEST_CASE("without an earlier run to estimate durations there is no finding",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  fx.runs.pop_front();
  fx.pods.erase(fx.pods.begin(), fx.pods.begin() + 4);
  for (std::size_t i = 0; i < fx.runs.front().tasks.size(); ++i) {
    fx.runs.front().tasks[i].pod = static_cast<model::PodId>(i);
  }
  CHECK(detectCriticalPathPriority(fx).empty());
}

TEST_CASE("critical-path-priority stays silent on a healthy cluster",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::healthyScenario();
  CHECK(detectCriticalPathPriority(fx).empty());
}

namespace {

// criticalPathScenario with the pending run r1 moved to another DAG `dag` of namespace `ns`:
// its durations can then only come from the finished train/r0 through the namespace fallback.
testing::RunFixture copiedPipeline(const std::string& ns, const std::string& dag) {
  testing::RunFixture fx = testing::criticalPathScenario();
  fx.runs.back().namespace_ = ns;
  fx.runs.back().dag = dag;
  for (const model::Task& task : fx.runs.back().tasks) {
    fx.pods[task.pod].namespace_ = ns;
  }
  return fx;
}

}  // namespace

TEST_CASE("a copy of a pipeline under another DAG id borrows the durations of its namespace",
          "[detector][critical-path-priority]") {
  testing::RunFixture fx = copiedPipeline("etl", "train_eu");
  const auto findings = detectCriticalPathPriority(fx);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].target == "run/etl/train_eu/r1");
  const auto& e = findings[0].evidenceAs<analysis::CriticalPathPriorityEvidence>();
  REQUIRE(e.critical_tasks.size() == 2);
  CHECK(e.critical_tasks[0].task == "b");
  CHECK(e.critical_tasks[1].task == "d");
  REQUIRE_FALSE(e.slack_rich_examples.empty());
  CHECK(e.slack_rich_examples[0].slack_seconds == Approx(990));
}

TEST_CASE("durations are not borrowed across namespaces", "[detector][critical-path-priority]") {
  testing::RunFixture fx = copiedPipeline("other-team", "train");
  CHECK(detectCriticalPathPriority(fx).empty());
}

TEST_CASE("the DAG's own history wins over the namespace's", "[detector][critical-path-priority]") {
  testing::RunFixture fx = testing::criticalPathScenario();
  // A third DAG of the namespace where c, not b, is the long task: were its 2000 s mixed into
  // train's estimates, c would be critical and b slack-rich.
  fx.addRun(
      "etl", "train_slow_c", "s0",
      {{"a", "w1", 0, 100}, {"b", "w1", 100, 110}, {"c", "w1", 100, 2100}, {"d", "w1", 2100, 2150}},
      {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
  const auto findings = detectCriticalPathPriority(fx);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::CriticalPathPriorityEvidence>();
  REQUIRE_FALSE(e.critical_tasks.empty());
  REQUIRE_FALSE(e.slack_rich_examples.empty());
  CHECK(e.critical_tasks[0].task == "b");
  CHECK(e.slack_rich_examples[0].task == "c");
}

namespace {

analysis::FindingSink analyzeInto(testing::RunFixture& fx) {
  fx.build();
  analysis::FindingSink sink;
  analysis::CriticalPathPriority().analyze({*fx.cluster, fx.graphs, {}}, sink);
  return sink;
}

}  // namespace

TEST_CASE("critical-path-priority says why it gives no advice when durations are unknown",
          "[detector][critical-path-priority]") {
  SECTION("pending tasks but no finished task of the DAG or namespace") {
    testing::RunFixture fx = copiedPipeline("other-team", "train");
    analysis::FindingSink sink = analyzeInto(fx);
    CHECK(sink.findings().empty());
    CHECK(sink.noAdviceReason().find("estimate durations") != std::string::npos);
  }
  SECTION("no run at all") {
    testing::RunFixture fx;
    fx.nodes = {testing::makeNode("w1", 16, 64)};
    CHECK(analyzeInto(fx).noAdviceReason() == "no workflow runs were rebuilt");
  }
  SECTION("an estimated run is judged: a finding, no excuse") {
    testing::RunFixture fx = testing::criticalPathScenario();
    analysis::FindingSink sink = analyzeInto(fx);
    CHECK(sink.findings().size() == 1);
    CHECK(sink.noAdviceReason().empty());
  }
  SECTION("nothing pending is a real zero, not missing data") {
    testing::RunFixture fx = testing::criticalPathScenario();
    fx.runs.pop_back();
    analysis::FindingSink sink = analyzeInto(fx);
    CHECK(sink.findings().empty());
    CHECK(sink.noAdviceReason().empty());
  }
}
