#include "replay/scope.h"

#include <catch2/catch.hpp>

#include "replay/change_set.h"
#include "replay/replay.h"
#include "replay_builders.h"

using namespace dagadvisor;
using namespace dagadvisor::testing;

namespace {

const model::Taint kPoolTaint{"nvidia.com/gpu", "present", "NoSchedule"};
const replay::Toleration kPoolToleration{"nvidia.com/gpu", replay::TolerationOp::kExists, "",
                                         "NoSchedule"};

replay::ReplayNode inPoolNamed(replay::ReplayNode node, const std::string& pool) {
  node.labels.set("pool", pool);
  node.labels.set("kubernetes.io/hostname", node.name);
  return node;
}

replay::ReplayPod inPool(replay::ReplayPod pod, const std::string& pool) {
  pod.node_selector.emplace_back("pool", pool);
  return pod;
}

// Two pools no pod can cross: tainted GPU nodes only GPU tasks tolerate, and CPU nodes the
// CPU pods select. One run per pool.
replay::ReplayInput twoPools() {
  replay::ReplayInput in;
  in.window_end = 5000;
  for (const char* name : {"gpu-1", "gpu-2"}) {
    auto node = inPoolNamed(replayNode(name, 16, 128, 4), "gpu");
    node.taints.push_back(kPoolTaint);
    in.nodes.push_back(node);
  }
  for (const char* name : {"cpu-1", "cpu-2", "cpu-3"}) {
    in.nodes.push_back(inPoolNamed(replayNode(name, 8, 32), "cpu"));
  }
  auto train = replayPod("train", 8, 32, 0, 600, 4);
  train.tolerations.push_back(kPoolToleration);
  auto evaluate = replayPod("evaluate", 8, 32, 0, 300, 4);
  evaluate.tolerations.push_back(kPoolToleration);
  addReplayRun(in, "ml/train/run-1", {train, evaluate}, {{0, 1}});
  addReplayRun(in, "etl/report/run-1",
               {inPool(replayPod("extract", 6, 8, 0, 200), "cpu"),
                inPool(replayPod("load", 6, 8, 0, 200), "cpu")},
               {{0, 1}});
  for (int i = 0; i < 4; ++i) {
    in.pods.push_back(inPool(replayPod("batch-" + std::to_string(i), 6, 8, 10.0 * i, 400), "cpu"));
  }
  return in;
}

replay::ReplayInput withChanges(const replay::ReplayInput& in, const replay::ChangeSet& set) {
  replay::ReplayInput out = in;
  REQUIRE(applyChanges(out, set).ok());
  return out;
}

replay::ChangeSet gpuPodsFirst() {
  replay::PodMatch gpu_pods;
  gpu_pods.requesting_gpus = true;
  return {{replay::SetPriority{gpu_pods, "dag-critical", 1000, false}}};
}

}  // namespace

TEST_CASE("a change to one pool reaches that pool and its runs, not the pool no pod shares") {
  const auto in = twoPools();
  const auto scope = replay::scopeOfChange(in, withChanges(in, gpuPodsFirst()));
  CHECK_FALSE(scope.whole);
  CHECK(scope.nodes == std::vector<replay::ReplayNodeId>{0, 1});
  CHECK(scope.pods == std::vector<replay::ReplayPodId>{0, 1});
  CHECK(scope.runs == std::vector<replay::ReplayRunId>{0});
}

TEST_CASE("a pod that could run in both pools joins them into one reach") {
  auto in = twoPools();
  auto flexible = replayPod("flexible", 1, 1, 0, 60);
  flexible.tolerations.push_back(kPoolToleration);
  in.pods.push_back(flexible);
  const auto scope = replay::scopeOfChange(in, withChanges(in, gpuPodsFirst()));
  CHECK(scope.whole);
  CHECK(scope.pods.size() == in.pods.size());
}

TEST_CASE("a node edit reaches the pods that could use the node before or after it") {
  const auto in = twoPools();
  // Tainting cpu-3 keeps the CPU pods off it: they are reached, the GPU pool is not.
  const replay::ChangeSet taint{{replay::AddNodeTaint{{{"cpu-3"}, {}}, kPoolTaint}}};
  const auto scope = replay::scopeOfChange(in, withChanges(in, taint));
  CHECK_FALSE(scope.whole);
  CHECK(scope.nodes == std::vector<replay::ReplayNodeId>{2, 3, 4});
  CHECK(scope.runs == std::vector<replay::ReplayRunId>{1});
  CHECK(scope.pods.size() == 6);
}

TEST_CASE("a pod pinned to one node by its hostname is checked against that node alone") {
  auto in = twoPools();
  auto pinned = replayPod("pinned", 1, 1, 0, 60);
  pinned.tolerations.push_back(kPoolToleration);
  pinned.node_selector.emplace_back("kubernetes.io/hostname", "gpu-2");
  in.pods.push_back(pinned);  // it tolerates the CPU pool too, but may only use gpu-2
  const auto scope = replay::scopeOfChange(in, withChanges(in, gpuPodsFirst()));
  CHECK_FALSE(scope.whole);
  CHECK(scope.pods == std::vector<replay::ReplayPodId>{0, 1, 8});
}

TEST_CASE("a change that edits nothing the replay reads reaches nothing") {
  const auto in = twoPools();
  const auto scope = replay::scopeOfChange(in, in);
  CHECK(scope.nodes.empty());
  CHECK(scope.pods.empty());
  CHECK_FALSE(scope.whole);
}

TEST_CASE("a pool replayed alone places its pods as the whole window does") {
  const auto in = twoPools();
  const auto after = withChanges(in, gpuPodsFirst());
  const auto scope = replay::scopeOfChange(in, after);
  const auto restricted = replay::restrictTo(in, scope);
  REQUIRE(restricted.pods.size() == 2);
  CHECK(restricted.scheduler_nodes == in.nodes.size());
  CHECK(restricted.pods[1].parents == std::vector<replay::ReplayPodId>{0});
  CHECK(restricted.runs.front().tasks == std::vector<replay::ReplayPodId>{0, 1});
  auto whole = replay::replay(in);
  auto alone = replay::replay(restricted);
  REQUIRE(whole.ok());
  REQUIRE(alone.ok());
  for (std::size_t i = 0; i < scope.pods.size(); ++i) {
    const auto& w = whole->pods[scope.pods[i]];
    const auto& a = alone->pods[i];
    CHECK(a.bound == w.bound);
    CHECK(a.finished == w.finished);
    REQUIRE(a.node);
    CHECK(restricted.nodes[*a.node].name == in.nodes[*w.node].name);
  }
  CHECK(alone->runs.front().makespan == whole->runs.front().makespan);
}
