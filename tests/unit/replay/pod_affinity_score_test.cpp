#include "replay/pod_affinity_score.h"

#include <catch2/catch.hpp>

#include "replay/scope.h"
#include "replay_builders.h"

using namespace dagadvisor;
using namespace dagadvisor::testing;

namespace {

replay::PreferredPodAffinityTerm batchTerm(bool anti, const std::string& topology_key) {
  return {100, anti, replay::LabelSelector::equals({{"app", "batch"}}), topology_key};
}

replay::ReplayPod batchPod(const std::string& name) {
  replay::ReplayPod p = replayPod(name, 1, 1, 0, 10);
  p.labels.set("app", "batch");
  return p;
}

struct ThreeNodes {
  std::vector<replay::ReplayNode> nodes = {replayNode("n0", 8, 8), replayNode("n1", 8, 8),
                                           replayNode("n2", 8, 8)};
  std::vector<replay::NodeState> states = std::vector<replay::NodeState>(3);
  std::vector<replay::ReplayPod> pods;
  std::vector<replay::ReplayNodeId> feasible = {0, 1, 2};

  void bind(replay::ReplayPod pod, replay::ReplayNodeId node) {
    states[node].add(static_cast<replay::ReplayPodId>(pods.size()), pod.requests);
    pods.push_back(std::move(pod));
  }
  std::vector<std::int64_t> scores(const replay::ReplayPod& pod) const {
    return replay::interPodAffinityScores(pod, feasible, nodes, states, pods);
  }
};

}  // namespace

// Expected figures worked out by hand from kube-scheduler's InterPodAffinity (Score, then
// NormalizeScore: (raw − min) × 100 / (max − min)).
TEST_CASE("InterPodAffinity: anti-affinity per node, normalised over the feasible nodes") {
  ThreeNodes c;
  c.bind(batchPod("a"), 0);
  c.bind(batchPod("b"), 0);
  c.bind(batchPod("c"), 1);
  replay::ReplayPod other = replayPod("other-app", 1, 1, 0, 10);
  c.bind(other, 2);  // matches no selector
  replay::ReplayPod incoming = batchPod("new");
  incoming.preferred_pod_affinity = {batchTerm(true, "kubernetes.io/hostname")};
  // raw −200, −100, 0 → 0, 50, 100.
  CHECK(c.scores(incoming) == std::vector<std::int64_t>{0, 50, 100});

  incoming.preferred_pod_affinity = {batchTerm(false, "kubernetes.io/hostname")};
  CHECK(c.scores(incoming) == std::vector<std::int64_t>{100, 50, 0});
}

TEST_CASE("InterPodAffinity: the bound pods' own terms score the incoming pod (symmetry)") {
  ThreeNodes c;
  replay::ReplayPod holder = batchPod("holder");
  holder.preferred_pod_affinity = {batchTerm(true, "kubernetes.io/hostname")};
  c.bind(holder, 1);
  // The incoming pod has no term; it matches the holder's, so the holder's node scores lowest.
  CHECK(c.scores(batchPod("new")) == std::vector<std::int64_t>{100, 0, 100});
  // Another namespace is outside the term (it names no namespaces: the holder's own).
  replay::ReplayPod elsewhere = batchPod("elsewhere");
  elsewhere.namespace_ = "other";
  CHECK(c.scores(elsewhere) == std::vector<std::int64_t>{0, 0, 0});
}

TEST_CASE("InterPodAffinity: a zone term scores every node of the zone; no label, no domain") {
  ThreeNodes c;
  c.nodes[0].labels.set("topology.kubernetes.io/zone", "a");
  c.nodes[1].labels.set("topology.kubernetes.io/zone", "a");  // n2 has no zone label
  c.bind(batchPod("parent"), 0);
  replay::ReplayPod child = batchPod("child");
  child.preferred_pod_affinity = {batchTerm(false, "topology.kubernetes.io/zone")};
  CHECK(c.scores(child) == std::vector<std::int64_t>{100, 100, 0});
}

TEST_CASE("a preferred pod affinity alone is a change the replay's scope sees") {
  replay::ReplayInput before;
  before.window_end = 100;
  before.nodes = {replayNode("n0", 8, 8), replayNode("n1", 8, 8)};
  before.pods = {batchPod("p")};
  replay::ReplayInput after = before;
  after.pods[0].preferred_pod_affinity = {batchTerm(true, "kubernetes.io/hostname")};
  CHECK(replay::scopeOfChange(before, before).pods.empty());
  CHECK(replay::scopeOfChange(before, after).pods == std::vector<replay::ReplayPodId>{0});
}
