#include "advice/pod_owners.h"

#include <catch2/catch.hpp>
#include <string>
#include <utility>
#include <vector>

namespace dagadvisor::advice {
namespace {

model::Pod podOf(std::string namespace_, std::string name, std::string owner_kind,
                 std::string owner_name, model::PodPhase phase = model::PodPhase::kRunning) {
  model::Pod pod;
  pod.namespace_ = std::move(namespace_);
  pod.name = std::move(name);
  pod.owner_kind = std::move(owner_kind);
  pod.owner_name = std::move(owner_name);
  pod.phase = phase;
  return pod;
}

model::ClusterSnapshot snapshotOf(model::ClusterSnapshot::Pods pods) {
  return model::ClusterSnapshot(100, {}, std::move(pods));
}

std::vector<std::string> namesOf(const std::optional<PodSelection>& selection) {
  return selection ? selection->names : std::vector<std::string>{};
}

TEST_CASE("podsOfEach answers each object as podsOf does, reading each namespace once",
          "[advice]") {
  model::ClusterSnapshot::Pods pods;
  pods.push_back(podOf("shop", "web-7d9f8-b2x", "ReplicaSet", "web-7d9f8"));
  pods.push_back(podOf("shop", "web-7d9f8-q4z", "ReplicaSet", "web-7d9f8"));
  pods.push_back(podOf("shop", "web-7d9f8-old", "ReplicaSet", "web-7d9f8",
                       model::PodPhase::kSucceeded));  // not live
  pods.push_back(podOf("shop", "cache-0", "StatefulSet", "cache"));
  pods.push_back(podOf("shop", "debug", "<none>", ""));
  pods.push_back(podOf("other", "web-5c6b7-zz", "ReplicaSet", "web-5c6b7"));
  pods.push_back(podOf("other", "lone-abc", "ReplicaSet", "lone-abc"));  // no hash: a ReplicaSet
  const model::ClusterSnapshot cluster = snapshotOf(std::move(pods));

  const std::vector<PatchObject> objects = {
      {"apps/v1", "Deployment", "shop", {"web", "web"}},  // a name twice selects each pod once
      {"apps/v1", "StatefulSet", "shop", {"cache"}},
      {"v1", "Pod", "shop", {"debug"}},
      {"apps/v1", "Deployment", "other", {"web"}},
      {"apps/v1", "ReplicaSet", "other", {"lone-abc"}},
      {"apps/v1", "Deployment", "shop", {"cache"}},  // the right name, the wrong kind
      {"apps/v1", "Deployment", "nowhere", {"web"}},
  };
  const std::vector<std::optional<PodSelection>> each = podsOfEach(cluster, objects);
  REQUIRE(each.size() == objects.size());
  CHECK(namesOf(each[0]) == std::vector<std::string>{"web-7d9f8-b2x", "web-7d9f8-q4z"});
  CHECK(namesOf(each[1]) == std::vector<std::string>{"cache-0"});
  CHECK(namesOf(each[2]) == std::vector<std::string>{"debug"});
  CHECK(namesOf(each[3]) == std::vector<std::string>{"web-5c6b7-zz"});
  CHECK(namesOf(each[4]) == std::vector<std::string>{"lone-abc"});
  CHECK_FALSE(each[5].has_value());
  CHECK_FALSE(each[6].has_value());
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const std::optional<PodSelection> alone = podsOf(cluster, objects[i]);
    CHECK(namesOf(alone) == namesOf(each[i]));
    if (alone) {
      CHECK(alone->namespace_ == objects[i].namespace_);
    }
  }
}

TEST_CASE("workloadOfPod gives a ReplicaSet's pods to their Deployment only by its hash",
          "[advice]") {
  model::Pod pod = podOf("shop", "web-7d9f8-b2x", "ReplicaSet", "web-7d9f8");
  CHECK(workloadOfPod(pod).kind == "Deployment");
  CHECK(workloadOfPod(pod).name == "web");
  pod.labels.set("pod-template-hash", "other");  // the label says the suffix is not the hash
  CHECK(workloadOfPod(pod).kind == "ReplicaSet");
  CHECK(workloadOfPod(pod).name == "web-7d9f8");
  CHECK(workloadOfPod(podOf("shop", "debug", "", "")).kind == "Pod");
  CHECK(workloadOfPod(podOf("shop", "debug", "", "")).name == "debug");
}

}  // namespace
}  // namespace dagadvisor::advice
