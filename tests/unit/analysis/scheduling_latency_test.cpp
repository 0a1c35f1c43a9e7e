#include "analysis/detectors/scheduling_latency.h"

#include <catch2/catch.hpp>

#include "run_fixture.h"
#include "scenarios.h"

using namespace dagadvisor;

namespace {

std::vector<analysis::Finding> detectSchedulingLatency(const model::ClusterSnapshot& cluster,
                                                       const config::Config& config = {}) {
  return testing::findingsOf(analysis::SchedulingLatency(), cluster, {}, config);
}

model::SchedulerStats slowScheduler() {
  model::SchedulerStats stats;
  stats.present = true;
  stats.latency_metric = "scheduler_pod_scheduling_sli_duration_seconds";
  stats.latency = {{"default-scheduler", 0.5, 8.0, 40.0, 2.0}};
  stats.unschedulable_by_plugin = {{"NodeResourcesFit", 12}, {"TaintToleration", 3}};
  stats.pending_by_queue = {{"unschedulable", 15}, {"active", 1}};
  return stats;
}

// 20 pods scheduled 1 … 20 s after creation.
std::vector<model::Pod> timedPods(int count) {
  std::vector<model::Pod> pods;
  for (int i = 1; i <= count; ++i) {
    pods.push_back(testing::makePod("ns", "p" + std::to_string(i), "n1", 1, 1, 0,
                                    [&](model::Pod& p) { p.scheduled = 1000.0 + i; }));
  }
  return pods;
}

}  // namespace

TEST_CASE("latency over the SLO is reported by profile with the rejecting plugin",
          "[detector][scheduling-latency]") {
  model::ClusterSnapshot cluster(5000, {testing::makeNode("n1", 16, 64)}, {});
  cluster.setScheduler(slowScheduler());
  const auto findings = detectSchedulingLatency(cluster);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "scheduling-latency");
  CHECK(f.target == "profile/default-scheduler");
  CHECK(f.severity == analysis::Severity::kCritical);
  CHECK(f.evidence["p95_seconds"] == 8.0);
  CHECK(f.evidence["p99_seconds"] == 40.0);
  CHECK(f.evidence["causes"][0]["cause"] == "unschedulable");
  CHECK(f.evidence["causes"][0]["plugin"] == "NodeResourcesFit");
  CHECK(f.evidence["causes"][0]["pods"] == 12.0);
  CHECK(f.impact == Approx(10));  // p99 40 s against a 30 s SLO
}

TEST_CASE("the SLOs hold at their edges", "[detector][scheduling-latency]") {
  model::ClusterSnapshot cluster(5000, {testing::makeNode("n1", 16, 64)}, {});
  cluster.setScheduler(slowScheduler());
  config::Config config;
  config.detectors.scheduling_latency.p95_slo = config::Seconds(8);
  config.detectors.scheduling_latency.p99_slo = config::Seconds(40);
  CHECK(detectSchedulingLatency(cluster, config).empty());
  config.detectors.scheduling_latency.p99_slo = config::Seconds(39.9);
  const auto findings = detectSchedulingLatency(cluster, config);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == analysis::Severity::kWarning);
}

TEST_CASE("a profile without observations says nothing", "[detector][scheduling-latency]") {
  model::ClusterSnapshot cluster(5000, {testing::makeNode("n1", 16, 64)}, {});
  model::SchedulerStats stats = slowScheduler();
  stats.latency[0].p95.reset();
  stats.latency[0].p99.reset();
  cluster.setScheduler(stats);
  CHECK(detectSchedulingLatency(cluster).empty());
}

TEST_CASE("without scheduler metrics, per-pod times are used", "[detector][scheduling-latency]") {
  model::ClusterSnapshot cluster(5000, {testing::makeNode("n1", 64, 64)}, timedPods(20));
  const auto findings = detectSchedulingLatency(cluster);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].target == "cluster/default");
  CHECK(findings[0].evidence["source"] == "pod_times");
  CHECK(findings[0].evidence["pods"] == 20);
  // Linear interpolation over 1 … 20: p95 at rank 18.05 → 19.05 s, p99 at 18.81 → 19.81 s.
  CHECK(findings[0].evidence["p95_seconds"].get<double>() == Approx(19.05));
  CHECK(findings[0].evidence["p99_seconds"].get<double>() == Approx(19.81));
  config::Config config;
  config.detectors.scheduling_latency.min_pods = 21;
  CHECK(detectSchedulingLatency(cluster, config).empty());
}

TEST_CASE("scheduling-latency stays silent on a healthy cluster",
          "[detector][scheduling-latency]") {
  testing::RunFixture fx = testing::healthyScenario();
  CHECK(fx.detect(analysis::SchedulingLatency()).empty());
}
