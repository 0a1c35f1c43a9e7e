#include "analysis/detectors/capacity_shortfall.h"

#include <catch2/catch.hpp>

#include "advice/recommender.h"

using namespace dagadvisor;
using nlohmann::json;

TEST_CASE("a shortfall becomes a recommendation naming the node shapes to add",
          "[advice][capacity-shortfall]") {
  analysis::CapacityShortfallEvidence evidence;
  evidence.short_resources = {"cpu"};
  evidence.sized_pods = 5;
  evidence.missing_nodes = 2;
  evidence.missing_nodes_lower_bound = 2;
  evidence.missing_by_shape = {{{16000, 64LL << 30, 0}, "c6i", "a", 2, 2}};
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
  CHECK_THAT(rec.title, Catch::Contains(": 2 node(s) missing"));
  CHECK_THAT(rec.action, Catch::Contains("more [\"cpu\"] than is left"));
  // Queueing urgent work first is the safe default; preempting needs a look at the victims.
  CHECK_THAT(rec.action, Catch::Contains("preemptionPolicy: Never"));
  CHECK_THAT(rec.action, Catch::Contains("2 × 16 CPU / 64 GiB (like a, pool c6i)"));
  CHECK_THAT(rec.action, !Catch::Contains("fit no existing node shape"));
}

TEST_CASE("a shortfall some pods of which fit no node shape says so",
          "[advice][capacity-shortfall]") {
  analysis::CapacityShortfallEvidence evidence;
  evidence.short_resources = {"cpu", "gpu"};
  evidence.sized_pods = 1;
  evidence.unplaceable_pods = {"ml/giant"};
  evidence.unplaceable_total = 1;
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.target = "cluster/default";
  const auto recs = advice::recommend({f}, config::Config{});
  REQUIRE(recs.size() == 1);
  CHECK_THAT(recs[0].action, Catch::Contains("no existing node shape holds these pods"));
  CHECK_THAT(recs[0].action, Catch::Contains("fit no existing node shape"));
}

TEST_CASE("a shortfall gives its node count as a range when the bound is lower",
          "[advice][capacity-shortfall]") {
  analysis::CapacityShortfallEvidence evidence;
  evidence.sized_pods = 7;
  evidence.missing_nodes = 4;
  evidence.missing_nodes_lower_bound = 3;
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.target = "cluster/default";
  const auto recs = advice::recommend({f}, config::Config{});
  REQUIRE(recs.size() == 1);
  CHECK_THAT(recs[0].title, Catch::Contains("3 to 4 node(s) missing"));
  CHECK(recs[0].evidence["missing_nodes_lower_bound"] == 3);
}

TEST_CASE("a shortfall names the recommendations that hold the other pending pods",
          "[advice][capacity-shortfall]") {
  analysis::CapacityShortfallEvidence evidence;
  evidence.sized_pods = 2;
  evidence.diagnosis.pending_pods = 7;
  evidence.diagnosis.by_cause[static_cast<std::size_t>(analysis::PendingCause::kHoarding)] = 5;
  evidence.diagnosis.by_cause[static_cast<std::size_t>(analysis::PendingCause::kCapacity)] = 2;
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.target = "cluster/default";
  const auto recs = advice::recommend({f}, config::Config{});
  REQUIRE(recs.size() == 1);
  const std::string hoarding = advice::stableId("gpu-node-hoarding", "default", "cluster/default");
  CHECK(recs[0].evidence["related"] == json{{"gpu-node-hoarding", hoarding}});
  CHECK_THAT(recs[0].action, Catch::Contains("Of the 7 pending pod(s), 2 are this"));
  CHECK_THAT(recs[0].action, Catch::Contains("5 fit GPU nodes once the non-GPU pods there move (" +
                                             hoarding + ")"));
  CHECK_THAT(recs[0].action, !Catch::Contains("stranded-resources-"));  // no pod is fragmented
}
