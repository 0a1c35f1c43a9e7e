#include <catch2/catch.hpp>

#include "replay/replay.h"
#include "replay_builders.h"

using namespace dagadvisor;
using namespace dagadvisor::testing;

namespace {

// 320 nodes in three pools (a tainted GPU pool, two CPU pools most pods select), more pods
// than fit at once, and runs whose tasks wait for their parents: kube-scheduler looks for 153
// feasible nodes per pod (percentageOfNodesToScore) where a pod may use more, pods park and
// come back.
replay::ReplayInput contendedPools() {
  replay::ReplayInput in;
  in.window_end = 20000;
  const model::Taint taint{"nvidia.com/gpu", "present", "NoSchedule"};
  for (int i = 0; i < 320; ++i) {
    const bool gpu = i % 8 == 0;
    auto node = replayNode("node-" + std::to_string(i), 8, 32, gpu ? 4 : 0);
    node.labels.set("kubernetes.io/hostname", node.name);
    node.labels.set("pool", gpu ? "gpu" : (i % 3 == 0 ? "cpu-b" : "cpu-a"));
    if (gpu) {
      node.taints.push_back(taint);
    }
    in.nodes.push_back(node);
  }
  for (int r = 0; r < 220; ++r) {
    const bool gpu = r % 5 == 0;
    std::vector<replay::ReplayPod> tasks;
    for (int t = 0; t < 4; ++t) {
      auto p = replayPod("run-" + std::to_string(r) + "-" + std::to_string(t), gpu ? 6 : 3,
                         gpu ? 16 : 8, 7.0 * r, 200 + 37 * ((r + t) % 9), gpu ? 4 : 0);
      if (gpu) {
        p.tolerations.push_back(
            {"nvidia.com/gpu", replay::TolerationOp::kExists, "", "NoSchedule"});
      } else if (r % 3 != 0) {
        p.node_selector.emplace_back("pool", r % 2 == 0 ? "cpu-a" : "cpu-b");
      }
      p.priority = r % 3 == 0 ? 100 : 0;
      tasks.push_back(p);
    }
    addReplayRun(in, "ns/dag/run-" + std::to_string(r), tasks, {{0, 1}, {0, 2}, {1, 3}, {2, 3}});
  }
  return in;
}

// The same window with every pod's placement naming the hostname label (a requirement every
// node meets): the replay then filters each pod node by node, without any shortcut per pool.
replay::ReplayInput nodeByNode(replay::ReplayInput in) {
  replay::LabelSelector any_host;
  any_host.requirements.push_back({"kubernetes.io/hostname", replay::SelectorOp::kExists, {}});
  for (replay::ReplayPod& p : in.pods) {
    p.node_affinity.terms.push_back(any_host);
  }
  return in;
}

}  // namespace

TEST_CASE("filtering per pool and skipping attempts nothing changed for replay node by node") {
  const replay::ReplayInput pooled = contendedPools();
  const replay::ReplayInput per_node = nodeByNode(pooled);
  for (const bool prefer_observed : {true, false}) {
    replay::SchedulerProfile profile;
    profile.prefer_observed_node = prefer_observed;
    auto fast = replay::replay(pooled, profile);
    auto reference = replay::replay(per_node, profile);
    REQUIRE(fast.ok());
    REQUIRE(reference.ok());
    CHECK(fast->attempts == reference->attempts);
    CHECK(fast->attempts > pooled.pods.size());  // pods did wait and come back
    CHECK(fast->preemptions == reference->preemptions);
    CHECK(fast->preemptions > 0);
    for (std::size_t i = 0; i < pooled.pods.size(); ++i) {
      INFO("pod " << pooled.pods[i].name);
      CHECK(fast->pods[i].node == reference->pods[i].node);
      CHECK(fast->pods[i].bound == reference->pods[i].bound);
      CHECK(fast->pods[i].failed_attempts == reference->pods[i].failed_attempts);
    }
  }
}
