#include "graph/critical_path.h"

#include <catch2/catch.hpp>
#include <functional>
#include <random>

using dagadvisor::graph::computeCriticalPath;
using dagadvisor::graph::TaskGraph;
using dagadvisor::model::Edge;
using dagadvisor::model::TaskIndex;

namespace {

// Exhaustive reference: the heaviest path found by trying every path from every task.
double bruteForceLongest(std::size_t n, const std::vector<Edge>& edges,
                         const std::vector<double>& w) {
  std::vector<std::vector<TaskIndex>> kids(n);
  for (const Edge& e : edges) {
    kids[e.parent].push_back(e.child);
  }
  std::function<double(TaskIndex)> best = [&](TaskIndex t) {
    double tail = 0;
    for (TaskIndex c : kids[t]) {
      tail = std::max(tail, best(c));
    }
    return w[t] + tail;
  };
  double out = 0;
  for (TaskIndex t = 0; t < n; ++t) {
    out = std::max(out, best(t));
  }
  return out;
}

}  // namespace

TEST_CASE("critical path of a diamond picks the heavier branch", "[graph]") {
  // a → b → d and a → c → d; c is heavier.
  const std::vector<Edge> edges = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
  TaskGraph g(4, edges);
  const auto cp = computeCriticalPath(g, {10, 5, 20, 1});
  CHECK(cp.length == 31);
  CHECK(cp.tasks == std::vector<TaskIndex>{0, 2, 3});
  CHECK(cp.slack[1] == 15);
  CHECK(cp.slack[0] == 0);
  CHECK(cp.slack[2] == 0);
  CHECK(cp.earliest_start[3] == 30);
}

TEST_CASE("critical path equals brute force on random DAGs", "[graph]") {
  std::mt19937 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + rng() % 12;
    std::vector<Edge> edges;
    for (TaskIndex a = 0; a < n; ++a) {
      for (TaskIndex b = a + 1; b < n; ++b) {
        if (rng() % 3 == 0) {
          edges.push_back({a, b});
        }
      }
    }
    std::vector<double> w(n);
    for (double& x : w) {
      x = static_cast<double>(rng() % 100);
    }
    TaskGraph g(n, edges);
    const auto cp = computeCriticalPath(g, w);
    INFO("trial " << trial);
    REQUIRE(cp.length == bruteForceLongest(n, edges, w));
    // The returned path is a real chain whose weights add up to the length.
    double sum = 0;
    for (std::size_t i = 0; i < cp.tasks.size(); ++i) {
      sum += w[cp.tasks[i]];
      if (i > 0) {
        auto kids = g.children(cp.tasks[i - 1]);
        CHECK(std::find(kids.begin(), kids.end(), cp.tasks[i]) != kids.end());
      }
      CHECK(cp.slack[cp.tasks[i]] == 0);
    }
    CHECK(sum == cp.length);
  }
}

TEST_CASE("a cycle is detected and named, and yields no critical path", "[graph]") {
  TaskGraph g(4, {{0, 1}, {1, 2}, {2, 1}, {2, 3}});
  REQUIRE(g.hasCycle());
  const auto cycle = g.findCycle();
  REQUIRE(cycle.size() == 3);
  CHECK(cycle.front() == cycle.back());
  CHECK(computeCriticalPath(g, {1, 1, 1, 1}).tasks.empty());
  TaskGraph self(1, {{0, 0}});
  CHECK(self.hasCycle());
}

TEST_CASE("duplicate and out-of-range edges are ignored", "[graph]") {
  TaskGraph g(3, {{0, 1}, {0, 1}, {1, 2}, {5, 1}});
  CHECK(g.edgeCount() == 2);
  CHECK_FALSE(g.hasCycle());
  CHECK(g.topologicalOrder() == std::vector<TaskIndex>{0, 1, 2});
}
