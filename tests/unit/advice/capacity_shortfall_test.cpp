#include "analysis/detectors/capacity_shortfall.h"

#include <catch2/catch.hpp>

#include "advice/recommender.h"

using namespace dagadvisor;
using nlohmann::json;

TEST_CASE("a shortfall becomes a recommendation naming the node shapes to add",
          "[advice][capacity-shortfall]") {
  analysis::CapacityShortfallEvidence evidence;
  evidence.short_resources = {"cpu"};
  evidence.unplaced_pods = 5;
  evidence.missing_nodes = 2;
  evidence.missing_by_shape = {{{16000, 64LL << 30, 0}, "c6i", "a", 2}};
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.severity = analysis::Severity::kWarning;
  f.target = "cluster/default";
  const auto recs = advice::recommend({f}, config::Config{});
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK(rec.kind == "capacity-shortfall");
  CHECK(rec.target == "cluster/default");
  CHECK(rec.impact_score == 5);
  CHECK(rec.patch_yaml.empty());
  CHECK(rec.evidence["missing_by_shape"][0]["pool"] == "c6i");
  CHECK_THAT(rec.title, Catch::Contains("about 2 node(s) missing"));
  CHECK_THAT(rec.action, Catch::Contains("more [\"cpu\"] than all nodes have free"));
  CHECK_THAT(rec.action, Catch::Contains("2 × 16 CPU / 64 GiB (like a, pool c6i)"));
  CHECK_THAT(rec.action, !Catch::Contains("fit no existing node shape"));
}

TEST_CASE("a shortfall some pods of which fit no node shape says so",
          "[advice][capacity-shortfall]") {
  analysis::CapacityShortfallEvidence evidence;
  evidence.short_resources = {"cpu", "gpu"};
  evidence.unplaced_pods = 1;
  evidence.unplaceable_pods = {"ml/giant"};
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.target = "cluster/default";
  const auto recs = advice::recommend({f}, config::Config{});
  REQUIRE(recs.size() == 1);
  CHECK_THAT(recs[0].action, Catch::Contains("no existing node shape holds these pods"));
  CHECK_THAT(recs[0].action, Catch::Contains("fit no existing node shape"));
}
