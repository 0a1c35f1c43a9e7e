// The cluster what-if of runs that have not finished: unfinished tasks are charged an estimate
// (the same task in other runs, else tasks of the same shape) or, without one, only the time
// they have run so far, which makes the what-if a lower bound.
#include <catch2/catch.hpp>

#include "graph/cluster_whatif.h"
#include "whatif_pods.h"

using namespace dagadvisor;
using testing::done;
using testing::makeNode;
using testing::pending;

namespace {

const graph::RunGraph& graphOf(const std::vector<graph::RunGraph>& graphs, const std::string& run) {
  for (const auto& g : graphs) {
    if (g.run->run == run) {
      return g;
    }
  }
  FAIL("no graph for run " << run);
  return graphs.front();
}

}  // namespace

TEST_CASE("what-if of an unfinished run: the same task in another run gives the estimate",
          "[graph][whatif][estimate]") {
  // r1 finished: a 10 s, then b 20 s. r2: a done, b pending for 490 s already.
  auto c =
      testing::whatIfCase(1000, {makeNode("n1", 8, 64)},
                          {done("r1", "a", "", "n1", 0, 10), done("r1", "b", "a", "n1", 10, 30),
                           done("r2", "a", "", "n1", 500, 510), pending("r2", "b", "a", 510)});
  const auto graphs = graph::buildRunGraphs(c->runs, c->cluster, {});
  const auto& r2 = graphOf(graphs, "r2");
  CHECK_FALSE(r2.finished);
  CHECK(r2.makespan == Approx(500));
  REQUIRE(r2.whatif_makespan);
  CHECK(*r2.whatif_makespan == Approx(10 + 20));
  CHECK(r2.whatif_basis == graph::WhatIfBasis::kEstimated);
  CHECK(graph::whatIfBasisName(r2.whatif_basis) == "estimated");
  CHECK(graphOf(graphs, "r1").whatif_basis == graph::WhatIfBasis::kObserved);
}

TEST_CASE("what-if of an unfinished run: tasks of the same shape give the estimate",
          "[graph][whatif][estimate]") {
  // b (2 cores) never ran before; c, the only finished 2-core task, took 40 s.
  auto c =
      testing::whatIfCase(1000, {makeNode("n1", 8, 64)},
                          {done("r1", "a", "", "n1", 0, 10), done("r1", "c", "", "n1", 0, 40, 2),
                           done("r2", "a", "", "n1", 500, 510), pending("r2", "b", "a", 510, 2)});
  const auto graphs = graph::buildRunGraphs(c->runs, c->cluster, {});
  const auto& r2 = graphOf(graphs, "r2");
  REQUIRE(r2.whatif_makespan);
  CHECK(*r2.whatif_makespan == Approx(10 + 40));
  CHECK(r2.whatif_basis == graph::WhatIfBasis::kEstimated);
}

TEST_CASE("what-if of an unfinished run: a running task counts at least its elapsed time",
          "[graph][whatif][estimate]") {
  // b usually takes 20 s but has been running for 480 s (520 → 1000).
  testing::TaskPod running = pending("r2", "b", "a", 510);
  running.node = "n1";
  running.started = 520;
  auto c =
      testing::whatIfCase(1000, {makeNode("n1", 8, 64)},
                          {done("r1", "a", "", "n1", 0, 10), done("r1", "b", "a", "n1", 10, 30),
                           done("r2", "a", "", "n1", 500, 510), running});
  const auto graphs = graph::buildRunGraphs(c->runs, c->cluster, {});
  const auto& r2 = graphOf(graphs, "r2");
  REQUIRE(r2.whatif_makespan);
  CHECK(*r2.whatif_makespan == Approx(10 + 480));
  CHECK(r2.whatif_basis == graph::WhatIfBasis::kEstimated);
}

TEST_CASE("what-if without any estimate is a lower bound", "[graph][whatif][estimate]") {
  // A run alone (buildRunGraph): b's shape (3 cores) was never seen finished, so it is charged
  // nothing; a running task without an estimate is charged its elapsed time.
  testing::TaskPod running = pending("r", "x", "", 500, 4);
  running.node = "n1";
  running.started = 900;
  auto c = testing::whatIfCase(
      1000, {makeNode("n1", 8, 64)},
      {done("r", "a", "", "n1", 500, 510), pending("r", "b", "a", 510, 3), running});
  REQUIRE(c->runs.size() == 1);
  const auto g = graph::buildRunGraph(c->runs[0], c->cluster);
  REQUIRE(g.whatif_makespan);
  CHECK(*g.whatif_makespan == Approx(100));  // x: 900 → 1000 so far; a → b takes 10 + 0
  CHECK(g.whatif_basis == graph::WhatIfBasis::kLowerBound);
  CHECK(graph::whatIfBasisName(g.whatif_basis) == "lower_bound");

  auto whatif = graph::runClusterWhatIf(g, c->cluster);
  REQUIRE(whatif.ok());
  CHECK(whatif->unestimated_tasks == 2);
  CHECK(whatif->estimated_tasks == 0);
}

TEST_CASE("what-if of a run stuck on a pending GPU task brings in a GPU node",
          "[graph][whatif][estimate]") {
  // The run's other tasks ran on the CPU node n1; the GPU task t ran 50 s on g1 in r1 and is
  // pending in r2 (say, behind a GPU node held by CPU pods). The what-if puts it on g1.
  auto c = testing::whatIfCase(
      1000, {makeNode("n1", 8, 64), makeNode("g1", 8, 64, 1), makeNode("g2", 8, 64, 1)},
      {done("r1", "a", "", "n1", 0, 10), done("r1", "t", "a", "g1", 10, 60, 1, 1),
       done("r2", "a", "", "n1", 500, 510), pending("r2", "t", "a", 510, 1, 1)});
  graph::RunTimeEstimates estimates;
  std::vector<graph::RunGraph> graphs;
  for (const auto& run : c->runs) {
    graphs.push_back(graph::buildRunGraph(run, c->cluster));
    estimates.add(graphs.back(), c->cluster);
  }
  const auto& r2 = graphOf(graphs, "r2");
  graph::WhatIfOptions options;
  options.estimates = &estimates;
  auto whatif = graph::runClusterWhatIf(r2, c->cluster, options);
  REQUIRE(whatif.ok());
  CHECK(whatif->nodes == std::vector<model::NodeId>{0, 1});  // n1 and the first GPU node
  CHECK(whatif->makespan == Approx(10 + 50));
  CHECK(whatif->basis == graph::WhatIfBasis::kEstimated);
  CHECK(whatif->estimated_tasks == 1);
  const auto& t = whatif->schedule.placement[r2.run->tasks[0].id == "t" ? 0 : 1];
  CHECK(whatif->nodes[t.processor] == 1);
}

TEST_CASE("what-if of a run with a task that fits no node is not computed",
          "[graph][whatif][estimate]") {
  auto c =
      testing::whatIfCase(1000, {makeNode("n1", 8, 64), makeNode("g1", 8, 64, 1)},
                          {done("r", "a", "", "n1", 500, 510), pending("r", "t", "a", 510, 1, 2)});
  const auto g = graph::buildRunGraph(c->runs[0], c->cluster);
  CHECK_FALSE(g.whatif_makespan);
  auto whatif = graph::runClusterWhatIf(g, c->cluster);
  REQUIRE_FALSE(whatif.ok());
  CHECK_THAT(whatif.error().message, Catch::Contains("fits no node"));
}
