#include "analysis/stranding.h"

#include <catch2/catch.hpp>

#include "support/builders.h"

using namespace dagadvisor;
using testing::makeNode;
using testing::makePod;

TEST_CASE("stranding: an exhausted resource strands the others' free shares", "[stranding]") {
  // 15.5 of 16 cores requested (3 % free ≤ 5 %): the 48 GiB of 64 still free are stranded.
  model::ClusterSnapshot cluster(100, {makeNode("n1", 16, 64)},
                                 {makePod("a", "p", "n1", 15.5, 16, 0)});
  const auto s = analysis::strandingOf(cluster, 0, analysis::StrandingRule{});
  CHECK(s.exhausted[0]);
  CHECK_FALSE(s.exhausted[1]);
  CHECK(s.stranded[1]);
  CHECK(s.free_share[1] == Approx(0.75));
  REQUIRE(s.anyStranded());
  CHECK(s.largestStranded() == analysis::Resource::kMemory);
  CHECK(s.stranded_node_units == Approx(0.75));
}

TEST_CASE("stranding: an over-committed resource counts as exhausted, not as absent",
          "[stranding]") {
  // 20 cores requested on a 16-core node: no CPU is free (share 0, not negative), so the node's
  // free memory is stranded. The nodes view once skipped such nodes (its share went negative).
  model::ClusterSnapshot cluster(100, {makeNode("n1", 16, 64)},
                                 {makePod("a", "p", "n1", 20, 16, 0)});
  const auto s = analysis::strandingOf(cluster, 0, analysis::StrandingRule{});
  CHECK(s.free_share[0] == 0);
  CHECK(s.exhausted[0]);
  CHECK(s.stranded[1]);
  CHECK(s.largestStranded() == analysis::Resource::kMemory);
}

TEST_CASE("stranding: cordoned nodes and nodes without free-share trouble strand nothing",
          "[stranding]") {
  auto cordoned = makeNode("n1", 16, 64);
  cordoned.unschedulable = true;
  model::ClusterSnapshot cluster(
      100, {cordoned, makeNode("n2", 16, 64)},
      {makePod("a", "p", "n1", 15, 16, 0), makePod("a", "q", "n2", 8, 32, 0)});
  CHECK_FALSE(analysis::strandingOf(cluster, 0, analysis::StrandingRule{}).anyStranded());
  const auto half = analysis::strandingOf(cluster, 1, analysis::StrandingRule{});
  CHECK_FALSE(half.anyStranded());
  CHECK(half.free_share[0] == Approx(0.5));
}
