#include "analysis/detectors/stranded_resources.h"

#include <catch2/catch.hpp>

#include "run_fixture.h"
#include "support/builders.h"

using namespace dagadvisor;
using testing::kGiB;
using testing::makeNode;
using testing::makePod;

namespace {

using analysis::ClusterFragmentation;
using analysis::StrandedNode;
using analysis::StrandedResourcesEvidence;

std::vector<analysis::Finding> detectStrandedResources(const model::ClusterSnapshot& cluster,
                                                       const config::Config& config = {}) {
  return testing::findingsOf(analysis::StrandedResources(), cluster, {}, config);
}

std::vector<analysis::Finding> clusterScope(const std::vector<analysis::Finding>& all) {
  std::vector<analysis::Finding> out;
  for (const auto& f : all) {
    if (std::holds_alternative<ClusterFragmentation>(
            f.evidenceAs<StrandedResourcesEvidence>().scope)) {
      out.push_back(f);
    }
  }
  return out;
}

const StrandedNode& nodeOf(const analysis::Finding& f) {
  return std::get<StrandedNode>(f.evidenceAs<StrandedResourcesEvidence>().scope);
}

const ClusterFragmentation& fragmentationOf(const analysis::Finding& f) {
  return std::get<ClusterFragmentation>(f.evidenceAs<StrandedResourcesEvidence>().scope);
}

}  // namespace

TEST_CASE("GPUs and memory stranded on a node whose CPU is used up",
          "[detector][stranded-resources]") {
  model::ClusterSnapshot cluster(
      5000, {makeNode("gpu-1", 16, 64, 4)},
      {makePod("web", "api-1", "gpu-1", 10, 4), makePod("logging", "fluentd", "gpu-1", 6, 4)});
  const auto findings = detectStrandedResources(cluster);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "stranded-resources");
  CHECK(f.target == "node/gpu-1");
  CHECK(f.severity == analysis::Severity::kWarning);  // GPUs among the stranded
  const StrandedNode& e = nodeOf(f);
  CHECK(e.node == "gpu-1");
  CHECK(e.exhausted == std::vector<std::string>{"cpu"});
  CHECK(e.stranded_gpus == 4);
  CHECK(e.stranded_memory_bytes == 56 * kGiB);
  CHECK_FALSE(e.stranded_cpu_millis);
  CHECK(e.stranded_node_units == Approx(1.0 + 56.0 / 64));
  CHECK(e.free_share.cpu == Approx(0.0));
  CHECK(e.free_share.gpu == Approx(1.0));
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["scope"] == "node");
  CHECK(json["exhausted"] == nlohmann::json::array({"cpu"}));
  CHECK(json["stranded"]["free_gpus"] == 4);
  CHECK(json["stranded"]["free_memory_bytes"] == 56 * kGiB);
  CHECK_FALSE(json["stranded"].contains("free_cpu_millis"));
  CHECK(json["stranded_node_units"].get<double>() == Approx(1.875));
  CHECK(json["free_share"]["memory"].get<double>() == Approx(56.0 / 64));
  CHECK(f.impact == Approx(1.875));
}

TEST_CASE("the exhausted threshold holds at its edge", "[detector][stranded-resources]") {
  auto cluster = [](double cores) {
    return model::ClusterSnapshot(5000, {makeNode("cpu-1", 20, 64)},
                                  {makePod("batch", "job", "cpu-1", cores, 8)});
  };
  const auto at_edge = detectStrandedResources(cluster(19));  // 1 of 20 cores free = 0.05
  REQUIRE(at_edge.size() == 1);
  CHECK(at_edge[0].severity == analysis::Severity::kInfo);
  CHECK(nodeOf(at_edge[0]).stranded_memory_bytes == 56 * kGiB);
  CHECK(detectStrandedResources(cluster(18.9)).empty());  // 0.055 free: not exhausted
}

TEST_CASE("the stranded threshold holds at its edge", "[detector][stranded-resources]") {
  auto cluster = [](double mem_gib) {
    return model::ClusterSnapshot(5000, {makeNode("cpu-1", 16, 64)},
                                  {makePod("batch", "job", "cpu-1", 16, mem_gib)});
  };
  CHECK(detectStrandedResources(cluster(48)).size() == 1);  // 16 of 64 GiB free = 0.25
  CHECK(detectStrandedResources(cluster(48.5)).empty());
}

