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
  const auto& e = f.evidenceAs<analysis::SchedulingLatencyEvidence>();
  CHECK(e.profile == "default-scheduler");
  CHECK(e.source == "scheduler_pod_scheduling_sli_duration_seconds");
  CHECK(e.p95_seconds == 8.0);
  CHECK(e.p99_seconds == 40.0);
  CHECK(e.pods_per_second == 2.0);
  CHECK_FALSE(e.pods);
  REQUIRE(e.causes.size() == 2);
  CHECK(e.causes[0].kind == analysis::SchedulingCause::Kind::kUnschedulable);
  CHECK(e.causes[0].subject == "NodeResourcesFit");
  CHECK(e.causes[0].value == 12.0);
  CHECK(e.causes[1].kind == analysis::SchedulingCause::Kind::kQueue);
  CHECK(e.causes[1].subject == "unschedulable");
  CHECK(e.causes[1].value == 15.0);
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["p95_seconds"] == 8.0);
  CHECK(json["p99_seconds"] == 40.0);
  CHECK(json["p95_slo_seconds"] == e.p95_slo_seconds);
  CHECK(json["pods_per_second"] == 2.0);
  CHECK_FALSE(json.contains("pods"));
  CHECK(json["causes"][0]["cause"] == "unschedulable");
  CHECK(json["causes"][0]["plugin"] == "NodeResourcesFit");
  CHECK(json["causes"][0]["pods"] == 12.0);
  CHECK(json["causes"][1] ==
        nlohmann::json{{"cause", "queue"}, {"queue", "unschedulable"}, {"pods", 15.0}});
  CHECK(f.impact == Approx(10));  // p99 40 s against a 30 s SLO
}

TEST_CASE("every cause the scheduler's metrics name is listed, most telling first",
          "[detector][scheduling-latency]") {
  model::ClusterSnapshot cluster(5000, {testing::makeNode("n1", 16, 64)}, {});
  model::SchedulerStats stats = slowScheduler();
  stats.attempts_per_second = {{"scheduled", 1}, {"unschedulable", 3}, {"error", 0.5}};
  stats.extension_point_p99 = {{"Filter", 0.25}, {"Score", 0.05}};
  stats.preemption_attempts_per_second = 0.1;
  cluster.setScheduler(stats);
  const auto findings = detectSchedulingLatency(cluster);
  REQUIRE(findings.size() == 1);
  using Kind = analysis::SchedulingCause::Kind;
  const auto& causes = findings[0].evidenceAs<analysis::SchedulingLatencyEvidence>().causes;
  REQUIRE(causes.size() == 6);
  CHECK(causes[0].kind == Kind::kUnschedulable);
  CHECK(causes[1].kind == Kind::kFailedAttempts);
  CHECK(causes[1].value == Approx(3 / 4.5));
  CHECK(causes[2].kind == Kind::kSchedulerErrors);
  CHECK(causes[3].kind == Kind::kSlowExtensionPoint);
  CHECK(causes[3].subject == "Filter");
  CHECK(causes[4].kind == Kind::kPreemption);
  CHECK(causes[5].kind == Kind::kQueue);
  const auto json = findings[0].evidenceJson()["causes"];
  CHECK(json[1]["cause"] == "failed_attempts");
  CHECK(json[1]["share"].get<double>() == Approx(3 / 4.5));
  CHECK(json[2] == nlohmann::json{{"cause", "scheduler_errors"}, {"per_second", 0.5}});
  CHECK(json[3] == nlohmann::json{{"cause", "slow_extension_point"},
                                  {"extension_point", "Filter"},
                                  {"p99", 0.25}});
  CHECK(json[4] == nlohmann::json{{"cause", "preemption"}, {"per_second", 0.1}});
}

TEST_CASE("the SLOs hold at their edges", "[detector][scheduling-latency]") {
  model::ClusterSnapshot cluster(5000, {testing::makeNode("n1", 16, 64)}, {});
  cluster.setScheduler(slowScheduler());
  config::Config config;
  config.detectors.get<analysis::SchedulingLatencySettings>().p95_slo = config::Seconds(8);
  config.detectors.get<analysis::SchedulingLatencySettings>().p99_slo = config::Seconds(40);
  CHECK(detectSchedulingLatency(cluster, config).empty());
  config.detectors.get<analysis::SchedulingLatencySettings>().p99_slo = config::Seconds(39.9);
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
  const auto& e = findings[0].evidenceAs<analysis::SchedulingLatencyEvidence>();
  CHECK(e.source == "pod_times");
  CHECK(e.pods == 20);
  CHECK(e.causes.empty());
  // Linear interpolation over 1 … 20: p95 at rank 18.05 → 19.05 s, p99 at 18.81 → 19.81 s.
  CHECK(e.p95_seconds == Approx(19.05));
  CHECK(e.p99_seconds == Approx(19.81));
  const auto json = findings[0].evidenceJson();
  CHECK(json["source"] == "pod_times");
  CHECK(json["pods"] == 20);
  CHECK_FALSE(json.contains("pods_per_second"));
  config::Config config;
  config.detectors.get<analysis::SchedulingLatencySettings>().min_pods = 21;
  CHECK(detectSchedulingLatency(cluster, config).empty());
}

