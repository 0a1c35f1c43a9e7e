#include "ingestion/scrape_eval.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

namespace dagadvisor::ingestion {
namespace {

using sources::exposition::Format;

// A small kube-state-metrics page: one GPU node, one pod with two app containers and an init
// container, and its timestamps, labels, annotations, owner and phase.
constexpr const char* kKsm = R"(# TYPE kube_node_status_allocatable gauge
kube_node_status_allocatable{node="gpu-1",resource="cpu",unit="core"} 8
kube_node_status_allocatable{node="gpu-1",resource="memory",unit="byte"} 3.2e10
kube_node_status_allocatable{node="gpu-1",resource="nvidia_com_gpu",unit="integer"} 4
kube_node_status_allocatable{node="gpu-1",resource="pods",unit="integer"} 110
kube_node_labels{node="gpu-1",label_accelerator="a100",label_topology_kubernetes_io_zone="z1"} 1
kube_node_spec_taint{node="gpu-1",key="nvidia.com/gpu",value="present",effect="NoSchedule"} 1
kube_pod_info{namespace="ml",pod="train-1",uid="u1",node="gpu-1",created_by_kind="Job",created_by_name="train",priority_class="high"} 1
kube_pod_labels{namespace="ml",pod="train-1",uid="u1",label_dag_id="d",label_task_id="t1"} 1
kube_pod_annotations{namespace="ml",pod="train-1",uid="u1",annotation_workflow_dependencies="a,\"b\""} 1
kube_pod_owner{namespace="ml",pod="train-1",uid="u1",owner_kind="Job",owner_name="train",owner_is_controller="true"} 1
kube_pod_status_phase{namespace="ml",pod="train-1",uid="u1",phase="Pending"} 0
kube_pod_status_phase{namespace="ml",pod="train-1",uid="u1",phase="Running"} 1
kube_pod_container_resource_requests{namespace="ml",pod="train-1",uid="u1",container="main",node="gpu-1",resource="cpu",unit="core"} 0.5
kube_pod_container_resource_requests{namespace="ml",pod="train-1",uid="u1",container="side",node="gpu-1",resource="cpu",unit="core"} 0.25
kube_pod_container_resource_requests{namespace="ml",pod="train-1",uid="u1",container="main",node="gpu-1",resource="memory",unit="byte"} 100
kube_pod_container_resource_requests{namespace="ml",pod="train-1",uid="u1",container="side",node="gpu-1",resource="memory",unit="byte"} 200
kube_pod_container_resource_requests{namespace="ml",pod="train-1",uid="u1",container="main",node="gpu-1",resource="nvidia_com_gpu",unit="integer"} 2
kube_pod_init_container_resource_requests{namespace="ml",pod="train-1",uid="u1",container="init",resource="cpu",unit="core"} 1
kube_pod_init_container_resource_requests{namespace="ml",pod="train-1",uid="u1",container="init",resource="memory",unit="byte"} 150
kube_pod_created{namespace="ml",pod="train-1",uid="u1"} 1000
kube_pod_status_scheduled_time{namespace="ml",pod="train-1",uid="u1"} 1010
kube_pod_start_time{namespace="ml",pod="train-1",uid="u1"} 1020
)";

constexpr const char* kSecondPod =
    R"(kube_pod_info{namespace="ml",pod="prep-1",uid="u2",node="gpu-1",created_by_kind="Job",created_by_name="prep",priority_class=""} 1
kube_pod_status_phase{namespace="ml",pod="prep-1",uid="u2",phase="Running"} 1
kube_pod_created{namespace="ml",pod="prep-1",uid="u2"} 900
)";

Result<void> feed(ScrapeEvaluator& e, const std::string& body, UnixSeconds at,
                  std::string_view target = "ksm", Format format = Format::kPrometheusText) {
  return e.addBody(sources::scrape::ScrapedBody{target, body, format, at});
}

model::ClusterSnapshot cycle(ScrapeEvaluator& e, const std::string& body, UnixSeconds at) {
  e.beginCycle(at);
  REQUIRE(feed(e, body, at).ok());
  e.endCycle();
  return buildScrapedSnapshot(e, at);
}

ScrapeEvaluator makeEvaluator(double lookback = 3600) {
  return ScrapeEvaluator(config::MetricNames{}, config::Seconds(lookback));
}

}  // namespace