TEST_CASE("balanced, empty, cordoned or shapeless nodes strand nothing",
          "[detector][stranded-resources]") {
  SECTION("every resource used up") {
    model::ClusterSnapshot cluster(5000, {makeNode("cpu-1", 16, 64)},
                                   {makePod("batch", "job", "cpu-1", 16, 64)});
    CHECK(detectStrandedResources(cluster).empty());
  }
  SECTION("an empty node") {
    model::ClusterSnapshot cluster(5000, {makeNode("cpu-1", 16, 64, 2)}, {});
    CHECK(detectStrandedResources(cluster).empty());
  }
  SECTION("a cordoned node") {
    model::ClusterSnapshot cluster(
        5000, {makeNode("cpu-1", 16, 64, 0, [](model::Node& n) { n.unschedulable = true; })},
        {makePod("batch", "job", "cpu-1", 16, 8)});
    CHECK(detectStrandedResources(cluster).empty());
  }
  SECTION("a node with no allocatable reported") {
    model::ClusterSnapshot cluster(5000, {makeNode("ghost", 0, 0)},
                                   {makePod("batch", "job", "ghost", 1, 1)});
    CHECK(detectStrandedResources(cluster).empty());
  }
  SECTION("no nodes, a pending pod") {
    model::ClusterSnapshot cluster(5000, {}, {makePod("batch", "job", "", 1, 1)});
    CHECK(detectStrandedResources(cluster).empty());
  }
}

TEST_CASE("a pending pod that fits the pooled free capacity but no node is fragmentation",
          "[detector][stranded-resources]") {
  // Two nodes with 4 free cores each; a 6-core pod fits 8 pooled cores, but neither node.
  std::vector<model::Node> nodes = {makeNode("a", 16, 64), makeNode("b", 16, 64)};
  std::vector<model::Pod> pods = {makePod("x", "p1", "a", 12, 8), makePod("x", "p2", "b", 12, 8),
                                  makePod("ml", "big", "", 6, 8), makePod("ml", "huge", "", 10, 8),
                                  makePod("ml", "empty", "", 0, 0)};
  const auto findings =
      clusterScope(detectStrandedResources(model::ClusterSnapshot(5000, nodes, pods)));
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.target == "cluster/default");
  CHECK(f.severity == analysis::Severity::kWarning);
  const ClusterFragmentation& e = fragmentationOf(f);
  CHECK(e.fragmentation_blocked_pods == 1);
  CHECK(e.capacity_blocked_pods == 1);  // 10 cores > 8 pooled
  CHECK(e.fragmentation_index == Approx(1.0));
  REQUIRE(e.shapes.size() == 2);  // the request-less pod is no shape
  const auto& big = e.shapes[1];  // largest shape first: 10 cores, then 6
  CHECK(big.requests.cpu_millis == 6000);
  CHECK(big.fit == 0);
  CHECK(big.pooled == 1);
  CHECK(big.blockedBy() == "fragmentation");
  CHECK(e.shapes[0].requests.cpu_millis == 10000);
  CHECK(e.shapes[0].blockedBy() == "capacity");
  CHECK_FALSE(e.shapes[0].fragmentation_index);
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["scope"] == "cluster");
  CHECK(json["fragmentation_blocked_pods"] == 1);
  CHECK(json["capacity_blocked_pods"] == 1);
  CHECK(json["fragmentation_index"].get<double>() == Approx(1.0));
  CHECK(json["shapes"][1]["cpu_millis"] == 6000);
  CHECK(json["shapes"][1]["pending_pods"] == 1);
  CHECK(json["shapes"][1]["blocked_by"] == "fragmentation");
  CHECK(json["shapes"][0]["fragmentation_index"].is_null());
  CHECK(f.impact == 1);
}

