// The cluster what-if with the transfer-cost model: HEFT weighs a split edge's cost against
// waiting for a busy node, so a dear transfer keeps a child next to its parent.
#include <catch2/catch.hpp>

#include "graph/cluster_whatif.h"
#include "whatif_pods.h"

using namespace dagadvisor;
using testing::done;
using testing::makeNode;

namespace {

constexpr const char* kZone = "topology.kubernetes.io/zone";

model::Node zoned(std::string name, std::string zone) {
  return makeNode(std::move(name), 2, 64, 0, [&](model::Node& n) {
    if (!zone.empty()) {
      n.labels.set(kZone, zone);
    }
  });
}

// a (10 s) feeds b and c (10 s each); every task needs a whole 2-core node. Observed: a and b
// on n1, c on n2.
std::unique_ptr<testing::WhatIfCase> fanOut(const std::string& zone1, const std::string& zone2) {
  auto c =
      testing::whatIfCase(1000, {zoned("n1", zone1), zoned("n2", zone2)},
                          {done("r", "a", "", "n1", 0, 10, 2), done("r", "b", "a", "n1", 10, 20, 2),
                           done("r", "c", "a", "n2", 10, 20, 2)});
  REQUIRE(c->runs.size() == 1);
  return c;
}

graph::ClusterWhatIf whatIf(const testing::WhatIfCase& c, const graph::RunGraph& g,
                            graph::WhatIfTransfer transfer) {
  graph::WhatIfOptions options;
  options.transfer = std::move(transfer);
  auto out = graph::runClusterWhatIf(g, c.cluster, options);
  REQUIRE(out.ok());
  return *out;
}

// Processors of a, b, c.
std::vector<std::size_t> where(const graph::ClusterWhatIf& w) {
  std::vector<std::size_t> out;
  for (const auto& placed : w.schedule.placement) {
    out.push_back(placed.processor);
  }
  return out;
}

}  // namespace

TEST_CASE("what-if without transfer cost splits the children over both nodes",
          "[graph][whatif][transfer]") {
  auto c = fanOut("z1", "z2");
  const auto g = graph::buildRunGraph(c->runs[0], c->cluster);
  const auto w = whatIf(*c, g, {});
  CHECK(w.makespan == Approx(20));  // a, then b and c side by side
  const auto p = where(w);
  CHECK(p[1] != p[2]);
}

TEST_CASE("a dear cross-zone transfer makes HEFT co-locate parent and children",
          "[graph][whatif][transfer]") {
  // c on the other node would start at 10 + 30 (cross zone) = 40 and end at 50; after b on a's
  // node it ends at 30. So all three share n1 and the makespan is 30.
  auto c = fanOut("z1", "z2");
  const auto g = graph::buildRunGraph(c->runs[0], c->cluster);
  const auto w = whatIf(*c, g, {5, 30, kZone});
  CHECK(w.makespan == Approx(30));
  const auto p = where(w);
  CHECK(p[0] == p[1]);
  CHECK(p[0] == p[2]);
}

TEST_CASE("a cheap same-zone transfer is worth paying: the children still split",
          "[graph][whatif][transfer]") {
  // Same zone: c on the other node starts at 10 + 5 and ends at 25 < 30.
  auto c = fanOut("z1", "z1");
  const auto g = graph::buildRunGraph(c->runs[0], c->cluster);
  const auto w = whatIf(*c, g, {5, 30, kZone});
  CHECK(w.makespan == Approx(25));
  const auto p = where(w);
  CHECK(p[1] != p[2]);
  CHECK(w.schedule.placement[0].finish == Approx(10));

  // Unknown zones cost as the same zone (never an invented cross-zone hop).
  auto unknown = fanOut("", "");
  const auto gu = graph::buildRunGraph(unknown->runs[0], unknown->cluster);
  CHECK(whatIf(*unknown, gu, {5, 30, kZone}).makespan == Approx(25));
}

TEST_CASE("buildRunGraphs charges the configured transfer model", "[graph][whatif][transfer]") {
  auto c = fanOut("z1", "z2");
  const config::Config config;  // analysis.transfer: 0 s same node, 5 s same zone, 30 s cross zone
  const auto graphs =
      graph::buildRunGraphs(c->runs, c->cluster, graph::WhatIfTransfer::fromConfig(config));
  REQUIRE(graphs.size() == 1);
  REQUIRE(graphs[0].whatif_makespan);
  CHECK(*graphs[0].whatif_makespan == Approx(30));
  CHECK(graphs[0].whatif_basis == graph::WhatIfBasis::kObserved);
  // The plain buildRunGraph charges nothing.
  CHECK(*graph::buildRunGraph(c->runs[0], c->cluster).whatif_makespan == Approx(20));
}