TEST_CASE("scheduling-latency stays silent on a healthy cluster",
          "[detector][scheduling-latency]") {
  testing::RunFixture fx = testing::healthyScenario();
  CHECK(fx.detect(analysis::SchedulingLatency()).empty());
}

namespace {

// A pod nobody has scheduled yet, created `age` seconds before 5000.
model::Pod pendingPod(const std::string& name, double age, std::int64_t gpus) {
  return testing::makePod("ml", name, "", 4, 16, gpus,
                          [&](model::Pod& p) { p.created = 5000.0 - age; });
}

}  // namespace

TEST_CASE("a GPU queue pending for 30 minutes is a finding, with its oldest pods and counts",
          "[detector][scheduling-latency]") {
  // No scheduler metrics and too few scheduled pods for a quantile: only the queue can speak.
  model::ClusterSnapshot cluster(
      5000, {testing::makeNode("gpu-1", 32, 128, 4)},
      {pendingPod("train-b", 1800, 2), pendingPod("train-a", 1800, 2),
       pendingPod("train-c", 900, 1), pendingPod("etl", 10, 0), pendingPod("report", 600, 0)});
  analysis::FindingSink sink;
  analysis::SchedulingLatency().analyze({cluster, {}, config::Config{}}, sink);
  REQUIRE(sink.findings().size() == 1);
  CHECK(sink.noAdviceReason().empty());  // judged: the pending pods are the finding
  const analysis::Finding& f = sink.findings()[0];
  CHECK(f.target == "cluster/default/pending");
  CHECK(f.severity == analysis::Severity::kWarning);
  CHECK(f.impact == Approx(1770));  // the oldest wait beyond the 30 s p99 SLO
  const auto& e = f.evidenceAs<analysis::SchedulingLatencyEvidence>();
  CHECK(e.source == "pending_pods");
  REQUIRE(e.pending);
  CHECK(e.pending->pods == 5);
  CHECK(e.pending->over_slo == 4);  // etl has waited 10 s only
  CHECK(e.pending->gpu_pods == 3);
  CHECK(e.pending->gpu_over_slo == 3);
  CHECK(e.pending->oldest_seconds == Approx(1800));
  CHECK(e.pending->oldest_gpu_seconds == Approx(1800));
  CHECK(e.pending->median_seconds == Approx(900));
  REQUIRE(e.pending->oldest.size() == 5);
  CHECK(e.pending->oldest[0].pod == "train-a");  // equal ages: by name
  CHECK(e.pending->oldest[1].pod == "train-b");
  CHECK(e.pending->oldest[2].pod == "train-c");
  CHECK(e.pending->oldest[0].gpus == 2);
  CHECK_THAT(f.summary, Catch::Contains("4 pod(s) pending longer than the p99 SLO (30 s), 3 of "
                                        "them requesting GPUs; the oldest waits 30 min"));
  const auto json = f.evidenceJson();
  CHECK(json["pending"]["gpu_over_slo"] == 3);
  CHECK(json["pending"]["oldest"][0]["age_seconds"].get<double>() == Approx(1800));
  CHECK(json["pending"]["basis"] == "measured");
  CHECK_FALSE(json.contains("p95_seconds"));  // no quantile: these pods are not scheduled
}

TEST_CASE("pending pods count from the p99 SLO on, edge excluded",
          "[detector][scheduling-latency]") {
  model::ClusterSnapshot at_slo(5000, {testing::makeNode("n1", 16, 64)}, {pendingPod("a", 30, 0)});
  analysis::FindingSink sink;
  analysis::SchedulingLatency().analyze({at_slo, {}, config::Config{}}, sink);
  CHECK(sink.findings().empty());
  CHECK_FALSE(sink.noAdviceReason().empty());  // no histogram, no queue over the SLO
  model::ClusterSnapshot over(5000, {testing::makeNode("n1", 16, 64)}, {pendingPod("a", 31, 0)});
  const auto over_findings = detectSchedulingLatency(over);
  REQUIRE(over_findings.size() == 1);
  CHECK_THAT(over_findings[0].summary, !Catch::Contains("GPU pods:"));  // none requests GPUs
  config::Config config;
  config.detectors.get<analysis::SchedulingLatencySettings>().p99_slo = config::Seconds(31);
  CHECK(detectSchedulingLatency(over, config).empty());
}

TEST_CASE("a pending queue beside a fast histogram carries the scheduler's causes",
          "[detector][scheduling-latency]") {
  model::ClusterSnapshot cluster(5000, {testing::makeNode("gpu-1", 32, 128, 4)},
                                 {pendingPod("train", 3120, 2)});
  model::SchedulerStats stats = slowScheduler();
  stats.latency = {{"default-scheduler", 0.01, 0.05, 0.08, 0.05}};  // scheduled pods are fast
  cluster.setScheduler(stats);
  const auto findings = detectSchedulingLatency(cluster);
  REQUIRE(findings.size() == 1);  // the histogram is under its SLO: only the queue is reported
  const auto& e = findings[0].evidenceAs<analysis::SchedulingLatencyEvidence>();
  CHECK(e.source == "pending_pods");
  REQUIRE_FALSE(e.causes.empty());
  CHECK(e.causes[0].subject == "NodeResourcesFit");
  CHECK_THAT(findings[0].summary, Catch::Contains("52 min"));
  CHECK_THAT(findings[0].summary, Catch::EndsWith("likely cause: unschedulable"));
}
