#include "analysis/detectors/capacity_shortfall.h"

#include <catch2/catch.hpp>

#include "run_fixture.h"
#include "support/builders.h"

using namespace dagadvisor;
using testing::makeNode;
using testing::makePod;

namespace {

constexpr double kAt = 5000;

std::vector<analysis::Finding> detectCapacityShortfall(const std::vector<model::Node>& nodes,
                                                       const std::vector<model::Pod>& pods,
                                                       const config::Config& config = {},
                                                       model::SchedulerStats scheduler = {}) {
  model::ClusterSnapshot cluster(kAt, nodes, pods);
  cluster.setScheduler(std::move(scheduler));
  return testing::findingsOf(analysis::CapacityShortfall(), cluster, {}, config);
}

model::Node pooled(const std::string& name, double cores, double mem, std::int64_t gpus,
                   const std::string& pool) {
  return makeNode(name, cores, mem, gpus, [&](model::Node& n) { n.labels.set("node-type", pool); });
}

// Two 16-core nodes with 4 cores free each: 8 cores free in all.
std::vector<model::Node> twoNodes() {
  return {pooled("a", 16, 64, 0, "c6i"), pooled("b", 16, 64, 0, "c6i")};
}
std::vector<model::Pod> busy() {
  return {makePod("svc", "s1", "a", 12, 8), makePod("svc", "s2", "b", 12, 8)};
}
model::Pod pending(const std::string& name, double cores, double created = 1000,
                   std::int64_t gpus = 0) {
  return makePod("batch", name, "", cores, 8, gpus, [&](model::Pod& p) { p.created = created; });
}

}  // namespace

