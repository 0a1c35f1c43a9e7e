#include <catch2/catch.hpp>

#include "advice/recommender.h"
#include "analysis/detectors/gpu_node_hoarding.h"
#include "analysis/detectors/split_dependencies.h"

using namespace dagadvisor;

namespace {

analysis::Finding hoarding(analysis::Severity severity, int free_gpus) {
  analysis::GpuNodeHoardingEvidence evidence;
  evidence.node = "gpu-1";
  evidence.free.gpus = free_gpus;
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.severity = severity;
  f.target = "node/gpu-1";
  f.impact = free_gpus;
  return f;
}

analysis::Finding split(analysis::Severity severity, double seconds) {
  analysis::SplitDependenciesEvidence evidence;
  evidence.scope = {"ml", "etl", "r1", {}, {}};
  evidence.same_zone_split_edges = 1;
  evidence.cross_zone_edges = 2;
  evidence.modelled_transfer_seconds = seconds;
  evidence.critical_path_modelled_transfer_seconds = seconds;
  analysis::Finding f = analysis::findingOf(std::move(evidence));
  f.severity = severity;
  f.target = "run/ml/etl/r1";
  f.impact = seconds;
  return f;
}

std::vector<std::string> kinds(const std::vector<advice::Recommendation>& recs) {
  std::vector<std::string> out;
  for (const auto& rec : recs) {
    out.push_back(rec.kind);
  }
  return out;
}

}  // namespace

TEST_CASE("impacts in different units are not compared: kind priority decides at equal severity",
          "[advice][ranking]") {
  // 900 s of transfer is not "more" than 2 idle GPUs; the GPUs come first by kind priority.
  const auto recs = advice::recommend(
      {split(analysis::Severity::kWarning, 900), hoarding(analysis::Severity::kWarning, 2)}, {});
  CHECK(kinds(recs) == std::vector<std::string>{"gpu-node-hoarding", "split-dependencies"});
}

TEST_CASE("a more severe recommendation ranks first whatever its kind", "[advice][ranking]") {
  const auto recs = advice::recommend(
      {hoarding(analysis::Severity::kInfo, 4), split(analysis::Severity::kWarning, 30)}, {});
  CHECK(kinds(recs) == std::vector<std::string>{"split-dependencies", "gpu-node-hoarding"});
}