TEST_CASE("pending pods that fit a node, or no capacity at all, are not fragmentation",
          "[detector][stranded-resources]") {
  std::vector<model::Node> nodes = {makeNode("a", 16, 64), makeNode("b", 16, 64)};
  std::vector<model::Pod> pods = {makePod("x", "p1", "a", 12, 8), makePod("x", "p2", "b", 12, 8)};
  SECTION("a 3-core pod fits each node: Fit = Pooled = 2, index 0") {
    pods.push_back(makePod("ml", "small", "", 3, 8));
  }
  SECTION("a 10-core pod exceeds even the pooled capacity") {
    pods.push_back(makePod("ml", "huge", "", 10, 8));
  }
  CHECK(clusterScope(detectStrandedResources(model::ClusterSnapshot(5000, nodes, pods))).empty());
}

TEST_CASE("min_fragmentation_blocked_pods holds at its edge", "[detector][stranded-resources]") {
  // Three nodes with 4 free cores each: 12 pooled cores hold both 6-core pods, no node does.
  std::vector<model::Node> nodes = {makeNode("a", 16, 64), makeNode("b", 16, 64),
                                    makeNode("c", 16, 64)};
  std::vector<model::Pod> pods = {makePod("x", "p1", "a", 12, 8), makePod("x", "p2", "b", 12, 8),
                                  makePod("x", "p3", "c", 12, 8), makePod("ml", "big-1", "", 6, 8),
                                  makePod("ml", "big-2", "", 6, 8)};
  model::ClusterSnapshot cluster(5000, nodes, pods);
  config::Config config;
  config.detectors.get<analysis::StrandedResourcesSettings>().min_fragmentation_blocked_pods = 2;
  CHECK(clusterScope(detectStrandedResources(cluster, config)).size() == 1);
  config.detectors.get<analysis::StrandedResourcesSettings>().min_fragmentation_blocked_pods = 3;
  CHECK(clusterScope(detectStrandedResources(cluster, config)).empty());
}

TEST_CASE("pods beyond the pooled capacity are capacity-blocked, not fragmentation",
          "[detector][stranded-resources]") {
  // 8 pooled free cores (4 + 4): one 6-core pod would fit the pool, the second would not.
  std::vector<model::Node> nodes = {makeNode("a", 16, 64), makeNode("b", 16, 64)};
  std::vector<model::Pod> pods = {makePod("x", "p1", "a", 12, 8), makePod("x", "p2", "b", 12, 8),
                                  makePod("ml", "big-1", "", 6, 8),
                                  makePod("ml", "big-2", "", 6, 8)};
  SECTION("one of the two is fragmentation-blocked") {
    const auto findings =
        clusterScope(detectStrandedResources(model::ClusterSnapshot(5000, nodes, pods)));
    REQUIRE(findings.size() == 1);
    const ClusterFragmentation& e = fragmentationOf(findings[0]);
    CHECK(e.fragmentation_blocked_pods == 1);
    CHECK(e.capacity_blocked_pods == 1);
    CHECK(e.shapes[0].blocked(analysis::PendingCause::kFragmentation) == 1);
    CHECK(e.shapes[0].blocked(analysis::PendingCause::kCapacity) == 1);
    CHECK(findings[0].impact == 1);
  }
  SECTION("a larger pending shape claims the pool first: nothing left for the smaller") {
    pods.push_back(makePod("ml", "wide", "", 7, 8));  // 7 of the 8 pooled cores
    const auto cluster =
        clusterScope(detectStrandedResources(model::ClusterSnapshot(5000, nodes, pods)));
    REQUIRE(cluster.size() == 1);
    CHECK(fragmentationOf(cluster[0]).fragmentation_blocked_pods == 1);  // the 7-core pod
    CHECK(fragmentationOf(cluster[0]).capacity_blocked_pods == 2);
  }
}

TEST_CASE("no node with allocatable: no advice, and a reason", "[detector][stranded-resources]") {
  model::ClusterSnapshot cluster(5000, {makeNode("ghost", 0, 0)},
                                 {makePod("batch", "job", "", 1, 1)});
  std::vector<graph::RunGraph> runs;
  const config::Config config;
  analysis::FindingSink sink;
  analysis::StrandedResources().analyze({cluster, runs, config}, sink);
  CHECK(sink.findings().empty());
  CHECK(sink.noAdviceReason().find("allocatable") != std::string::npos);
}