TEST_CASE("pending demand beyond all free capacity is a shortfall with the missing nodes",
          "[detector][capacity-shortfall]") {
  auto pods = busy();
  for (const char* name : {"p1", "p2", "p3"}) {
    // 12 cores asked, 8 free: p1 and p2 fit a node each (queue), p3 is capacity-blocked.
    pods.push_back(pending(name, 4));
  }
  const auto findings = detectCapacityShortfall(twoNodes(), pods);
  REQUIRE(findings.size() == 1);
  const analysis::Finding& f = findings[0];
  CHECK(f.kind == "capacity-shortfall");
  CHECK(f.target == "cluster/default");
  const auto& e = f.evidenceAs<analysis::CapacityShortfallEvidence>();
  // Only the capacity-blocked pod is sized: the two that fit a node now are the queue's.
  CHECK(e.capacity_blocked_pods == 1);
  CHECK(e.sized_pods == 1);
  CHECK(e.sized_requests.cpu_millis == 4'000);
  CHECK(e.free_capacity.cpu_millis == 0);  // what the queued pods leave
  CHECK(e.short_resources == std::vector<std::string>{"cpu"});
  CHECK(e.pods == std::vector<std::string>{"batch/p3"});
  CHECK(e.missing_nodes == 1);
  CHECK(e.missing_nodes_lower_bound == 1);
  CHECK(e.diagnosis.pending_pods == 3);
  CHECK(e.diagnosis.of(analysis::PendingCause::kQueue) == 2);
  CHECK(e.diagnosis.of(analysis::PendingCause::kCapacity) == 1);
  REQUIRE(e.missing_by_shape.size() == 1);
  const auto& shape = e.missing_by_shape[0];
  CHECK(shape.count == 1);
  CHECK(shape.pool == "c6i");
  CHECK(shape.allocatable.cpu_millis == 16'000);
  // The API renders the same numbers under the documented keys.
  const auto json = f.evidenceJson();
  CHECK(json["capacity_blocked_pods"] == 1);
  CHECK(json["sized_pods"] == 1);
  CHECK(json["young_pods_tried"] == 0);
  CHECK(json["sized_requests"]["cpu_millis"] == 4'000);
  CHECK(json["free_capacity"]["cpu_millis"] == 0);
  CHECK(json["short_resources"] == nlohmann::json::array({"cpu"}));
  CHECK(json["pods"].size() == 1);
  CHECK(json["missing_nodes"] == 1);
  CHECK(json["missing_nodes_lower_bound"] == 1);
  CHECK(json["missing_by_shape"][0]["lower_bound"] == 1);
  CHECK(json["diagnosis"]["pending_pods"] == 3);
  CHECK(json["diagnosis"]["queue"] == 2);
  CHECK(json["missing_by_shape"][0]["count"] == 1);
  CHECK(json["missing_by_shape"][0]["pool"] == "c6i");
  CHECK(json["missing_by_shape"][0]["example_node"] == "a");
  CHECK(json["missing_by_shape"][0]["shape"]["cpu_millis"] == 16'000);
  CHECK(json["unplaceable_pods"] == nlohmann::json::array());
  CHECK(f.impact == 1);
}

TEST_CASE("demand that fits, or fits only in total, is no shortfall",
          "[detector][capacity-shortfall]") {
  auto pods = busy();
  SECTION("two 4-core pods fit the two nodes") {
    pods.push_back(pending("p1", 4));
    pods.push_back(pending("p2", 4));
  }
  SECTION("a 6-core pod fits 8 free cores in total but no node: fragmentation, not this") {
    pods.push_back(pending("p1", 6));
  }
  SECTION("a pending pod without requests") {
    pods.push_back(pending("p1", 0));
  }
  CHECK(detectCapacityShortfall(twoNodes(), pods).empty());
}

TEST_CASE("min_pending_age holds at its edge", "[detector][capacity-shortfall]") {
  auto pods = busy();
  pods.push_back(pending("p1", 4));
  pods.push_back(pending("p2", 4));
  pods.push_back(pending("young", 4, kAt - 60));  // exactly the default 60 s old
  CHECK(detectCapacityShortfall(twoNodes(), pods).size() == 1);
  pods.back().created = kAt - 59;
  CHECK(detectCapacityShortfall(twoNodes(), pods).empty());
}

TEST_CASE("min_unplaced_pods holds at its edge", "[detector][capacity-shortfall]") {
  auto pods = busy();
  for (const char* name : {"p1", "p2", "p3", "p4"}) {
    pods.push_back(pending(name, 4));  // two left over
  }
  config::Config config;
  config.detectors.get<analysis::CapacityShortfallSettings>().min_unplaced_pods = 2;
  CHECK(detectCapacityShortfall(twoNodes(), pods, config).size() == 1);
  config.detectors.get<analysis::CapacityShortfallSettings>().min_unplaced_pods = 3;
  CHECK(detectCapacityShortfall(twoNodes(), pods, config).empty());
}

TEST_CASE("left-over pods open the smallest real node shape that holds them",
          "[detector][capacity-shortfall]") {
  std::vector<model::Node> nodes = {pooled("cpu-1", 16, 64, 0, "c6i"),
                                    pooled("gpu-1", 32, 128, 4, "p4d")};
  std::vector<model::Pod> pods = {makePod("svc", "s1", "cpu-1", 16, 8),
                                  makePod("ml", "t0", "gpu-1", 32, 8, 4),
                                  pending("cpu-job", 10),
                                  pending("cpu-job-2", 10),
                                  pending("train", 8, 1000, 2),
                                  pending("giant", 64)};
  const auto findings = detectCapacityShortfall(nodes, pods);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::CapacityShortfallEvidence>();
  CHECK(e.sized_pods == 4);
  CHECK(e.missing_nodes == 3);  // two CPU nodes (10 + 10 > 16), one GPU node
  // 28 cores, 24 GiB and 2 GPUs packed, nothing left free: one 32-core node is the floor.
  CHECK(e.missing_nodes_lower_bound == 1);
  REQUIRE(e.missing_by_shape.size() == 2);
  CHECK(e.missing_by_shape[0].example_node == "cpu-1");
  CHECK(e.missing_by_shape[0].count == 2);
  CHECK(e.missing_by_shape[0].lower_bound == 2);  // 20 cores into 16-core nodes
  CHECK(e.missing_by_shape[1].example_node == "gpu-1");
  CHECK(e.missing_by_shape[1].count == 1);
  CHECK(e.missing_by_shape[1].lower_bound == 1);
  CHECK(e.unplaceable_pods == std::vector<std::string>{"batch/giant"});
  CHECK(e.unplaceable_total == 1);
}

TEST_CASE("no node data means no shortfall finding", "[detector][capacity-shortfall]") {
  CHECK(detectCapacityShortfall({}, {pending("p1", 4)}).empty());
  CHECK(detectCapacityShortfall(
            {makeNode("cordoned", 16, 64, 0, [](model::Node& n) { n.unschedulable = true; })},
            {pending("p1", 4)})
            .empty());
}

TEST_CASE("capacity-shortfall says why when it knows no node, and only then",
          "[detector][capacity-shortfall]") {
  auto reason = [](const std::vector<model::Node>& nodes) {
    model::ClusterSnapshot cluster(kAt, nodes, {pending("p1", 4)});
    std::vector<graph::RunGraph> runs;
    analysis::FindingSink sink;
    analysis::CapacityShortfall().analyze({cluster, runs, {}}, sink);
    return sink.noAdviceReason();
  };
  CHECK(reason({}) == "no schedulable node with allocatable CPU is known");
  CHECK(reason(twoNodes()).empty());  // examined: the pod fits, a real zero
}

namespace {

model::SchedulerStats queues(double unschedulable, double backoff, bool present = true) {
  model::SchedulerStats stats;
  stats.present = present;
  stats.pending_by_queue = {
      {"active", 5}, {"unschedulable", unschedulable}, {"backoff", backoff}, {"gated", 0}};
  return stats;
}

}  // namespace

TEST_CASE("young pods count once the scheduler's queues say it tried and parked them",
          "[detector][capacity-shortfall]") {
  auto pods = busy();
  pods.push_back(pending("p1", 4));  // old: they fill the 8 free cores
  pods.push_back(pending("p2", 4));
  pods.push_back(pending("young-1", 4, kAt - 10));
  pods.push_back(pending("young-2", 4, kAt - 5));
  CHECK(detectCapacityShortfall(twoNodes(), pods).empty());
  // Two parked pods are the two old ones: the edge, no young pod counts yet.
  CHECK(detectCapacityShortfall(twoNodes(), pods, {}, queues(2, 0)).empty());
  // Without scheduler metrics the queue figures are not evidence.
  CHECK(detectCapacityShortfall(twoNodes(), pods, {}, queues(2, 1, false)).empty());
  // One more parked pod (backoff counts too): the oldest young pod is the one left over.
  const auto findings = detectCapacityShortfall(twoNodes(), pods, {}, queues(2, 1));
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::CapacityShortfallEvidence>();
  // Only the capacity-blocked young pod is sized: the old ones fit a node each (queue).
  CHECK(e.sized_pods == 1);
  CHECK(e.young_pods_tried == 1);
  CHECK(e.pods == std::vector<std::string>{"batch/young-1"});
  // More parked pods than pending ones: every young pod counts, no more.
  const auto all = detectCapacityShortfall(twoNodes(), pods, {}, queues(40, 0));
  REQUIRE(all.size() == 1);
  CHECK(all[0].evidenceAs<analysis::CapacityShortfallEvidence>().sized_pods == 2);
  CHECK(all[0].evidenceAs<analysis::CapacityShortfallEvidence>().young_pods_tried == 2);
}

TEST_CASE("a pod its node selector keeps off the nodes with room is not sized",
          "[detector][capacity-shortfall]") {
  auto pods = busy();
  // 8 cores asked: no c6i node has room, the m6i node does; the selector pins it to c6i.
  pods.push_back(pending("pinned", 8));
  pods.back().node_selector.emplace().set("node-type", "c6i");
  pods.push_back(pending("huge", 20));  // larger than every node: capacity-blocked
  std::vector<model::Node> nodes = twoNodes();
  nodes.push_back(pooled("m1", 16, 64, 0, "m6i"));
  const auto findings = detectCapacityShortfall(nodes, pods);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::CapacityShortfallEvidence>();
  CHECK(e.pods == std::vector<std::string>{"batch/huge"});
  CHECK(e.sized_pods == 1);
  CHECK(e.sized_requests.cpu_millis == 20'000);
  CHECK(e.diagnosis.of(analysis::PendingCause::kConstraints) == 1);
}

TEST_CASE("left-over GPU pods share new nodes of the shape that holds the most of them",
          "[detector][capacity-shortfall]") {
  // Three full GPU node shapes: 1 GPU / 8 cores; 8 GPUs / 64 cores, whose 5-core DaemonSet a
  // new node carries too (59 cores for pods); 16 GPUs / 128 cores behind a taint the pending
  // pods do not tolerate.
  std::vector<model::Node> nodes = {pooled("small-1", 8, 32, 1, "small"),
                                    pooled("big-1", 64, 256, 8, "big"),
                                    pooled("reserved-1", 128, 512, 16, "reserved")};
  nodes[2].taints.push_back({"dedicated", "infer", "NoSchedule"});
  std::vector<model::Pod> pods = {makePod("svc", "s1", "small-1", 8, 8, 1),
                                  makePod("kube-system", "agent", "big-1", 5, 1, 0,
                                          [](model::Pod& p) { p.owner_kind = "DaemonSet"; }),
                                  makePod("svc", "s2", "big-1", 59, 8, 8),
                                  makePod("infer", "s3", "reserved-1", 128, 8, 16)};
  for (int i = 0; i < 16; ++i) {
    pods.push_back(pending("train-" + std::to_string(i), 7.5, 1000, 1));
    pods.back().tolerations.emplace();  // known: none
  }
  const auto findings = detectCapacityShortfall(nodes, pods);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::CapacityShortfallEvidence>();
  REQUIRE(e.sized_pods == 16);
  // A small node holds one pod; a new big node 7 (7 × 7.5 cores ≤ 59 < 8 × 7.5); the reserved
  // shape, which would hold all 16, is not theirs. No packing needs fewer than ⌈16 / 7⌉ = 3.
  CHECK(e.missing_nodes == 3);
  CHECK(e.missing_nodes_lower_bound == 3);  // 120 cores / 59 per node, over their shapes only
  REQUIRE(e.missing_by_shape.size() == 1);
  CHECK(e.missing_by_shape[0].example_node == "big-1");
  CHECK(e.missing_by_shape[0].count == 3);
  CHECK(e.unplaceable_total == 0);
}

TEST_CASE("free room on nodes that cannot hold the pods does not lower the bound",
          "[detector][capacity-shortfall]") {
  // The one node that could hold an 8-GPU / 64-core / 32 GiB pod runs one; the other has the
  // GPUs and cores free but 16 GiB: the pooled free capacity covers the pending pod, yet no
  // repacking places it.
  const std::vector<model::Node> nodes = {pooled("wide", 64, 256, 8, "gpu"),
                                          pooled("narrow", 64, 16, 8, "gpu")};
  const std::vector<model::Pod> pods = {
      makePod("ml", "running", "wide", 64, 32, 8),
      makePod("ml", "waiting", "", 64, 32, 8, [](model::Pod& p) { p.created = 1000; })};
  const auto findings = detectCapacityShortfall(nodes, pods);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::CapacityShortfallEvidence>();
  REQUIRE(e.sized_pods == 1);
  CHECK(e.free_capacity.fits(e.sized_requests));
  CHECK(e.missing_nodes == 1);
  CHECK(e.missing_nodes_lower_bound == 1);  // the slot of its shape is taken: a new node
  REQUIRE(e.missing_by_shape.size() == 1);
  CHECK(e.missing_by_shape[0].example_node == "wide");
}

TEST_CASE("pods pinned to a pool open that pool's shape, not the one that would take more",
          "[detector][capacity-shortfall]") {
  const std::vector<model::Node> nodes = {pooled("c6i-1", 16, 64, 0, "c6i"),
                                          pooled("m6i-1", 64, 256, 0, "m6i")};
  std::vector<model::Pod> pods = {makePod("svc", "s1", "c6i-1", 16, 8),
                                  makePod("svc", "s2", "m6i-1", 64, 8)};
  for (int i = 0; i < 4; ++i) {
    pods.push_back(pending("pinned-" + std::to_string(i), 8));
    pods.back().node_selector.emplace().set("node-type", "c6i");
  }
  const auto findings = detectCapacityShortfall(nodes, pods);
  REQUIRE(findings.size() == 1);
  const auto& e = findings[0].evidenceAs<analysis::CapacityShortfallEvidence>();
  REQUIRE(e.sized_pods == 4);
  // One m6i node would hold all four; their selector allows c6i only, two 8-core pods a node.
  CHECK(e.missing_nodes == 2);
  REQUIRE(e.missing_by_shape.size() == 1);
  CHECK(e.missing_by_shape[0].pool == "c6i");
  CHECK(e.missing_by_shape[0].count == 2);
  CHECK(e.missing_nodes_lower_bound == 2);  // 32 cores, and 16 the most a c6i node offers
}