TEST_CASE("kube-state-metrics samples become the nodes and pods the queries would give",
          "[ingestion][scrape]") {
  ScrapeEvaluator e = makeEvaluator();
  const model::ClusterSnapshot cluster = cycle(e, kKsm, 2000);
  REQUIRE(cluster.nodes().size() == 1);
  const model::Node& node = cluster.nodes()[0];
  CHECK(node.name == "gpu-1");
  CHECK(node.allocatable.cpu_millis == 8000);
  CHECK(node.allocatable.memory_bytes == 32000000000);
  CHECK(node.allocatable.gpus == 4);
  CHECK(node.labels.get("accelerator") == std::optional<std::string_view>("a100"));
  REQUIRE(node.taints.size() == 1);
  CHECK(node.taints[0].key == "nvidia.com/gpu");
  CHECK(node.taints[0].effect == "NoSchedule");

  REQUIRE(cluster.pods().size() == 1);
  const model::Pod& pod = cluster.pods()[0];
  CHECK(pod.node_name == "gpu-1");
  CHECK(pod.phase == model::PodPhase::kRunning);
  CHECK(pod.priority_class == "high");
  CHECK(pod.owner_kind == "Job");
  // cpu: app 0.5 + 0.25 < init 1 → 1 core; memory: app 100 + 200 > init 150 → 300 bytes.
  CHECK(pod.requests.cpu_millis == 1000);
  CHECK(pod.requests.memory_bytes == 300);
  CHECK(pod.requests.gpus == 2);
  CHECK(pod.labels.get("dag_id") == std::optional<std::string_view>("d"));
  CHECK(pod.annotations.get("workflow_dependencies") == std::optional<std::string_view>("a,\"b\""));
  CHECK(pod.created == std::optional<UnixSeconds>(1000));
  CHECK(pod.scheduled == std::optional<UnixSeconds>(1010));
  CHECK(pod.started == std::optional<UnixSeconds>(1020));
  CHECK_FALSE(pod.finished.has_value());
  CHECK(cluster.requestedOn(0).gpus == 2);
}

TEST_CASE("series repeated by a second replica are merged, not summed", "[ingestion][scrape]") {
  ScrapeEvaluator e = makeEvaluator();
  e.beginCycle(2000);
  REQUIRE(feed(e, kKsm, 2000, "ksm-a").ok());
  REQUIRE(feed(e, kKsm, 2000, "ksm-b").ok());
  e.endCycle();
  const model::ClusterSnapshot cluster = buildScrapedSnapshot(e, 2000);
  REQUIRE(cluster.pods().size() == 1);
  CHECK(cluster.pods()[0].requests.cpu_millis == 1000);
  CHECK(cluster.pods()[0].requests.memory_bytes == 300);
  CHECK(cluster.nodes()[0].allocatable.gpus == 4);
  CHECK(cluster.nodes()[0].taints.size() == 1);
}

TEST_CASE("a pod gone from the scrape stays for the lookback, then is forgotten",
          "[ingestion][scrape]") {
  ScrapeEvaluator e = makeEvaluator(600);
  CHECK(cycle(e, std::string(kKsm) + kSecondPod, 2000).pods().size() == 2);

  // prep-1 was deleted: still in its run, no longer holding its node.
  const model::ClusterSnapshot later = cycle(e, kKsm, 2300);
  REQUIRE(later.pods().size() == 2);
  const auto prep = later.findPod("ml", "prep-1");
  REQUIRE(prep.has_value());
  CHECK(later.pod(*prep).created == std::optional<UnixSeconds>(900));
  CHECK_FALSE(later.pod(*prep).holdsResources());
  CHECK(later.pod(*later.findPod("ml", "train-1")).holdsResources());

  // Last seen at 2000; at 2700 that is more than 600 s ago.
  const model::ClusterSnapshot much_later = cycle(e, kKsm, 2700);
  CHECK(much_later.pods().size() == 1);
  CHECK(e.podCount() == 1);
}

TEST_CASE("a scrape replaces what an earlier one said about a pod", "[ingestion][scrape]") {
  ScrapeEvaluator e = makeEvaluator();
  cycle(e, kKsm, 2000);
  std::string finished = kKsm;
  finished += R"(kube_pod_completion_time{namespace="ml",pod="train-1",uid="u1"} 1500
kube_pod_status_phase{namespace="ml",pod="train-1",uid="u1",phase="Succeeded"} 1
)";
  const std::size_t running = finished.find(R"(phase="Running"} 1)");
  finished.replace(running, std::string(R"(phase="Running"} 1)").size(), R"(phase="Running"} 0)");
  const model::ClusterSnapshot cluster = cycle(e, finished, 2060);
  REQUIRE(cluster.pods().size() == 1);
  CHECK(cluster.pods()[0].phase == model::PodPhase::kSucceeded);
  CHECK(cluster.pods()[0].finished == std::optional<UnixSeconds>(1500));
  CHECK(cluster.pods()[0].requests.cpu_millis == 1000);  // not doubled by the second scrape
}

