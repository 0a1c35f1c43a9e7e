#include "analysis/pending_diagnosis.h"

#include <catch2/catch.hpp>
#include <set>

#include "ingestion/scrape_eval.h"
#include "support/builders.h"
#include "support/test_support.h"

using namespace dagadvisor;
using analysis::GpuNodeHold;
using analysis::PendingCause;
using testing::makeNode;
using testing::makePod;
using testing::ownedBy;

namespace {

// The cause of the pending pod `name` (every pod of these tests is in namespace "ml").
PendingCause causeOf(const analysis::PendingDiagnosis& d, const model::ClusterSnapshot& cluster,
                     const std::string& name) {
  for (const analysis::PendingPodDiagnosis& p : d.pods) {
    if (cluster.pod(p.pod).name == name) {
      return p.cause;
    }
  }
  FAIL("no pending pod " << name);
  return PendingCause::kQueue;
}

model::Node tainted(const std::string& name, double cores, std::int64_t gpus,
                    const std::string& key) {
  return makeNode(name, cores, 64, gpus, [&](model::Node& n) {
    n.taints.push_back({key, "present", "NoSchedule"});
  });
}

// Two 16-core nodes with 12 cores requested each: 4 + 4 cores free.
std::vector<model::Pod> busyPods() {
  return {makePod("x", "s1", "a", 12, 8), makePod("x", "s2", "b", 12, 8)};
}

}  // namespace

TEST_CASE("a pod that fits a node now waits for the scheduler only", "[pending-diagnosis]") {
  auto pods = busyPods();
  pods.push_back(makePod("ml", "small", "", 3, 8));
  model::ClusterSnapshot cluster(5000, {makeNode("a", 16, 64), makeNode("b", 16, 64)}, pods);
  const auto d = analysis::diagnosePending(cluster);
  CHECK(causeOf(d, cluster, "small") == PendingCause::kQueue);
  CHECK(d.pods[0].node == *cluster.findNode("a"));
}

TEST_CASE("queued pods draw the room down: each free slot holds one of them",
          "[pending-diagnosis]") {
  auto pods = busyPods();
  for (const char* name : {"p1", "p2", "p3"}) {
    pods.push_back(makePod("ml", name, "", 4, 8));  // 4 free cores on each of two nodes
  }
  model::ClusterSnapshot cluster(5000, {makeNode("a", 16, 64), makeNode("b", 16, 64)}, pods);
  const auto d = analysis::diagnosePending(cluster);
  CHECK(d.count(PendingCause::kQueue) == 2);
  CHECK(d.count(PendingCause::kCapacity) == 1);  // no room is left anywhere, even pooled
  CHECK(d.pool_left.cpu_millis == 0);
}

TEST_CASE("a pod that fits only a node whose taint it does not tolerate is held by constraints",
          "[pending-diagnosis]") {
  std::vector<model::Node> nodes = {makeNode("a", 16, 64), tainted("infra", 16, 0, "dedicated")};
  std::vector<model::Pod> pods = {makePod("x", "s1", "a", 12, 8),
                                  makePod("ml", "job-1", "", 8, 8, 0, ownedBy("Job", "etl"))};
  SECTION("no pod of its owner ever sat on the tainted node") {
    model::ClusterSnapshot cluster(5000, nodes, pods);
    const auto d = analysis::diagnosePending(cluster);
    CHECK(causeOf(d, cluster, "job-1") == PendingCause::kConstraints);
    CHECK(d.pods[0].node == *cluster.findNode("infra"));
  }
  SECTION("a pod of the same Job runs there: the toleration is inferred, the pod is queued") {
    pods.push_back(makePod("ml", "job-0", "infra", 2, 8, 0, ownedBy("Job", "etl")));
    model::ClusterSnapshot cluster(5000, nodes, pods);
    CHECK(causeOf(analysis::diagnosePending(cluster), cluster, "job-1") == PendingCause::kQueue);
  }
  SECTION("a pod of another namespace's Job of that name is no evidence") {
    pods.push_back(makePod("other", "job-0", "infra", 2, 8, 0, ownedBy("Job", "etl")));
    model::ClusterSnapshot cluster(5000, nodes, pods);
    CHECK(causeOf(analysis::diagnosePending(cluster), cluster, "job-1") ==
          PendingCause::kConstraints);
  }
}

