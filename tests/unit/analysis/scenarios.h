#pragma once

#include <string>
#include <vector>

#include "run_fixture.h"

// Small clusters that plant one problem each (the healthy one plants none). Shared by the
// detector tests and the advice tests that check every emitted patch.
namespace dagadvisor::testing {

inline model::Node labelledNode(const std::string& name, double cores, double mem_gib,
                                const std::string& pool) {
  return makeNode(name, cores, mem_gib, 0,
                  [&](model::Node& n) { n.labels.set("node-type", pool); });
}

/// Two compute nodes, one finished chain a → b → c, modest requests, nothing pending.
inline RunFixture healthyScenario() {
  RunFixture fx;
  fx.nodes = {labelledNode("c1", 16, 32, "compute"), labelledNode("c2", 16, 32, "compute")};
  fx.addRun("etl", "daily", "r1",
            {{"a", "c1", 100, 200}, {"b", "c1", 200, 300}, {"c", "c1", 300, 400}},
            {{0, 1}, {1, 2}});
  fx.pods.push_back(makePod("web", "api-1", "c2", 2, 4, 0, ownedBy("ReplicaSet", "api-7d9")));
  return fx;
}

/// etl/train: r0 finished a(100 s) → {b(1000 s), c(10 s)} → d(50 s); in r1, a finished and
/// b (critical) and c (990 s of slack) both pend with no PriorityClass.
inline RunFixture criticalPathScenario() {
  RunFixture fx;
  fx.nodes = {makeNode("w1", 16, 64)};
  const std::vector<model::Edge> edges = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
  fx.addRun(
      "etl", "train", "r0",
      {{"a", "w1", 0, 100}, {"b", "w1", 100, 1100}, {"c", "w1", 100, 110}, {"d", "w1", 1100, 1150}},
      edges);
  fx.addRun("etl", "train", "r1", {{"a", "w1", 2000, 2100}, {"b", ""}, {"c", ""}, {"d", ""}},
            edges);
  return fx;
}

/// Unlabelled nodes: c1, c2 are compute-shaped (2 GiB/core), m1 memory-shaped (16 GiB/core).
/// The memory-heavy cache (2 cores, 24 GiB: 12 GiB/core) runs on c1.
inline RunFixture poolMismatchScenario() {
  RunFixture fx;
  fx.nodes = {makeNode("c1", 16, 32), makeNode("c2", 16, 32), makeNode("m1", 8, 128)};
  fx.pods = {makePod("web", "cache-1", "c1", 2, 24, 0, ownedBy("ReplicaSet", "cache-5f6")),
             makePod("web", "api-1", "c2", 2, 4, 0, ownedBy("ReplicaSet", "api-7d9"))};
  return fx;
}

/// etl/daily r1: a finished on w1 at 200; its child b pends (ready since 200) while w1 is empty.
inline RunFixture idleSlotScenario() {
  RunFixture fx;
  fx.nodes = {makeNode("w1", 16, 64)};
  fx.addRun("etl", "daily", "r1", {{"a", "w1", 100, 200}, {"b", ""}}, {{0, 1}});
  return fx;
}

/// n1 (8 cores, 32 GiB) is 7/8 requested; api (4 cores, 8 GiB requested) uses 0.5 core and
/// 2 GiB over 100 samples.
inline RunFixture overRequestScenario(double samples = 100) {
  RunFixture fx;
  fx.nodes = {makeNode("n1", 8, 32)};
  fx.pods = {
      makePod("web", "api-1", "n1", 4, 8, 0,
              [&](model::Pod& p) {
                ownedBy("ReplicaSet", "api-7d9")(p);
                p.usage = model::ObservedUsage{0.5, 2.0 * kGiB, samples, std::nullopt};
                // Named as kube-state-metrics reports them: not after the workload.
                p.containers = {{"app", {3000, 6 * kGiB, 0}}, {"proxy", {1000, 2 * kGiB, 0}}};
              }),
      makePod("web", "filler", "n1", 3, 4)};
  return fx;
}

/// n1 (16 cores): a task of etl/daily (8 cores) beside the web Deployment's pod (6 cores).
inline RunFixture colocationScenario() {
  RunFixture fx;
  fx.nodes = {makeNode("n1", 16, 64)};
  fx.pods = {makePod("etl", "daily-r1-a", "n1", 8, 8, 0,
                     [](model::Pod& p) { p.labels.set("dag-id", "daily"); }),
             makePod("web", "web-1", "n1", 6, 8, 0, ownedBy("ReplicaSet", "web-5d8"))};
  return fx;
}

/// Three finished runs of etl/daily: a (100 s) → big (1000 s) → c (100 s), three idle nodes.
inline RunFixture shardScenario(std::size_t runs = 3) {
  RunFixture fx;
  fx.nodes = {makeNode("w1", 16, 64), makeNode("w2", 16, 64), makeNode("w3", 16, 64)};
  for (std::size_t i = 0; i < runs; ++i) {
    fx.addRun("etl", "daily", "r" + std::to_string(i),
              {{"a", "w1", 0, 100}, {"big", "w1", 100, 1100}, {"c", "w1", 1100, 1200}},
              {{0, 1}, {1, 2}});
  }
  return fx;
}

}  // namespace dagadvisor::testing