TEST_CASE("histogram_quantile follows Prometheus' rules", "[ingestion][scrape]") {
  const ScrapeEvaluator::Histogram h = {
      {0.1, 50}, {0.25, 80}, {0.5, 90}, {1, 100}, {INFINITY, 100}};
  // The TOOLCHAIN notes' backfill test: Prometheus answered 0.75 for this histogram's p95.
  CHECK(histogramQuantile(0.95, h) == Approx(0.75));
  CHECK(histogramQuantile(0.5, h) == Approx(0.1));
  CHECK(histogramQuantile(0.6, h) == Approx(0.1 + 0.15 * (10.0 / 30.0)));
  // Ranks in the +Inf bucket answer the highest finite bound.
  CHECK(histogramQuantile(0.99, {{1, 10}, {INFINITY, 20}}) == 1);
  CHECK(std::isnan(histogramQuantile(0.5, {{1, 10}, {2, 20}})));  // no +Inf bucket
  CHECK(std::isnan(histogramQuantile(0.5, {{1, 0}, {INFINITY, 0}})));
  CHECK(std::isnan(histogramQuantile(0.5, {{INFINITY, 5}})));
}

TEST_CASE("scheduler quantiles and rates come from the interval between two scrapes",
          "[ingestion][scrape]") {
  auto scheduler = [](int fast, int slow) {
    const int total = fast + slow;
    return "process_start_time_seconds 900\n"
           "# TYPE scheduler_pod_scheduling_sli_duration_seconds histogram\n"
           "scheduler_pod_scheduling_sli_duration_seconds_bucket{profile=\"p\",attempts=\"1\","
           "le=\"0.1\"} " +
           std::to_string(fast) +
           "\nscheduler_pod_scheduling_sli_duration_seconds_bucket{profile=\"p\",attempts=\"1\","
           "le=\"1\"} " +
           std::to_string(total) +
           "\nscheduler_pod_scheduling_sli_duration_seconds_bucket{profile=\"p\",attempts=\"1\","
           "le=\"+Inf\"} " +
           std::to_string(total) +
           "\nscheduler_pod_scheduling_sli_duration_seconds_count{profile=\"p\",attempts=\"1\"} " +
           std::to_string(total) + "\nscheduler_pending_pods{queue=\"active\",instance=\"a\"} 3\n" +
           "scheduler_pending_pods{queue=\"active\",instance=\"b\"} 4\n" +
           "scheduler_schedule_attempts_total{profile=\"p\",result=\"scheduled\"} " +
           std::to_string(total) + "\n";
  };
  ScrapeEvaluator e = makeEvaluator();
  // First scrape: since process start (t=900), 100 fast observations in 100 s.
  const model::ClusterSnapshot first = cycle(e, kKsm + scheduler(100, 0), 1000);
  const model::SchedulerStats& s1 = first.scheduler();
  REQUIRE(s1.latency.size() == 1);
  CHECK(s1.latency_metric == "scheduler_pod_scheduling_sli_duration_seconds");
  CHECK(s1.latency[0].profile == "p");
  CHECK(*s1.latency[0].p95 == Approx(0.095));
  CHECK(s1.latency[0].pods_per_second == Approx(1.0));
  CHECK(s1.pending_by_queue.at("active") == 7);
  CHECK(s1.attempts_per_second.at("scheduled") == Approx(1.0));

  // Second scrape 60 s later: 60 slow observations only. Over the interval p95 sits in the
  // (0.1, 1] bucket at rank 57 of 60; the cumulative counts would have said rank 152 of 160.
  const model::ClusterSnapshot second = cycle(e, kKsm + scheduler(100, 60), 1060);
  const model::SchedulerStats& s2 = second.scheduler();
  REQUIRE(s2.latency.size() == 1);
  CHECK(*s2.latency[0].p95 == Approx(0.1 + 0.9 * 57.0 / 60.0));
  CHECK(s2.latency[0].pods_per_second == Approx(1.0));
  CHECK(s2.attempts_per_second.at("scheduled") == Approx(1.0));
}

