#include <catch2/catch.hpp>

#include "replay/filter.h"
#include "replay/score.h"
#include "replay_builders.h"

using namespace dagadvisor;
using namespace dagadvisor::testing;
using replay::FilterResult;

TEST_CASE("NodeResourcesFit checks only the resources a pod requests") {
  const replay::ReplayNode node = replayNode("n", 4, 8, 1);
  replay::NodeState state;
  state.add(0, {4000, 2 * kGiB, 1});  // CPU and the GPU taken
  CHECK(replay::filterNode(replayPod("mem-only", 0, 4, 0, 1), node, state) == FilterResult::kFits);
  CHECK(replay::filterNode(replayPod("cpu", 0.1, 1, 0, 1), node, state) ==
        FilterResult::kInsufficient);
  CHECK(replay::filterNode(replayPod("gpu", 0, 1, 0, 1, 1), node, state) ==
        FilterResult::kInsufficient);
  CHECK(replay::filterNode(replayPod("too-much-memory", 0, 7, 0, 1), node, state) ==
        FilterResult::kInsufficient);
}

TEST_CASE("a node at its pod limit takes no pod however small") {
  replay::ReplayNode node = replayNode("n", 4, 8);
  node.max_pods = 1;
  replay::NodeState state;
  state.add(0, {});
  CHECK(replay::filterNode(replayPod("p", 0.1, 0.1, 0, 1), node, state) ==
        FilterResult::kTooManyPods);
  CHECK(replay::resolvable(FilterResult::kTooManyPods));
}

TEST_CASE("static filters: cordon, node selector, affinity and untolerated hard taints") {
  replay::ReplayNode node = replayNode("n", 4, 8);
  node.labels.set("node-type", "gpu");
  replay::ReplayPod pod = replayPod("p", 1, 1, 0, 1);
  CHECK(replay::filterStatic(pod, node) == FilterResult::kFits);

  node.taints.push_back({"dedicated", "gpu", "PreferNoSchedule"});
  CHECK(replay::filterStatic(pod, node) == FilterResult::kFits);  // only scores
  node.taints.push_back({"dedicated", "gpu", "NoExecute"});
  CHECK(replay::filterStatic(pod, node) == FilterResult::kTaint);
  CHECK_FALSE(replay::resolvable(FilterResult::kTaint));
  pod.tolerations.push_back({"dedicated", replay::TolerationOp::kEqual, "gpu", "NoExecute"});
  CHECK(replay::filterStatic(pod, node) == FilterResult::kFits);

  pod.node_selector = {{"node-type", "cpu"}};
  CHECK(replay::filterStatic(pod, node) == FilterResult::kNodeAffinity);
  pod.node_selector = {{"node-type", "gpu"}};
  pod.node_affinity.terms.push_back(replay::LabelSelector::equals({{"zone", "a"}}));
  CHECK(replay::filterStatic(pod, node) == FilterResult::kNodeAffinity);
  pod.node_affinity.terms.clear();
  node.unschedulable = true;
  CHECK(replay::filterStatic(pod, node) == FilterResult::kUnschedulableNode);
}

// Expected figures worked out by hand from kube-scheduler's documented formulas.
TEST_CASE("LeastAllocated: mean over cpu and memory of the free share after the pod, ×100") {
  const replay::ReplayNode node = replayNode("n", 4, 8);
  replay::NodeState state;
  state.add(0, {1000, 2 * kGiB, 0});
  // cpu (4000 − 2000)·100/4000 = 50, memory (8 − 6)·100/8 = 25 → 37 (integer mean).
  CHECK(replay::leastAllocatedScore(replayPod("p", 1, 4, 0, 1), node, state) == 37);
}

TEST_CASE("LeastAllocated counts 100m and 200 MiB for a pod requesting nothing") {
  const replay::ReplayNode node = replayNode("n", 1, 1);
  replay::NodeState state;
  // cpu (1000 − 100)·100/1000 = 90; memory (1024 − 200)·100/1024 = 80 → 85.
  CHECK(replay::leastAllocatedScore(replayPod("best-effort", 0, 0, 0, 1), node, state) == 85);
  state.add(0, {});
  CHECK(state.non_zero_requested.cpu_millis == 100);
  CHECK(state.requested.cpu_millis == 0);
}

TEST_CASE("BalancedAllocation: (1 − |cpu share − memory share| / 2) × 100") {
  const replay::ReplayNode node = replayNode("n", 4, 8);
  replay::NodeState state;
  // after the pod: cpu 2/4 = 0.5, memory 2/8 = 0.25 → std 0.125 → 87.
  CHECK(replay::balancedAllocationScore(replayPod("p", 2, 2, 0, 1), node, state) == 87);
  // shares capped at 1: cpu 1, memory 0.5 → 75.
  CHECK(replay::balancedAllocationScore(replayPod("big", 8, 4, 0, 1), node, state) == 75);
  CHECK(replay::balancedAllocationScore(replayPod("none", 0, 0, 0, 1), node, state) == 0);
}

TEST_CASE("scores weigh TaintToleration 3, normalised so fewer PreferNoSchedule taints win") {
  std::vector<replay::ReplayNode> nodes = {replayNode("clean", 4, 8), replayNode("soft", 4, 8)};
  nodes[1].taints.push_back({"spot", "true", "PreferNoSchedule"});
  const std::vector<replay::NodeState> states(2);
  const replay::ReplayPod pod = replayPod("p", 2, 4, 0, 1);
  const std::vector<replay::ReplayNodeId> feasible = {0, 1};
  const std::vector<replay::ReplayPod> pods;
  const auto scores = replay::scoreNodes(pod, feasible, {nodes, states, pods});
  // Both: LeastAllocated 50, Balanced 100; TaintToleration 100 vs 0, weighted 3.
  CHECK(scores[0] == 50 + 100 + 300);
  CHECK(scores[1] == 50 + 100 + 0);
}

TEST_CASE("percentageOfNodesToScore: all nodes below 100, then adaptive, at least 100") {
  CHECK(replay::feasibleNodesToFind(50, 0) == 50);
  CHECK(replay::feasibleNodesToFind(99, 0) == 99);
  // 50 % − 1000/125 % = 42 % of 1000.
  CHECK(replay::feasibleNodesToFind(1000, 0) == 420);
  // 5,000 nodes: 50 − 40 = 10 % → 500.
  CHECK(replay::feasibleNodesToFind(5000, 0) == 500);
  // 10,000 nodes: 50 − 80 < 5, so 5 % → 500.
  CHECK(replay::feasibleNodesToFind(10000, 0) == 500);
  CHECK(replay::feasibleNodesToFind(150, 10) == 100);  // never fewer than 100
  CHECK(replay::feasibleNodesToFind(5000, 100) == 5000);
}
