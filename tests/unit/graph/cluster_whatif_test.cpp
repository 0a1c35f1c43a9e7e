#include "graph/cluster_whatif.h"

#include <catch2/catch.hpp>

#include "model/adapters/labelled_pods.h"
#include "support/builders.h"

using namespace dagadvisor;
using testing::makeNode;
using testing::makePod;

namespace {

struct Timing {
  double created;
  double started;
  double finished;
};

// A finished seed-convention task pod on `node` requesting `cores`.
model::Pod task(std::string id, std::string parents, std::string node, double cores, Timing t) {
  return makePod("ml", "p-" + id, std::move(node), cores, 1, 0, [&](model::Pod& p) {
    p.labels.set("dag-id", "d");
    p.labels.set("dag-run", "r");
    p.labels.set("task-id", id);
    p.annotations.set("workflow.dependencies", parents);
    p.created = t.created;
    p.scheduled = t.started;
    p.started = t.started;
    p.finished = t.finished;
    p.phase = model::PodPhase::kSucceeded;
  });
}

struct Built {
  model::ClusterSnapshot cluster;
  std::vector<model::WorkflowRun> runs;
  graph::RunGraph graph;
};

std::unique_ptr<Built> build(std::vector<model::Node> nodes, std::vector<model::Pod> pods) {
  auto out = std::unique_ptr<Built>(
      new Built{model::ClusterSnapshot(1000, std::move(nodes), std::move(pods)), {}, {}});
  out->runs = model::buildLabelledRuns(out->cluster, config::WorkflowLabels{});
  REQUIRE(out->runs.size() == 1);
  out->graph = graph::buildRunGraph(out->runs[0], out->cluster);
  return out;
}

std::vector<std::string> chainIds(const Built& b) {
  std::vector<std::string> out;
  for (auto t : b.graph.observed_chain) {
    out.push_back(b.runs[0].tasks[t].id);
  }
  return out;
}

}  // namespace

TEST_CASE("the observed critical chain and its scheduling wait", "[graph][whatif]") {
  // a (queued 10 s) → b (queued 30 s) → c (queued 5 s); x runs beside a and b and also feeds c
  // but finishes first (40 < 60), so c waited for b.
  auto b = build({makeNode("n1", 16, 64)},
                 {task("a", "", "n1", 1, {0, 10, 20}), task("b", "a", "n1", 1, {20, 50, 60}),
                  task("x", "", "n1", 1, {0, 0, 40}), task("c", "b,x", "n1", 1, {60, 65, 100})});
  CHECK(chainIds(*b) == std::vector<std::string>{"a", "b", "c"});
  CHECK(b->graph.critical_path_wait_seconds == Approx(10 + 30 + 5));
  CHECK(b->graph.makespan == Approx(100));
  CHECK(b->graph.waitShare() == Approx(0.45));
}

TEST_CASE("what-if: tasks share a node while their requests fit", "[graph][whatif]") {
  // a (10 s) → b (20 s), c (30 s) independent; 1 core each on a 4-core node: all three fit at
  // once, so the what-if makespan is max(10 + 20, 30) = 30 instead of the observed 130.
  auto b = build({makeNode("n1", 4, 64)},
                 {task("a", "", "n1", 1, {0, 0, 10}), task("b", "a", "n1", 1, {10, 50, 70}),
                  task("c", "", "n1", 1, {0, 100, 130})});
  REQUIRE(b->graph.whatif_makespan);
  CHECK(*b->graph.whatif_makespan == Approx(30));
  CHECK(b->graph.makespan == Approx(130));
}

TEST_CASE("what-if: a full node runs tasks one after another", "[graph][whatif]") {
  // Three independent 2-core tasks of 10 s on one 2-core node: 30 s; on two such nodes: 20 s.
  auto one = build({makeNode("n1", 2, 64)},
                   {task("a", "", "n1", 2, {0, 0, 10}), task("b", "", "n1", 2, {0, 10, 20}),
                    task("c", "", "n1", 2, {0, 20, 30})});
  REQUIRE(one->graph.whatif_makespan);
  CHECK(*one->graph.whatif_makespan == Approx(30));

  auto two = build({makeNode("n1", 2, 64), makeNode("n2", 2, 64)},
                   {task("a", "", "n1", 2, {0, 0, 10}), task("b", "", "n2", 2, {0, 10, 20}),
                    task("c", "", "n1", 2, {0, 20, 30})});
  REQUIRE(two->graph.whatif_makespan);
  CHECK(*two->graph.whatif_makespan == Approx(20));
}