TEST_CASE("OpenMetrics bodies and usage series are read", "[ingestion][scrape]") {
  const std::string om = std::string(kKsm) +
                         "# TYPE container_memory_working_set_bytes gauge\n"
                         "container_memory_working_set_bytes{namespace=\"ml\",pod=\"train-1\","
                         "container=\"main\"} 1000\n"
                         "container_memory_working_set_bytes{namespace=\"ml\",pod=\"train-1\","
                         "container=\"\"} 5000\n"
                         "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",exported_namespace=\"ml\","
                         "exported_pod=\"train-1\"} 40\n"
                         "DCGM_FI_DEV_GPU_UTIL{gpu=\"1\",exported_namespace=\"ml\","
                         "exported_pod=\"train-1\"} 60\n"
                         "# EOF\n";
  ScrapeEvaluator e = makeEvaluator();
  e.beginCycle(2000);
  REQUIRE(feed(e, om, 2000, "file.om", Format::kOpenMetrics).ok());
  e.endCycle();
  const model::ClusterSnapshot cluster = buildScrapedSnapshot(e, 2000);
  REQUIRE(cluster.pods().size() == 1);
  REQUIRE(cluster.pods()[0].usage.has_value());
  CHECK(cluster.pods()[0].usage->memory_bytes == 1000);  // the pod cgroup (container="") is not
  CHECK(cluster.pods()[0].usage->gpu_utilization_percent == std::optional<double>(50));
  CHECK(cluster.pods()[0].usage->samples == 0);  // one scrape gives no CPU rate
}

TEST_CASE("a syntax error names the target and the line", "[ingestion][scrape]") {
  ScrapeEvaluator e = makeEvaluator();
  e.beginCycle(2000);
  auto bad = feed(e, "kube_pod_info{namespace=\"a\" 1\n", 2000, "http://ksm:8080/metrics");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("http://ksm:8080/metrics") != std::string::npos);
  CHECK(bad.error().describe().find("line 1") != std::string::npos);
}

}  // namespace dagadvisor::ingestion

namespace dagadvisor::ingestion {

TEST_CASE("each query gets the samples its PromQL would return", "[ingestion][scrape]") {
  ScrapeEvaluator e(config::MetricNames{}, config::Seconds(3600));
  e.beginCycle(100);
  REQUIRE(e.addBody({"ksm",
                     R"(kube_pod_labels{namespace="a",pod="p",uid="u"} 1
kube_pod_owner{namespace="a",pod="p",uid="u",owner_kind="ReplicaSet",owner_name="r"} 1
kube_pod_owner{namespace="a",pod="p",uid="u",owner_kind="Node",owner_name="n"} 1
kube_pod_owner{namespace="a",pod="p",uid="u",owner_kind="Node",owner_name="n"} 1
kube_node_status_allocatable{node="n",resource="cpu",unit="core"} 2
kube_pod_container_resource_requests{namespace="a",pod="p",uid="u",container="app",node="n",resource="cpu",unit="core"} 0.5
kube_pod_init_container_resource_requests{namespace="a",pod="p",uid="u",container="init",resource="cpu",unit="core"} 1
)",
                     sources::exposition::Format::kPrometheusText, 100})
              .ok());
  e.endCycle();
  auto samples = [&](QueryId id) {
    std::vector<std::string> out;
    e.emit(id, [&](const sources::SampleView& s) {
      std::string line;
      for (std::size_t i = 0; i < s.label_count; ++i) {
        line += std::string(s.labels[i].first) + "=" + std::string(s.labels[i].second) + " ";
      }
      out.push_back(line);
    });
    std::sort(out.begin(), out.end());
    return out;
  };
  // A pod whose kube_pod_labels has no label_* still has its series, as in PromQL.
  CHECK(samples(QueryId::kPodLabels) == std::vector<std::string>{"namespace=a pod=p uid=u "});
  CHECK(samples(QueryId::kPodOwner) ==
        std::vector<std::string>{"namespace=a pod=p uid=u owner_kind=Node owner_name=n ",
                                 "namespace=a pod=p uid=u owner_kind=ReplicaSet owner_name=r "});
  CHECK(samples(QueryId::kNodeLabels).empty());  // no kube_node_labels series
  CHECK(samples(QueryId::kNodeAllocatable) == std::vector<std::string>{"node=n resource=cpu "});
  CHECK(samples(QueryId::kPodInfo).empty());  // no kube_pod_info: not a pod of the model
  CHECK(samples(QueryId::kSchedulingLatency).empty());
  // App containers by name, and the largest init container per resource without one.
  CHECK(samples(QueryId::kPodRequests) ==
        std::vector<std::string>{"namespace=a pod=p uid=u container=app resource=cpu ",
                                 "namespace=a pod=p uid=u resource=cpu "});
  CHECK(samples(QueryId::kPodSpec).empty());  // the pod is bound: no tolerations asked
}

}  // namespace dagadvisor::ingestion
