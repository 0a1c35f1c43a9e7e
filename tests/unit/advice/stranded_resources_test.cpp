#include "analysis/detectors/stranded_resources.h"

#include <catch2/catch.hpp>

#include "advice/recommender.h"

using namespace dagadvisor;
using nlohmann::json;

namespace {

analysis::Finding strandedFinding(analysis::StrandedResourcesEvidence evidence, std::string target,
                                  analysis::Severity severity = analysis::Severity::kInfo) {
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.severity = severity;
  f.target = std::move(target);
  return f;
}

analysis::Finding strandedNodeFinding(const std::string& node, std::optional<std::int64_t> gpus,
                                      double units, analysis::Severity severity) {
  analysis::StrandedNode stranded;
  stranded.node = node;
  stranded.stranded_gpus = gpus;
  stranded.stranded_memory_bytes = 1;
  stranded.stranded_node_units = units;
  return strandedFinding({stranded}, "node/" + node, severity);
}

analysis::Finding fragmentationFinding(std::size_t blocked, const std::string& cluster,
                                       analysis::Severity severity = analysis::Severity::kInfo,
                                       std::size_t hoarded_nodes = 0) {
  analysis::ClusterFragmentation frag;
  frag.fragmentation_blocked_pods = blocked;
  frag.diagnosis.pending_pods = blocked;
  frag.diagnosis.by_cause[static_cast<std::size_t>(analysis::PendingCause::kFragmentation)] =
      blocked;
  frag.diagnosis.hoarded_nodes = hoarded_nodes;
  return strandedFinding({frag}, "cluster/" + cluster, severity);
}

}  // namespace

TEST_CASE("stranded nodes and fragmentation become one cluster recommendation without a patch",
          "[advice][stranded-resources]") {
  config::Config config;
  config.analysis.cluster = "prod";
  const auto recs =
      advice::recommend({strandedNodeFinding("gpu-1", 4, 1.5, analysis::Severity::kWarning),
                         fragmentationFinding(3, "prod", analysis::Severity::kWarning)},
                        config);
  REQUIRE(recs.size() == 1);
  const advice::Recommendation& rec = recs[0];
  CHECK(rec.kind == "stranded-resources");
  CHECK(rec.target == "cluster/prod");
  CHECK(rec.instances == std::vector<std::string>{"node/gpu-1", "cluster/prod"});
  CHECK(rec.patch_yaml.empty());
  CHECK(rec.evidence["stranded_gpus"] == 4);
  CHECK(rec.evidence["nodes"][0]["node"] == "gpu-1");
  CHECK(rec.evidence["fragmentation"]["fragmentation_blocked_pods"] == 3);
  CHECK(rec.impact_score == Approx(4.5));
  CHECK_THAT(rec.title, Catch::Contains("1 node(s) with stranded resources"));
  CHECK_THAT(rec.title, Catch::Contains("3 pending pod(s) fit the free capacity in total"));
  CHECK_THAT(rec.action, Catch::Contains("no single node"));
}

TEST_CASE("stranded nodes alone give advice without the fragmentation part",
          "[advice][stranded-resources]") {
  analysis::StrandedNode stranded;
  stranded.stranded_node_units = 0.5;
  const auto recs =
      advice::recommend({strandedFinding({stranded}, "node/cpu-1")}, config::Config{});
  REQUIRE(recs.size() == 1);
  CHECK(recs[0].evidence["fragmentation"].is_null());
  CHECK(recs[0].evidence["stranded_gpus"] == 0);
  CHECK_THAT(recs[0].action, !Catch::Contains("no single node"));
  CHECK_THAT(recs[0].title, !Catch::Contains("pending pod"));
}

TEST_CASE("fragmentation alone is not titled with zero stranded nodes",
          "[advice][stranded-resources]") {
  const auto recs = advice::recommend({fragmentationFinding(2, "default")}, config::Config{});
  REQUIRE(recs.size() == 1);
  CHECK_THAT(recs[0].title, !Catch::Contains("node(s)"));
  CHECK_THAT(recs[0].title, Catch::StartsWith("2 pending pod(s)"));
  CHECK_THAT(recs[0].impact, !Catch::Contains("GPU"));
  CHECK(recs[0].instances == std::vector<std::string>{"cluster/default"});
}

TEST_CASE("no tighter packing is advised while GPU nodes are hoarded",
          "[advice][stranded-resources]") {
  // MostAllocated scores the most allocated nodes highest: with hoarded GPU nodes it would pull
  // more small pods onto them, against gpu-node-hoarding's advice.
  const auto free = advice::recommend({fragmentationFinding(2, "default")}, config::Config{});
  REQUIRE(free.size() == 1);
  CHECK_THAT(free[0].action, Catch::Contains("MostAllocated"));
  const auto hoarded = advice::recommend(
      {fragmentationFinding(2, "default", analysis::Severity::kWarning, 3)}, config::Config{});
  REQUIRE(hoarded.size() == 1);
  CHECK_THAT(hoarded[0].action, !Catch::Contains("MostAllocated"));
  CHECK_THAT(hoarded[0].action,
             Catch::Contains(advice::stableId("gpu-node-hoarding", "default", "cluster/default")));
}

TEST_CASE("a stranded node gpu-node-hoarding reports points at that recommendation",
          "[advice][stranded-resources]") {
  analysis::StrandedNode stranded;
  stranded.node = "gpu-1";
  stranded.stranded_gpus = 4;
  stranded.hoarded = true;
  const auto recs =
      advice::recommend({strandedFinding({stranded}, "node/gpu-1")}, config::Config{});
  REQUIRE(recs.size() == 1);
  CHECK_THAT(recs[0].action, Catch::Contains("On gpu-1 the stranded GPUs are gpu-node-hoarding's"));
  CHECK(recs[0].evidence["related"]["gpu-node-hoarding"] ==
        advice::stableId("gpu-node-hoarding", "default", "cluster/default"));
}
