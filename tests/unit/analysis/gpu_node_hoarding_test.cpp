#include "analysis/detectors/gpu_node_hoarding.h"

#include <catch2/catch.hpp>

#include "run_fixture.h"
#include "support/builders.h"

using namespace dagadvisor;
using testing::makeNode;
using testing::makePod;
using testing::ownedBy;

namespace {

std::vector<analysis::Finding> detectGpuNodeHoarding(const model::ClusterSnapshot& cluster,
                                                     const config::Config& config = {}) {
  return testing::findingsOf(analysis::GpuNodeHoarding(), cluster, {}, config);
}

// The seed's picture: a 16-core, 64 GiB, 4-GPU node whose CPU is mostly requested by a log
// collector and a web service, and a training pod that needs 8 cores and 1 GPU.
std::vector<model::Pod> seedPods() {
  return {
      makePod("logging", "fluentd-abc", "gpu-1", 6, 8, 0, ownedBy("DaemonSet", "fluentd")),
      makePod("web", "api-1", "gpu-1", 6, 8, 0, ownedBy("ReplicaSet", "api-7d9")),
      makePod("ml", "train-0", "gpu-1", 2, 8, 1, ownedBy("Job", "train")),
      makePod("ml", "train-1", "", 8, 16, 1, ownedBy("Job", "train")),
  };
}

}  // namespace

TEST_CASE("hoarding is found on a GPU node held by non-GPU pods while a GPU pod pends",
          "[detector][gpu-node-hoarding]") {
  model::ClusterSnapshot cluster(5000, {makeNode("gpu-1", 16, 64, 4), makeNode("cpu-1", 32, 128)},
                                 seedPods());
  const auto findings = detectGpuNodeHoarding(cluster);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "gpu-node-hoarding");
  CHECK(f.target == "node/gpu-1");
  CHECK(f.severity == analysis::Severity::kWarning);
  const auto& e = f.evidenceAs<analysis::GpuNodeHoardingEvidence>();
  CHECK(e.free.gpus == 3);
  CHECK(e.non_gpu.cpu_millis == 12'000);
  CHECK(e.non_gpu_cpu_share == Approx(0.75));
  REQUIRE(e.non_gpu_owners.size() == 2);
  REQUIRE(e.pending_gpu_pods.size() == 1);
  CHECK(e.pending_gpu_pods[0].pod == "train-1");
  CHECK(e.pending_gpu_pods[0].waiting_seconds == 4000);
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["free_gpus"] == 3);
  CHECK(json["non_gpu_cpu_millis"] == 12'000);
  CHECK(json["daemonset_cpu_millis"] == 6'000);
  CHECK(json["pending_gpu_pods"][0]["waiting_seconds"] == 4000);
  CHECK(f.impact == 3);
}

TEST_CASE("no hoarding when the pending GPU pod fits or the share is below the threshold",
          "[detector][gpu-node-hoarding]") {
  SECTION("the GPU node has room: the pending pod is not blocked by the hold") {
    auto pods = seedPods();
    pods[3].requests.cpu_millis = 1000;  // fits in the 2 free cores
    model::ClusterSnapshot cluster(5000, {makeNode("gpu-1", 16, 64, 4)}, std::move(pods));
    CHECK(detectGpuNodeHoarding(cluster).empty());
  }
  SECTION("the pending pod would not fit even on an empty node") {
    auto pods = seedPods();
    pods[3].requests.cpu_millis = 17'000;
    model::ClusterSnapshot cluster(5000, {makeNode("gpu-1", 16, 64, 4)}, std::move(pods));
    CHECK(detectGpuNodeHoarding(cluster).empty());
  }
  SECTION("the pending pod asks for more GPUs than are free") {
    auto pods = seedPods();
    pods[3].requests.gpus = 4;
    model::ClusterSnapshot cluster(5000, {makeNode("gpu-1", 16, 64, 4)}, std::move(pods));
    CHECK(detectGpuNodeHoarding(cluster).empty());
  }
  SECTION("every GPU is taken: nothing is stranded") {
    auto pods = seedPods();
    pods[2].requests.gpus = 4;
    model::ClusterSnapshot cluster(5000, {makeNode("gpu-1", 16, 64, 4)}, std::move(pods));
    CHECK(detectGpuNodeHoarding(cluster).empty());
  }
  SECTION("a CPU-only cluster") {
    model::ClusterSnapshot cluster(
        5000, {makeNode("cpu-1", 16, 64)},
        {makePod("web", "api", "cpu-1", 15, 8, 0, ownedBy("ReplicaSet", "api"))});
    CHECK(detectGpuNodeHoarding(cluster).empty());
  }
}

TEST_CASE("without pending GPU pods the hold is reported only when asked, as info",
          "[detector][gpu-node-hoarding]") {
  auto pods = seedPods();
  pods.pop_back();
  model::ClusterSnapshot cluster(5000, {makeNode("gpu-1", 16, 64, 4)}, std::move(pods));
  CHECK(detectGpuNodeHoarding(cluster).empty());
  config::Config config;
  config.detectors.get<analysis::GpuNodeHoardingSettings>().require_pending_gpu_pods = false;
  const auto findings = detectGpuNodeHoarding(cluster, config);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == analysis::Severity::kInfo);
}