TEST_CASE("what-if: node speeds scale costs, tasks only go where they fit", "[graph][whatif]") {
  // a ran 10 s on n1; n2 is twice as fast, so HEFT puts a there: 5 s. b needs 8 cores, which
  // only n1 has: it stays on n1 for its 20 s after a. Lower bound: 5 + 20.
  auto b = build({makeNode("n1", 8, 64), makeNode("n2", 2, 64)},
                 {task("a", "", "n1", 1, {0, 0, 10}), task("b", "a", "n1", 8, {10, 10, 30}),
                  task("z", "", "n2", 1, {0, 0, 1})});
  graph::WhatIfOptions options;
  options.node_speed = {1.0, 2.0};
  auto whatif = graph::runClusterWhatIf(b->graph, b->cluster, options);
  REQUIRE(whatif.ok());
  CHECK(whatif->nodes.size() == 2);
  CHECK(whatif->makespan == Approx(25));
  CHECK(whatif->lower_bound == Approx(25));
  const auto& placement = whatif->schedule.placement;
  CHECK(whatif->nodes[placement[0].processor] == 1);  // a on n2
  CHECK(whatif->nodes[placement[1].processor] == 0);  // b on n1
}

TEST_CASE("findCapacitySlot waits until enough of the node is free", "[graph][whatif]") {
  const model::ResourceVector cap{4000, 0, 0};
  const std::vector<graph::PlacedTask> placed = {{0, 10, {3000, 0, 0}}, {5, 20, {1000, 0, 0}}};
  // 1 core fits at 0 until the second task starts at 5: a 5 s task fits there, a 6 s one not.
  CHECK(graph::findCapacitySlot(placed, cap, 0, 5, {1000, 0, 0}) == Approx(0));
  CHECK(graph::findCapacitySlot(placed, cap, 0, 6, {1000, 0, 0}) == Approx(10));
  CHECK(graph::findCapacitySlot(placed, cap, 0, 4, {0, 0, 0}) == Approx(0));
  CHECK(graph::findCapacitySlot(placed, cap, 0, 5, {3000, 0, 0}) == Approx(10));
  CHECK(graph::findCapacitySlot(placed, cap, 0, 5, {4000, 0, 0}) == Approx(20));
  CHECK(graph::findCapacitySlot({}, cap, 7, 5, {4000, 0, 0}) == Approx(7));
  CHECK(std::isinf(graph::findCapacitySlot({}, cap, 0, 5, {5000, 0, 0})));
}

TEST_CASE("node speeds come from the same task on different nodes", "[graph][whatif]") {
  // Task t of DAG d took 10 s on n1 and 40 s on n2 (two runs): mean 25, so n1 is 2.5× and n2
  // 0.625× the mean; n3 ran nothing comparable and stays 1.
  model::ClusterSnapshot cluster(
      1000, {makeNode("n1", 8, 64), makeNode("n2", 8, 64), makeNode("n3", 8, 64)},
      {task("t", "", "n1", 1, {0, 0, 10}), task("t", "", "n2", 1, {0, 0, 40}),
       task("u", "", "n3", 1, {0, 0, 40})});
  model::WorkflowRun r1{"ml", "d", "r1", "labels", {{"t", 0, 1, {}}}, {}, {}};
  model::WorkflowRun r2{"ml", "d", "r2", "labels", {{"t", 1, 1, {}}, {"u", 2, 1, {}}}, {}, {}};
  std::vector<graph::RunGraph> graphs = {graph::buildRunGraph(r1, cluster),
                                         graph::buildRunGraph(r2, cluster)};
  const auto speed = graph::estimateNodeSpeeds(graphs, cluster);
  REQUIRE(speed.size() == 3);
  CHECK(speed[0] == Approx(2.5));
  CHECK(speed[1] == Approx(0.625));
  CHECK(speed[2] == Approx(1));
}

TEST_CASE("HEFT with shared processors checks demand and capacity", "[graph][whatif]") {
  graph::TaskGraph g(2, {{0, 1}});
  graph::HeftProblem problem{&g, 1, {1, 1}, {}, {{1000, 0, 0}}, {{4000, 0, 0}}};
  auto bad = graph::scheduleHeft(problem);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().field == "demand");
  problem.demand = {{1000, 0, 0}, {5000, 0, 0}};  // the second task fits nowhere
  auto too_big = graph::scheduleHeft(problem);
  REQUIRE_FALSE(too_big.ok());
  CHECK(too_big.error().field == "cost");
  problem.demand = {{1000, 0, 0}, {4000, 0, 0}};
  auto ok = graph::scheduleHeft(problem);
  REQUIRE(ok.ok());
  CHECK(ok->makespan == Approx(2));
}
