#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "model/cluster.h"

namespace dagadvisor::model {
namespace {

ClusterSnapshot snapshotOf(int pods) {
  std::vector<Node> nodes(1);
  nodes[0].name = "n1";
  ClusterSnapshot::Pods all(static_cast<std::size_t>(pods));
  for (int i = 0; i < pods; ++i) {
    all[static_cast<std::size_t>(i)].namespace_ = "ns";
    all[static_cast<std::size_t>(i)].name = "p" + std::to_string(i);
  }
  return ClusterSnapshot(100, std::move(nodes), std::move(all));
}

TEST_CASE("takePods moves the pods out once their snapshot is gone, and copies them before",
          "[model]") {
  std::shared_ptr<const ClusterSnapshot::Pods> shared;
  const Pod* storage = nullptr;
  {
    const ClusterSnapshot snapshot = snapshotOf(3);
    shared = snapshot.sharedPods();
    storage = snapshot.pods().data();

    ClusterSnapshot::Pods copied = ClusterSnapshot::takePods(std::shared_ptr(shared));
    CHECK(copied.data() != storage);  // the snapshot still holds them
    REQUIRE(copied.size() == 3);
    CHECK(copied[2].name == "p2");
    CHECK(snapshot.pods()[2].name == "p2");
  }
  ClusterSnapshot::Pods moved = ClusterSnapshot::takePods(std::move(shared));
  CHECK(moved.data() == storage);  // the same storage: nothing copied
  REQUIRE(moved.size() == 3);
  CHECK(moved[0].name == "p0");
  CHECK(ClusterSnapshot::takePods(nullptr).empty());
}

TEST_CASE("a pod's node id is checked against its node's name, not trusted", "[model]") {
  std::vector<Node> nodes(2);
  nodes[0].name = "n0";
  nodes[1].name = "n1";
  ClusterSnapshot::Pods pods(4);
  const char* node_names[] = {"n1", "n0", "gone", ""};
  const NodeId ids[] = {1, 1, 0, kNoNode};  // kept from a snapshot whose nodes were others
  for (std::size_t i = 0; i < pods.size(); ++i) {
    pods[i].namespace_ = "ns";
    pods[i].name = "p" + std::to_string(i);
    pods[i].node_name = node_names[i];
    pods[i].node = ids[i];
    pods[i].phase = PodPhase::kRunning;
  }
  const ClusterSnapshot snapshot(100, std::move(nodes), std::move(pods));
  CHECK(snapshot.pod(0).node == 1);        // still right
  CHECK(snapshot.pod(1).node == 0);        // n0 has another id now
  CHECK(snapshot.pod(2).node == kNoNode);  // its node is not in the snapshot
  CHECK(snapshot.pod(3).node == kNoNode);
  CHECK(snapshot.podsOn(0).size() == 1);
  CHECK(snapshot.podsOn(1).size() == 1);
}

TEST_CASE("a copied snapshot has pods of its own", "[model]") {
  const ClusterSnapshot original = snapshotOf(2);
  ClusterSnapshot copy = original;
  CHECK(copy.pods().data() != original.pods().data());
  CHECK(copy.pods()[1].name == "p1");
  SchedulingSpecs specs;
  PendingPodSpec spec;
  spec.namespace_ = "ns";
  spec.name = "p1";
  spec.priority_class = "high";
  specs.pending_pods.emplace({spec});
  copy.joinSchedulingSpecs(std::move(specs));
  CHECK(copy.pods()[1].priority_class == "high");
  CHECK(original.pods()[1].priority_class.empty());
}

TEST_CASE("podsIn lists each namespace's pods, whatever order the pods came in", "[model]") {
  ClusterSnapshot::Pods pods(4);
  const char* namespaces[] = {"ml", "etl", "ml", "etl"};
  for (std::size_t i = 0; i < pods.size(); ++i) {
    pods[i].namespace_ = namespaces[i];
    pods[i].name = "p" + std::to_string(i);
  }
  const ClusterSnapshot snapshot(100, {}, std::move(pods));
  CHECK(snapshot.podsIn("ml") == std::vector<PodId>{0, 2});
  CHECK(snapshot.podsIn("etl") == std::vector<PodId>{1, 3});
  CHECK(snapshot.podsIn("web").empty());
  const ClusterSnapshot copy = snapshot;
  CHECK(copy.podsIn("etl") == std::vector<PodId>{1, 3});
}

}  // namespace
}  // namespace dagadvisor::model