TEST_CASE("a blocked GPU pod is reported whatever share the non-GPU pods hold",
          "[detector][gpu-node-hoarding]") {
  auto pods = seedPods();
  pods[0].requests.cpu_millis = 1000;
  pods[1].requests.cpu_millis = 1000;    // 2 of 16 cores: a small hold
  pods[3].requests.cpu_millis = 13'500;  // 12 free, needs 13.5: blocked by the small hold
  model::ClusterSnapshot cluster(5000, {makeNode("gpu-1", 16, 64, 4)}, std::move(pods));
  const auto findings = detectGpuNodeHoarding(cluster);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].evidenceAs<analysis::GpuNodeHoardingEvidence>().non_gpu_cpu_share ==
        Approx(0.125));
}

TEST_CASE("without pending pods the share threshold decides, edge included",
          "[detector][gpu-node-hoarding]") {
  auto pods = seedPods();
  pods.pop_back();
  pods[0].requests.cpu_millis = 4000;
  pods[1].requests.cpu_millis = 4000;  // 8 of 16 cores = 0.5 exactly
  pods[1].requests.memory_bytes = 0;
  model::ClusterSnapshot cluster(5000, {makeNode("gpu-1", 16, 64, 4)}, pods);
  config::Config config;
  config.detectors.get<analysis::GpuNodeHoardingSettings>().require_pending_gpu_pods = false;
  CHECK(detectGpuNodeHoarding(cluster, config).size() == 1);
  config.detectors.get<analysis::GpuNodeHoardingSettings>().min_non_gpu_share = 0.51;
  CHECK(detectGpuNodeHoarding(cluster, config).empty());
}

TEST_CASE("min_free_gpus is honoured", "[detector][gpu-node-hoarding]") {
  model::ClusterSnapshot cluster(5000, {makeNode("gpu-1", 16, 64, 4)}, seedPods());
  config::Config config;
  config.detectors.get<analysis::GpuNodeHoardingSettings>().min_free_gpus = 3;
  CHECK(detectGpuNodeHoarding(cluster, config).size() == 1);
  config.detectors.get<analysis::GpuNodeHoardingSettings>().min_free_gpus = 4;
  CHECK(detectGpuNodeHoarding(cluster, config).empty());
}

TEST_CASE("DaemonSet holds are told apart from pods that can move",
          "[detector][gpu-node-hoarding]") {
  // fluentd (DaemonSet, 6 cores) stays; api (6 cores) can move: 2 free + 6 = 8 cores, enough
  // for train-1 (8 cores, 1 GPU).
  model::ClusterSnapshot cluster(5000, {makeNode("gpu-1", 16, 64, 4)}, seedPods());
  auto findings = detectGpuNodeHoarding(cluster);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::GpuNodeHoardingEvidence>();
  CHECK(e.non_gpu.cpu_millis - e.movable.cpu_millis == 6'000);
  CHECK(e.movable.cpu_millis == 6'000);
  CHECK(e.stranded_gpus == 1);
  CHECK(e.gpus_unblocked_by_moving == 1);
  CHECK(e.pending_gpu_pods[0].fits_if_movable_pods_leave);

  // Owned by a second DaemonSet, the api pod cannot move: nothing is unblocked by moving.
  auto pods = seedPods();
  pods[1].owner_kind = "DaemonSet";
  model::ClusterSnapshot all_daemons(5000, {makeNode("gpu-1", 16, 64, 4)}, std::move(pods));
  findings = detectGpuNodeHoarding(all_daemons);
  REQUIRE(findings.size() == 1);
  const auto& held = findings[0].evidenceAs<analysis::GpuNodeHoardingEvidence>();
  CHECK(held.stranded_gpus == 1);
  CHECK(held.gpus_unblocked_by_moving == 0);
  CHECK_FALSE(held.pending_gpu_pods[0].fits_if_movable_pods_leave);
}