TEST_CASE("GPU pods tolerate the nvidia.com/gpu taint (ExtendedResourceToleration)",
          "[pending-diagnosis]") {
  model::ClusterSnapshot cluster(5000, {tainted("gpu-1", 16, 4, "nvidia.com/gpu")},
                                 {makePod("ml", "train", "", 8, 8, 1)});
  CHECK(causeOf(analysis::diagnosePending(cluster), cluster, "train") == PendingCause::kQueue);
  model::ClusterSnapshot other(5000, {tainted("gpu-1", 16, 4, "dedicated")},
                               {makePod("ml", "train", "", 8, 8, 1)});
  CHECK(causeOf(analysis::diagnosePending(other), other, "train") == PendingCause::kConstraints);
}

TEST_CASE("a GPU pod that fits once movable non-GPU pods leave is hoarding",
          "[pending-diagnosis]") {
  // gpu-1: 16 cores, 4 GPUs; a DaemonSet (4 cores) and a web pod (10 cores) hold 14 of them.
  model::ClusterSnapshot cluster(
      5000, {makeNode("gpu-1", 16, 64, 4), makeNode("cpu-1", 32, 128)},
      {makePod("logging", "agent", "gpu-1", 4, 1, 0, ownedBy("DaemonSet", "agent")),
       makePod("web", "api", "gpu-1", 10, 8, 0, ownedBy("ReplicaSet", "api-1")),
       makePod("ml", "train", "", 8, 16, 1)});
  const auto d = analysis::diagnosePending(cluster);
  CHECK(causeOf(d, cluster, "train") == PendingCause::kHoarding);
  REQUIRE(d.gpu_nodes.size() == 1);
  CHECK(d.gpu_nodes[0].hold == GpuNodeHold::kMovable);
  CHECK(d.gpu_nodes[0].gpus_unblocked == 1);
  CHECK(d.gpu_nodes[0].movable.cpu_millis == 10'000);
  CHECK(d.gpu_nodes[0].non_gpu.cpu_millis == 14'000);
  CHECK(d.summary().hoarded_nodes == 1);
}

TEST_CASE("a GPU node blocked only by DaemonSets is no hoarding; the advice is their requests",
          "[pending-diagnosis]") {
  // The DaemonSet holds 12 of 16 cores: the 8-core GPU pod would fit only without it.
  model::ClusterSnapshot cluster(
      5000, {makeNode("gpu-1", 16, 64, 4)},
      {makePod("logging", "agent", "gpu-1", 12, 1, 0, ownedBy("DaemonSet", "agent")),
       makePod("ml", "train", "", 8, 16, 1)});
  const auto d = analysis::diagnosePending(cluster);
  CHECK(causeOf(d, cluster, "train") != PendingCause::kHoarding);
  CHECK(d.count(PendingCause::kHoarding) == 0);
  REQUIRE(d.gpu_nodes.size() == 1);
  CHECK(d.gpu_nodes[0].hold == GpuNodeHold::kDaemonSets);
  CHECK(d.gpu_nodes[0].matched.empty());
  CHECK(d.gpu_nodes[0].daemonset_excess.cpu_millis == 4'000);  // 8 needed, 4 free
  CHECK(d.summary().hoarded_nodes == 0);
}

TEST_CASE("GPUs unblocked are a matching: each pod once, several on a node where they fit",
          "[pending-diagnosis]") {
  // Three GPU nodes, each with 2 free cores and a movable 6-core pod: 8 cores of room for one
  // 6-core pod each. Two GPU pods pend: two nodes take one each, the third takes none.
  std::vector<model::Node> nodes;
  std::vector<model::Pod> pods;
  for (const char* n : {"g1", "g2", "g3"}) {
    nodes.push_back(makeNode(n, 16, 64, 4));
    pods.push_back(makePod("web", std::string("api-") + n, n, 6, 8, 0, ownedBy("ReplicaSet", "a")));
    pods.push_back(makePod("ml", std::string("busy-") + n, n, 8, 8, 1, ownedBy("Job", "b")));
  }
  pods.push_back(makePod("ml", "t1", "", 6, 8, 1));
  pods.push_back(makePod("ml", "t2", "", 6, 8, 1));
  model::ClusterSnapshot cluster(5000, nodes, pods);
  const auto d = analysis::diagnosePending(cluster);
  std::set<model::PodId> matched;
  std::size_t listed = 0;
  std::int64_t gpus = 0;
  for (const analysis::GpuNodeDiagnosis& n : d.gpu_nodes) {
    matched.insert(n.matched.begin(), n.matched.end());
    listed += n.matched.size();
    gpus += n.gpus_unblocked;
  }
  CHECK(listed == 2);
  CHECK(matched.size() == 2);  // no pod on two nodes
  CHECK(gpus == 2);
  CHECK(d.count(PendingCause::kHoarding) == 2);
  REQUIRE(d.gpu_nodes.size() == 3);
  CHECK(d.gpu_nodes[2].hold == GpuNodeHold::kMovableUnmatched);

  // A 14-core mover on g1 leaves room for both pods there.
  pods[0].requests.cpu_millis = 14'000;
  pods[1].requests.cpu_millis = 0;
  model::ClusterSnapshot roomy(5000, nodes, pods);
  const auto both = analysis::diagnosePending(roomy);
  REQUIRE_FALSE(both.gpu_nodes.empty());
  CHECK(both.gpu_nodes[0].matched.size() == 2);
  CHECK(both.gpu_nodes[0].gpus_unblocked == 2);
}

TEST_CASE("fragmentation is room the pool has and no node; capacity is room nowhere",
          "[pending-diagnosis]") {
  auto pods = busyPods();
  pods.push_back(makePod("ml", "wide", "", 6, 8));   // 8 pooled cores hold it, no node does
  pods.push_back(makePod("ml", "huge", "", 10, 8));  // more than the 8 pooled cores
  model::ClusterSnapshot cluster(5000, {makeNode("a", 16, 64), makeNode("b", 16, 64)}, pods);
  const auto d = analysis::diagnosePending(cluster);
  CHECK(causeOf(d, cluster, "wide") == PendingCause::kFragmentation);
  CHECK(causeOf(d, cluster, "huge") == PendingCause::kCapacity);
  // The larger pod claims the pool first; it does not fit, so the smaller one still does.
  CHECK(d.pool_left.cpu_millis == 2'000);
}

TEST_CASE("capacity counts what the hoarding moves take: their GPUs are not free for others",
          "[pending-diagnosis]") {
  // gpu-1 has 2 free GPUs and a movable 8-core pod; two 2-GPU pods pend. The first is matched
  // to the freed room; the pool then has no GPU left, so the second is capacity-blocked, not
  // fragmentation (the CPU node's free cores do not make GPUs).
  model::ClusterSnapshot cluster(
      5000, {makeNode("gpu-1", 16, 64, 4), makeNode("cpu-1", 32, 128)},
      {makePod("web", "api", "gpu-1", 8, 8, 0, ownedBy("ReplicaSet", "api-1")),
       makePod("ml", "busy", "gpu-1", 4, 8, 2, ownedBy("Job", "busy")),
       makePod("ml", "t1", "", 8, 8, 2), makePod("ml", "t2", "", 8, 8, 2)});
  const auto d = analysis::diagnosePending(cluster);
  CHECK(d.count(PendingCause::kHoarding) == 1);
  CHECK(d.count(PendingCause::kCapacity) == 1);
  CHECK(d.count(PendingCause::kFragmentation) == 0);
  CHECK(d.pool_left.gpus == 0);
}

TEST_CASE("every pending pod gets exactly one cause", "[pending-diagnosis]") {
  // One pod of each cause on one cluster: a, b and c have 4 cores free; infra (tainted) 6;
  // gpu-1 4 cores and 4 GPUs, with a 12-core pod that can move.
  std::vector<model::Node> nodes = {makeNode("a", 16, 64), makeNode("b", 16, 64),
                                    makeNode("c", 16, 64), tainted("infra", 16, 0, "dedicated"),
                                    makeNode("gpu-1", 16, 64, 4)};
  std::vector<model::Pod> pods = {
      makePod("x", "s1", "a", 12, 8),      makePod("x", "s2", "b", 12, 8),
      makePod("x", "s3", "c", 12, 8),      makePod("x", "s4", "infra", 10, 8),
      makePod("x", "s5", "gpu-1", 12, 8),  makePod("ml", "queued", "", 2, 4),
      makePod("ml", "kept-off", "", 5, 8),  // room only on infra
      makePod("ml", "train", "", 8, 8, 1),  // room on gpu-1 once s5 moves
      makePod("ml", "wide", "", 7, 8),      // 10 pooled cores on a, b, c; no node has 7
      makePod("ml", "huge", "", 40, 8)};
  model::ClusterSnapshot cluster(5000, nodes, pods);
  const auto d = analysis::diagnosePending(cluster);
  REQUIRE(d.pods.size() == cluster.pendingPods().size());
  std::set<model::PodId> seen;
  for (const analysis::PendingPodDiagnosis& p : d.pods) {
    CHECK(seen.insert(p.pod).second);
  }
  std::size_t sum = 0;
  for (std::size_t c = 0; c < analysis::kPendingCauses; ++c) {
    sum += d.counts[c];
    CHECK(d.podsOf(static_cast<PendingCause>(c)).size() == d.counts[c]);
  }
  CHECK(sum == d.pods.size());
  CHECK(causeOf(d, cluster, "queued") == PendingCause::kQueue);
  CHECK(causeOf(d, cluster, "kept-off") == PendingCause::kConstraints);
  CHECK(causeOf(d, cluster, "train") == PendingCause::kHoarding);
  CHECK(causeOf(d, cluster, "wide") == PendingCause::kFragmentation);
  CHECK(causeOf(d, cluster, "huge") == PendingCause::kCapacity);
  const nlohmann::json json = d.summary().toJson();
  CHECK(json["pending_pods"] == 5);
  CHECK(json["queue"] == 1);
  CHECK(json["capacity"] == 1);
}

TEST_CASE("queued pods take their shape's slots: what is left over no repacking can place",
          "[pending-diagnosis]") {
  // Three 16-core nodes, each with a 0.5-core DaemonSet pod and two 4-core pods: 15.5 cores
  // hold three 4-core pods at best, 9 slots. Four 4-core pods pend: three fit a node each now;
  // the fourth fits the pooled 10.5 free cores, but every slot is then taken.
  std::vector<model::Node> nodes;
  std::vector<model::Pod> pods;
  for (const char* n : {"a", "b", "c"}) {
    nodes.push_back(makeNode(n, 16, 64));
    pods.push_back(makePod("kube-system", std::string("agent-") + n, n, 0.5, 1, 0,
                           ownedBy("DaemonSet", "agent")));
    pods.push_back(makePod("batch", std::string("s1-") + n, n, 4, 8));
    pods.push_back(makePod("batch", std::string("s2-") + n, n, 4, 8));
  }
  for (const char* name : {"p1", "p2", "p3", "p4"}) {
    pods.push_back(makePod("ml", name, "", 4, 8));
  }
  model::ClusterSnapshot cluster(5000, nodes, pods);
  const auto d = analysis::diagnosePending(cluster);
  CHECK(d.count(PendingCause::kQueue) == 3);
  CHECK(d.count(PendingCause::kFragmentation) == 0);
  CHECK(d.count(PendingCause::kCapacity) == 1);
}

TEST_CASE("a pod whose node selector excludes the only nodes it fits is held by constraints",
          "[pending-diagnosis]") {
  auto pool = [](const std::string& name, double cores, const std::string& value) {
    return makeNode(name, cores, 64, 0, [&](model::Node& n) { n.labels.set("pool", value); });
  };
  // 4 cores free on the "batch" node, 16 on the "web" one; the pod asks for 8.
  const std::vector<model::Node> nodes = {pool("b1", 16, "batch"), pool("w1", 16, "web")};
  std::vector<model::Pod> pods = {makePod("x", "s1", "b1", 12, 8), makePod("ml", "etl", "", 8, 8)};
  SECTION("selector known: pool=batch leaves it no node with room") {
    pods[1].node_selector.emplace().set("pool", "batch");
    model::ClusterSnapshot cluster(5000, nodes, pods);
    const auto d = analysis::diagnosePending(cluster);
    CHECK(causeOf(d, cluster, "etl") == PendingCause::kConstraints);
    CHECK(d.pods[0].node == *cluster.findNode("w1"));  // the excluded node it would fit
    CHECK(d.count(PendingCause::kCapacity) == 0);
    CHECK(d.checked.node_selectors_known == 1);
  }
  SECTION("selector not known: it is taken to fit the web node") {
    model::ClusterSnapshot cluster(5000, nodes, pods);
    CHECK(causeOf(analysis::diagnosePending(cluster), cluster, "etl") == PendingCause::kQueue);
  }
}

TEST_CASE("the diagnosis says which constraints it could check", "[pending-diagnosis]") {
  std::vector<model::Pod> pods = {makePod("ml", "p", "", 1, 1)};
  SECTION("neither family exported: tolerations inferred, selectors not checked") {
    model::ClusterSnapshot cluster(5000, {makeNode("a", 16, 64)}, pods);
    const auto counts = analysis::diagnosePending(cluster).summary();
    CHECK_FALSE(counts.checked.tolerations_exported);
    const auto json = counts.toJson()["constraints_checked"];
    CHECK(json["node_selectors"]["source"] == "not checked");
    CHECK(json["node_selectors"]["enable"] == "--metric-opt-in-list=kube_pod_nodeselectors");
    CHECK(json["tolerations"]["source"] != "kube_pod_tolerations");
    const std::string text = counts.checked.notChecked();
    CHECK(text.find("--metric-opt-in-list=kube_pod_nodeselectors") != std::string::npos);
    CHECK(text.find("Tolerations were inferred") != std::string::npos);
  }
  SECTION("both exported and read for the pending pod") {
    pods[0].tolerations.emplace();
    pods[0].node_selector.emplace();
    model::ClusterSnapshot cluster(5000, {makeNode("a", 16, 64)}, pods);
    cluster.setSpecFamilies({true, true});
    const auto counts = analysis::diagnosePending(cluster).summary();
    CHECK(counts.checked.tolerations_known == 1);
    CHECK(counts.checked.node_selectors_known == 1);
    const auto json = counts.toJson()["constraints_checked"];
    CHECK(json["node_selectors"]["source"] == "kube_pod_nodeselectors");
    CHECK_FALSE(json["node_selectors"].contains("enable"));
    CHECK(counts.checked.notChecked().find("Node affinity was not checked") == 0);
    CHECK(json["node_affinity"]["source"] == "not checked");
    CHECK(json["node_affinity"]["enable"] == analysis::kAffinitySource);
  }
  SECTION("the pending pods listed through the Kubernetes API: affinity checked") {
    model::ClusterSnapshot cluster(5000, {makeNode("a", 16, 64)}, pods);
    cluster.setSpecFamilies({true, true});
    model::SchedulingSpecs specs;
    specs.pending_pods = std::vector<model::PendingPodSpec>{{"ml", "p", 0, "", {}}};
    cluster.joinSchedulingSpecs(std::move(specs));
    const auto counts = analysis::diagnosePending(cluster).summary();
    CHECK(counts.checked.affinity_listed);
    CHECK(counts.checked.affinity_known == 1);
    CHECK(counts.checked.affinity_pods == 0);
    const auto json = counts.toJson()["constraints_checked"]["node_affinity"];
    CHECK(json["source"] == "Kubernetes API (pending pods)");
    CHECK_FALSE(json.contains("enable"));
    CHECK(counts.checked.notChecked() ==
          "Node affinity was checked for the 1 pending pod(s) the Kubernetes API listed (0 with a "
          "required one).");
  }
}

TEST_CASE("a required node affinity no node with room satisfies is a constraint, and named",
          "[pending-diagnosis][affinity]") {
  auto zoned = [](const std::string& name, const std::string& zone) {
    return makeNode(name, 16, 64, 0,
                    [&](model::Node& n) { n.labels.set("topology.kubernetes.io/zone", zone); });
  };
  const std::vector<model::Node> nodes = {zoned("a1", "a"), zoned("b1", "b")};
  std::vector<model::Pod> pods = {makePod("x", "full", "a1", 16, 8),
                                  makePod("ml", "pinned", "", 8, 8)};
  model::ClusterSnapshot cluster(5000, nodes, pods);
  model::SchedulingSpecs specs;
  model::PendingPodSpec pinned{"ml", "pinned", 0, "", {}};
  pinned.required_node_affinity = {{{{"topology.kubernetes.io/zone", "In", {"a"}}}, {}}};
  specs.pending_pods = std::vector<model::PendingPodSpec>{pinned};
  SECTION("without the API, the affinity is not known: the pod fits b1 now") {
    CHECK(causeOf(analysis::diagnosePending(cluster), cluster, "pinned") == PendingCause::kQueue);
  }
  SECTION("with it, only the full a1 is allowed: kept off b1 by the affinity") {
    cluster.joinSchedulingSpecs(specs);
    const auto d = analysis::diagnosePending(cluster);
    CHECK(causeOf(d, cluster, "pinned") == PendingCause::kConstraints);
    REQUIRE(d.constrained.size() == 1);
    CHECK(d.constrained[0].pod == "ml/pinned");
    CHECK(d.constrained[0].node == "b1");
    CHECK(d.constrained[0].excluded_by ==
          "required node affinity (topology.kubernetes.io/zone In [a])");
    const auto json = d.summary().toJson();
    CHECK(json["constrained"][0]["excluded_by"] == d.constrained[0].excluded_by);
    CHECK(json["constraints_checked"]["node_affinity"]["required"] == 1);
  }
}

namespace {

// The real kind cluster (kube-state-metrics v2.19.0 scrape, plus `extra` exposition files)
// through the direct-scrape evaluation: the snapshot the daemon builds from it.
model::ClusterSnapshot kindCluster(const std::vector<std::string>& extra) {
  const UnixSeconds at = 1.7824694e9;
  ingestion::ScrapeEvaluator evaluator(config::MetricNames{}, config::Seconds(6 * 3600.0));
  evaluator.beginCycle(at);
  std::vector<std::string> files = {"exposition/nri-kubernetes-1_35-ksm.metrics.txt"};
  files.insert(files.end(), extra.begin(), extra.end());
  for (const std::string& file : files) {
    const std::string path = testing::fixturePath(file);
    const std::string body = testing::readFile(path);
    REQUIRE(evaluator.addBody({path, body, sources::exposition::Format::kPrometheusText, at}).ok());
  }
  evaluator.endCycle();
  return ingestion::buildScrapedSnapshot(evaluator, at);
}

}  // namespace

TEST_CASE("the kind cluster's pod pinned to a label no node shows is not called constrained",
          "[pending-diagnosis]") {
  // e2e-container-pending has nodeSelector {not-existing: not-existing} (its PodList), which is
  // why the real cluster left it pending. The scrape exports no node label (none allow-listed),
  // so the key cannot be checked: the diagnosis says so instead of calling every pod with, say,
  // kubernetes.io/os=linux constrained.
  SECTION("with kube_pod_nodeselectors: read, and the unseen key named") {
    const auto cluster =
        kindCluster({"exposition/nri-kubernetes-1_35-ksm-nodeselectors.metrics.txt"});
    REQUIRE(cluster.pendingPods().size() == 1);
    const auto d = analysis::diagnosePending(cluster);
    CHECK(d.pods[0].cause == PendingCause::kQueue);
    CHECK(d.checked.node_selectors_exported);
    CHECK(d.checked.node_selectors_known == 1);
    CHECK(d.checked.tolerations_known == 1);
    CHECK(d.checked.unseen_selector_keys == std::vector<std::string>{"not_existing"});
    CHECK(d.checked.notChecked().find("not_existing") != std::string::npos);
    CHECK(d.summary().toJson()["constraints_checked"]["node_selectors"]["unseen_keys"][0] ==
          "not_existing");
  }
  SECTION("without it (the scrape as taken): not read, and the flag named") {
    const auto cluster = kindCluster({});
    REQUIRE(cluster.pendingPods().size() == 1);
    const auto d = analysis::diagnosePending(cluster);
    CHECK(d.pods[0].cause == PendingCause::kQueue);
    CHECK_FALSE(d.checked.node_selectors_exported);
    CHECK(d.checked.node_selectors_known == 0);
    CHECK(d.checked.notChecked().find("kube_pod_nodeselectors") != std::string::npos);
  }
}