TEST_CASE("the remainder no repacking can join is capacity, not fragmentation",
          "[detector][stranded-resources]") {
  // Three 16-core nodes, each with a 0.5-core DaemonSet pod: 15.5 cores hold three 4-core pods
  // at best. Two 4-core pods pend; every node has 3.5 cores or less free, 10 pooled in all.
  std::vector<model::Node> nodes = {makeNode("a", 16, 64), makeNode("b", 16, 64),
                                    makeNode("c", 16, 64)};
  std::vector<model::Pod> pods;
  for (const char* node : {"a", "b", "c"}) {
    pods.push_back(makePod("kube-system", std::string("agent-") + node, node, 0.5, 1, 0,
                           testing::ownedBy("DaemonSet", "agent")));
    pods.push_back(makePod("batch", std::string("s1-") + node, node, 4, 8));
    pods.push_back(makePod("batch", std::string("s2-") + node, node, 4, 8));
  }
  pods.push_back(makePod("ml", "pending-1", "", 4, 8));
  pods.push_back(makePod("ml", "pending-2", "", 4, 8));
  SECTION("every slot holds a pod of the shape: nothing is fragmentation-blocked") {
    for (const char* node : {"a", "b", "c"}) {
      pods.push_back(makePod("batch", std::string("s3-") + node, node, 4, 8));
    }
    CHECK(clusterScope(detectStrandedResources(model::ClusterSnapshot(5000, nodes, pods))).empty());
  }
  SECTION("one slot holds a 4.5-core pod: one pending pod could take it after a repacking") {
    pods.push_back(makePod("batch", "s3-a", "a", 4, 8));
    pods.push_back(makePod("batch", "s3-b", "b", 4, 8));
    pods.push_back(makePod("batch", "wide-c", "c", 4.5, 8));
    const auto cluster =
        clusterScope(detectStrandedResources(model::ClusterSnapshot(5000, nodes, pods)));
    REQUIRE(cluster.size() == 1);
    const ClusterFragmentation& e = fragmentationOf(cluster[0]);
    const auto& shape = e.shapes[0];
    CHECK(shape.fit == 0);
    CHECK(shape.pooled == 2);
    CHECK(shape.node_slots == 9);
    CHECK(shape.bound_pods == 8);
    CHECK(e.fragmentation_blocked_pods == 1);
    CHECK(e.capacity_blocked_pods == 1);
  }
}

TEST_CASE("node findings are bounded: GPU warnings first, then the most stranded",
          "[detector][stranded-resources]") {
  // Three GPU nodes strand 2 of 8 GPUs (0.25 node units: warnings, yet the least stranded);
  // then nodes with CPU used up and 20.25 to 57 GiB of 64 free (more free, more stranded).
  const std::size_t kNodes = 150;
  std::vector<model::Node> nodes;
  std::vector<model::Pod> pods;
  for (std::size_t i = 0; i < kNodes; ++i) {
    const std::string name = "n-" + std::to_string(i);
    const std::string pod = "p-" + std::to_string(i);
    if (i < 3) {
      nodes.push_back(makeNode(name, 16, 64, 8));
      pods.push_back(makePod("ml", pod, name, 16, 64, 6));
    } else {
      nodes.push_back(makeNode(name, 16, 64));
      pods.push_back(makePod("web", pod, name, 16, 44 - 0.25 * static_cast<double>(i)));
    }
  }
  const auto findings = detectStrandedResources(model::ClusterSnapshot(5000, nodes, pods));
  const std::size_t limit = analysis::StrandedResources::kMaxNodeFindings;
  REQUIRE(findings.size() == limit);
  std::vector<std::string> targets;
  for (const auto& f : findings) {
    targets.push_back(f.target);
  }
  std::vector<std::string> expected = {"node/n-0", "node/n-1", "node/n-2"};  // the warnings
  for (std::size_t i = kNodes - (limit - 3); i < kNodes; ++i) {  // the most stranded, node order
    expected.push_back("node/n-" + std::to_string(i));
  }
  CHECK(targets == expected);
  CHECK(findings[0].severity == analysis::Severity::kWarning);
  CHECK(findings[0].impact == Approx(0.25));
  CHECK(findings[3].severity == analysis::Severity::kInfo);
  CHECK(findings[3].impact > 0.25);
}
