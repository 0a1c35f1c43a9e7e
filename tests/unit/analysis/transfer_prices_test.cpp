#include "analysis/transfer_prices.h"

#include <catch2/catch.hpp>

#include "run_fixture.h"

using namespace dagadvisor;
using testing::fetched;
using testing::RunFixture;
using testing::TaskSpec;
using testing::zonedNode;

namespace {

// One run per child: parent on a1 (zone-a), its child on `child_node` (a1, a2 in zone-a, b1 in
// zone-b), each child running 1,000 s; `received` by child, in the order added.
struct Fetches {
  RunFixture fx;
  std::vector<std::pair<std::string, model::NetworkReceive>> children;

  Fetches() {
    fx.nodes = {zonedNode("a1", "zone-a"), zonedNode("a2", "zone-a"), zonedNode("b1", "zone-b")};
  }

  void add(const std::string& child_node, model::NetworkReceive received, bool finished = true,
           bool inferred = false) {
    const std::string run = "r" + std::to_string(children.size());
    fx.addRun("ns", "dag", run,
              {TaskSpec{"parent", "a1", 0, 100},
               TaskSpec{"child", child_node, 200, finished ? 1200.0 : 0.0}},
              {{0, 1, inferred}});
    children.emplace_back(run, received);
  }

  analysis::TransferPrices measure() {
    for (std::size_t i = 0; i < children.size(); ++i) {
      fx.received.emplace(fx.runs[i].tasks[1].pod, children[i].second);
    }
    fx.build();
    return analysis::measureTransferPrices(
        fx.graphs, *fx.cluster,
        analysis::ZoneIndex::of(*fx.cluster, "topology.kubernetes.io/zone"));
  }
};

}  // namespace

TEST_CASE("a steady fetch's seconds come from the counter's mean over the run", "[transfer]") {
  CHECK(*analysis::fetchSeconds(fetched(1, 100, 1000), 1000) == Approx(100));
  CHECK(*analysis::fetchSeconds(fetched(4, 360, 1300), 1300) == Approx(360));
  CHECK(*analysis::fetchSeconds({1e9, 1e9}, 1000) == Approx(0));  // all there at the first sample
  CHECK_FALSE(analysis::fetchSeconds({1e9, 2e9}, 1000));          // a mean above the total
  CHECK_FALSE(analysis::fetchSeconds({1e9, 0.5e9}, 0));           // no run time
}

TEST_CASE("each price is the fetch seconds over the gigabytes of the pods of one kind",
          "[transfer]") {
  Fetches f;
  f.add("b1", fetched(2, 180, 1000));  // across zones: 90 s/GB
  f.add("b1", fetched(1, 90, 1000));
  f.add("b1", fetched(1, 90, 1000));
  // Within the zone, on another node. A fetch shorter than the scrape interval reads 0 or a
  // multiple of its length; the sum over pods, not the median of each pod's ratio, keeps 20 s/GB.
  f.add("a2", fetched(1, 0, 1000));
  f.add("a2", fetched(1, 60, 1000));
  f.add("a2", fetched(1, 0, 1000));
  // Left out: the parent's own node, background traffic only, a child still running, a parent
  // guessed from timing (it may have run anywhere).
  f.add("a1", fetched(5, 500, 1000));
  f.add("b1", fetched(0.01, 500, 1000));
  f.add("a2", fetched(5, 900, 1000), false);
  f.add("b1", fetched(5, 900, 1000), true, true);
  const analysis::TransferPrices prices = f.measure();
  CHECK(prices.cross_zone.fetches == 3);
  CHECK(prices.cross_zone.seconds_per_gb == Approx(90));
  CHECK(prices.same_zone.fetches == 3);
  CHECK(prices.same_zone.seconds_per_gb == Approx(20));
  CHECK(prices.measured());
}

TEST_CASE("fewer than three pods of a kind leave its price unmeasured", "[transfer]") {
  Fetches f;
  f.add("b1", fetched(2, 180, 1000));
  f.add("b1", fetched(2, 180, 1000));
  f.add("a2", fetched(1, 20, 1000));
  f.add("a2", fetched(1, 20, 1000));
  f.add("a2", fetched(1, 20, 1000));
  const analysis::TransferPrices prices = f.measure();
  CHECK_FALSE(prices.cross_zone.measured());
  CHECK(prices.same_zone.measured());
  CHECK_FALSE(prices.measured());
}
