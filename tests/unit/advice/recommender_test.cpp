#include "advice/recommender.h"

#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>

#include "analysis/detectors/gpu_node_hoarding.h"
#include "unit/advice/patch_docs.h"

using namespace dagadvisor;
using nlohmann::json;

namespace {

// A hoarded node with one pending pod matched to it (the matching places each pod on one node).
analysis::Finding hoardingFinding(const std::string& node, int free_gpus,
                                  std::vector<model::Taint> taints, const std::string& pod) {
  analysis::GpuNodeHoardingEvidence evidence;
  evidence.node = node;
  evidence.hold = "movable";
  evidence.free.gpus = free_gpus;
  evidence.gpus_unblocked_by_moving = 1;
  evidence.taints = std::move(taints);
  evidence.non_gpu_owners = {{"DaemonSet", "logging", "fluentd", 1, 6000, 1}};
  analysis::BlockedGpuPod blocked;
  blocked.namespace_ = "ml";
  blocked.pod = pod;
  evidence.pending_gpu_pods = {blocked};
  evidence.pending_gpu_pods_total = 1;
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.severity = analysis::Severity::kWarning;
  f.target = "node/" + node;
  f.impact = free_gpus;
  return f;
}

}  // namespace

TEST_CASE("hoarding findings become one recommendation with valid Node patches",
          "[advice][gpu-node-hoarding]") {
  config::Config config;
  const std::vector<model::Taint> existing = {{"dedicated", "ml", "NoExecute"}};
  const std::vector<analysis::Finding> findings = {
      hoardingFinding("gpu-1", 3, {}, "train-1"), hoardingFinding("gpu-2", 2, existing, "train-2")};
  const auto recs = advice::recommend(findings, config);
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK(rec.kind == "gpu-node-hoarding");
  CHECK(rec.instances == std::vector<std::string>{"node/gpu-1", "node/gpu-2"});
  // The GPUs the matched pods take, not the free GPUs summed over the nodes (5).
  CHECK(rec.impact_score == 2);
  CHECK(rec.evidence["pending_gpu_pods"].size() == 2);
  CHECK(rec.evidence["gpus_unblocked_by_moving"] == 2);
  CHECK_THAT(rec.title, Catch::Contains("moving them places 2 pending GPU pod(s) (2 GPU(s))"));
  CHECK_THAT(rec.action, Catch::Contains("logging/fluentd"));

  // The taint is added to each node's taints (never a whole list that would drop gpu-2's own),
  // by command or JSON patch, after the tolerations: the order is stated.
  const std::string& patch = rec.patch_yaml;
  CHECK_THAT(patch, Catch::Contains("kubectl taint node gpu-1 nvidia.com/gpu=present:NoSchedule"));
  CHECK_THAT(patch, Catch::Contains("kubectl taint node gpu-2 nvidia.com/gpu=present:NoSchedule"));
  const auto taint = testing::addedValue(patch, "/spec/taints/-");
  REQUIRE(taint.IsMap());
  CHECK(taint["key"].as<std::string>() == "nvidia.com/gpu");
  CHECK(taint["effect"].as<std::string>() == "NoSchedule");
  CHECK_THAT(patch, !Catch::Contains("dedicated"));
  const auto toleration = testing::addedValue(patch, "/tolerations/-");
  REQUIRE(toleration.IsMap());
  CHECK(toleration["key"].as<std::string>() == "nvidia.com/gpu");
  CHECK(toleration["operator"].as<std::string>() == "Exists");
  CHECK(patch.find("step 1") < patch.find("step 3"));
  CHECK(patch.find("/tolerations/-") < patch.find("/spec/taints/-"));
  // The DaemonSet on the nodes gets its own toleration patch: it must keep landing there.
  CHECK_THAT(patch, Catch::Contains("kubectl patch daemonset fluentd -n logging"));
}

TEST_CASE("recommendation ids are stable per kind, cluster and target", "[advice]") {
  const auto a = advice::stableId("gpu-node-hoarding", "prod", "cluster/prod");
  CHECK(a == advice::stableId("gpu-node-hoarding", "prod", "cluster/prod"));
  CHECK(a.rfind("gpu-node-hoarding-", 0) == 0);
  CHECK(a.size() == std::string("gpu-node-hoarding-").size() + 8);
  CHECK(a != advice::stableId("gpu-node-hoarding", "staging", "cluster/prod"));
  CHECK(a != advice::stableId("gpu-node-hoarding", "prod", "cluster/staging"));
}

TEST_CASE("history keeps first_seen across cycles", "[advice]") {
  config::Config config;
  advice::RecommendationHistory history;
  auto first = advice::recommend({hoardingFinding("gpu-1", 1, {}, "train-1")}, config);
  history.stamp(first, 100);
  auto second = advice::recommend({hoardingFinding("gpu-1", 1, {}, "train-1")}, config);
  history.stamp(second, 160);
  REQUIRE(second.size() == 1);
  CHECK(second[0].id == first[0].id);
  CHECK(second[0].first_seen == 100);
  CHECK(second[0].last_seen == 160);
}

TEST_CASE("no findings, no advice", "[advice]") {
  CHECK(advice::recommend({}, config::Config{}).empty());
}

TEST_CASE("hoarding advice says when the nodes without GPUs lack room for the pods to move",
          "[advice][gpu-node-hoarding]") {
  const analysis::Finding base = hoardingFinding("gpu-1", 3, {}, "train-1");
  const auto adviceWithRoomFor = [&](std::size_t with_room) {
    auto evidence = base.evidenceAs<analysis::GpuNodeHoardingEvidence>();
    evidence.pods_to_move = 5;
    evidence.pods_to_move_with_room = with_room;
    analysis::Finding f = analysis::findingOf(std::move(evidence));
    f.severity = base.severity;
    f.target = base.target;
    auto recs = advice::recommend({f}, config::Config{});
    REQUIRE(recs.size() == 1);
    return recs.front();
  };
  CHECK(adviceWithRoomFor(5).action.find("room for only") == std::string::npos);
  const advice::Recommendation tight = adviceWithRoomFor(2);
  CHECK(tight.action.find("room for only 2 of the 5 pods to move") != std::string::npos);
  CHECK(tight.evidence["pods_to_move_with_room"] == 2);
}
