#include <catch2/catch.hpp>

#include "advice/recommender.h"

using namespace dagadvisor;
using nlohmann::json;

TEST_CASE("a shortfall becomes a recommendation naming the node shapes to add",
          "[advice][capacity-shortfall]") {
  analysis::Finding f;
  f.kind = "capacity-shortfall";
  f.severity = analysis::Severity::kWarning;
  f.target = "cluster/default";
  f.evidence = {
      {"short_resources", json::array({"cpu"})},
      {"unplaced_pods", 5},
      {"missing_nodes", 2},
      {"missing_by_shape",
       json::array({{{"shape", {{"cpu_millis", 16000}, {"memory_bytes", 64LL << 30}, {"gpus", 0}}},
                     {"pool", "c6i"},
                     {"example_node", "a"},
                     {"count", 2}}})},
      {"unplaceable_pods", json::array()}};
  const auto recs = advice::recommend({f}, config::Config{});
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK(rec.kind == "capacity-shortfall");
  CHECK(rec.target == "cluster/default");
  CHECK(rec.impact_score == 5);
  CHECK(rec.patch_yaml.empty());
  CHECK_THAT(rec.title, Catch::Contains("about 2 node(s) missing"));
  CHECK_THAT(rec.action, Catch::Contains("2 × 16 CPU / 64 GiB (like a, pool c6i)"));
  CHECK_THAT(rec.action, !Catch::Contains("fit no existing node shape"));
}
