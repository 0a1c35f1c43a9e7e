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
  CHECK(e.hold == "movable");
  CHECK(e.diagnosis.pending_pods == 1);
  CHECK(e.diagnosis.of(analysis::PendingCause::kHoarding) == 1);
  CHECK(e.pending_gpu_pods[0].waiting_seconds == 4000);
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["free_gpus"] == 3);
  CHECK(json["non_gpu_cpu_millis"] == 12'000);
  CHECK(json["daemonset_cpu_millis"] == 6'000);
  CHECK(json["pending_gpu_pods"][0]["waiting_seconds"] == 4000);
  CHECK(json["hold"] == "movable");
  CHECK(json["diagnosis"]["hoarding"] == 1);
  CHECK(f.impact == 1);  // the GPUs the matched pod takes
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
  CHECK(e.hold == "movable");
  CHECK(e.non_gpu.cpu_millis - e.movable.cpu_millis == 6'000);
  CHECK(e.movable.cpu_millis == 6'000);
  CHECK(e.gpus_unblocked_by_moving == 1);
  CHECK(e.pending_gpu_pods_total == 1);

  // Owned by a second DaemonSet, the api pod cannot move: this node is not hoarded by movable
  // workloads (before, a warning told to move workloads that free nothing). It stays an info
  // finding whose advice is the DaemonSets' requests: 6 cores more are needed than are free.
  auto pods = seedPods();
  pods[1].owner_kind = "DaemonSet";
  model::ClusterSnapshot all_daemons(5000, {makeNode("gpu-1", 16, 64, 4)}, std::move(pods));
  findings = detectGpuNodeHoarding(all_daemons);
  REQUIRE(findings.size() == 1);
  CHECK(findings[0].severity == analysis::Severity::kInfo);
  const auto& held = findings[0].evidenceAs<analysis::GpuNodeHoardingEvidence>();
  CHECK(held.hold == "daemonsets");
  CHECK_FALSE(held.hoarded());
  CHECK(held.gpus_unblocked_by_moving == 0);
  CHECK(held.pending_gpu_pods.empty());  // the pod is not this kind's: it stays capacity's
  CHECK(held.daemonset_excess.cpu_millis == 6'000);
  CHECK(held.daemonset_excess.memory_bytes == 0);
  CHECK(held.diagnosis.of(analysis::PendingCause::kHoarding) == 0);
}

TEST_CASE("the GPUs unblocked are a matching: each pending pod on one node, several per node",
          "[detector][gpu-node-hoarding]") {
  // Three GPU nodes, each with 2 cores free and a 6-core web pod that can move: 8 cores of room,
  // room for one 6-core GPU pod each. Two 1-GPU pods pend: before, each node claimed both (six
  // pods, 6 GPUs, on three nodes); a matching places each pod once.
  std::vector<model::Node> nodes;
  std::vector<model::Pod> pods;
  for (const char* n : {"gpu-1", "gpu-2", "gpu-3"}) {
    nodes.push_back(makeNode(n, 16, 64, 4));
    pods.push_back(
        makePod("web", std::string("api-") + n, n, 6, 8, 0, ownedBy("ReplicaSet", "api")));
    pods.push_back(makePod("ml", std::string("busy-") + n, n, 8, 8, 1, ownedBy("Job", "busy")));
  }
  pods.push_back(makePod("ml", "train-a", "", 6, 8, 1, ownedBy("Job", "train")));
  pods.push_back(makePod("ml", "train-b", "", 6, 8, 1, ownedBy("Job", "train")));
  model::ClusterSnapshot cluster(5000, nodes, pods);
  const auto findings = detectGpuNodeHoarding(cluster);
  std::int64_t gpus = 0;
  std::size_t listed = 0;
  std::size_t warnings = 0;
  for (const analysis::Finding& f : findings) {
    const auto& e = f.evidenceAs<analysis::GpuNodeHoardingEvidence>();
    gpus += e.gpus_unblocked_by_moving;
    listed += e.pending_gpu_pods.size();
    warnings += f.severity == analysis::Severity::kWarning ? 1 : 0;
  }
  CHECK(gpus == 2);
  CHECK(listed == 2);
  CHECK(warnings == 2);
  REQUIRE(findings.size() == 3);  // the third is held, but both pods are placed elsewhere
  CHECK(findings[2].evidenceAs<analysis::GpuNodeHoardingEvidence>().hold == "movable-unmatched");

  // With more room on one node (a 14-core mover), both pods go there: several pods per node.
  pods[0].requests.cpu_millis = 14'000;
  pods[1].requests.cpu_millis = 0;
  model::ClusterSnapshot roomy(5000, nodes, pods);
  const auto one = detectGpuNodeHoarding(roomy);
  REQUIRE_FALSE(one.empty());
  CHECK(one[0].target == "node/gpu-1");
  CHECK(one[0].evidenceAs<analysis::GpuNodeHoardingEvidence>().pending_gpu_pods_total == 2);
  CHECK(one[0].evidenceAs<analysis::GpuNodeHoardingEvidence>().gpus_unblocked_by_moving == 2);
}

TEST_CASE("hoarding counts whether the nodes without GPUs have room for the pods to move",
          "[detector][gpu-node-hoarding]") {
  // The web pod (6 cores) moves off gpu-1; cpu-1 has 32 cores free, cpu-small only 4.
  model::ClusterSnapshot roomy(5000, {makeNode("gpu-1", 16, 64, 4), makeNode("cpu-1", 32, 128)},
                               seedPods());
  const auto roomy_findings = detectGpuNodeHoarding(roomy);  // kept: the evidence lives in it
  REQUIRE(roomy_findings.size() == 1);
  const auto& fits = roomy_findings[0].evidenceAs<analysis::GpuNodeHoardingEvidence>();
  CHECK(fits.pods_to_move == 1);
  CHECK(fits.pods_to_move_with_room == 1);

  std::vector<model::Pod> pods = seedPods();
  pods.push_back(makePod("batch", "crunch-0", "cpu-small", 4, 8, 0, ownedBy("Job", "crunch")));
  model::ClusterSnapshot full(5000, {makeNode("gpu-1", 16, 64, 4), makeNode("cpu-small", 8, 32)},
                              pods);
  const auto findings = detectGpuNodeHoarding(full);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::GpuNodeHoardingEvidence>();
  CHECK(e.pods_to_move == 1);
  CHECK(e.pods_to_move_with_room == 0);  // 6 cores into the 4 left
  CHECK(findings[0].evidenceJson()["pods_to_move_with_room"] == 0);
}
