#include <catch2/catch.hpp>

#include "advice/recommender.h"

using namespace dagadvisor;
using nlohmann::json;

TEST_CASE("stranded nodes and fragmentation become one cluster recommendation without a patch",
          "[advice][stranded-resources]") {
  config::Config config;
  config.analysis.cluster = "prod";
  analysis::Finding node;
  node.kind = "stranded-resources";
  node.severity = analysis::Severity::kWarning;
  node.target = "node/gpu-1";
  node.evidence = {{"scope", "node"},
                   {"node", "gpu-1"},
                   {"stranded", {{"free_gpus", 4}, {"free_memory_bytes", 1}}},
                   {"stranded_node_units", 1.5}};
  analysis::Finding frag;
  frag.kind = "stranded-resources";
  frag.severity = analysis::Severity::kWarning;
  frag.target = "cluster/prod";
  frag.evidence = {{"scope", "cluster"}, {"fragmentation_blocked_pods", 3}};
  const auto recs = advice::recommend({node, frag}, config);
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK(rec.kind == "stranded-resources");
  CHECK(rec.target == "cluster/prod");
  CHECK(rec.instances == std::vector<std::string>{"node/gpu-1", "cluster/prod"});
  CHECK(rec.patch_yaml.empty());
  CHECK(rec.evidence["stranded_gpus"] == 4);
  CHECK(rec.impact_score == Approx(4.5));
  CHECK_THAT(rec.title, Catch::Contains("1 node(s) with stranded resources"));
  CHECK_THAT(rec.title, Catch::Contains("3 pending pod(s) fit the free capacity in total"));
  CHECK_THAT(rec.action, Catch::Contains("no single node"));
}

TEST_CASE("stranded nodes alone give advice without the fragmentation part",
          "[advice][stranded-resources]") {
  analysis::Finding node;
  node.kind = "stranded-resources";
  node.target = "node/cpu-1";
  node.evidence = {{"scope", "node"}, {"stranded", json::object()}, {"stranded_node_units", 0.5}};
  const auto recs = advice::recommend({node}, config::Config{});
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].evidence["fragmentation"].is_null());
  CHECK_THAT(recs[0].action, !Catch::Contains("no single node"));
  CHECK_THAT(recs[0].title, !Catch::Contains("pending pod"));
}

TEST_CASE("fragmentation alone is not titled with zero stranded nodes",
          "[advice][stranded-resources]") {
  analysis::Finding frag;
  frag.kind = "stranded-resources";
  frag.target = "cluster/default";
  frag.evidence = {{"scope", "cluster"}, {"fragmentation_blocked_pods", 2}};
  const auto recs = advice::recommend({frag}, config::Config{});
  REQUIRE(recs.size() == 1);
  CHECK_THAT(recs[0].title, !Catch::Contains("node(s)"));
  CHECK_THAT(recs[0].title, Catch::StartsWith("2 pending pod(s)"));
  CHECK_THAT(recs[0].impact, !Catch::Contains("GPU"));
  CHECK(recs[0].instances == std::vector<std::string>{"cluster/default"});
}
