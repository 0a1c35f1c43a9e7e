#include <catch2/catch.hpp>

#include "advice/recommender.h"
#include "analysis/detectors/gpu_node_hoarding.h"

using namespace dagadvisor;
using nlohmann::json;

namespace {

analysis::Finding finding(std::string kind, analysis::Severity severity, std::string target,
                          double impact, json evidence) {
  analysis::Finding f;
  f.kind = std::move(kind);
  f.severity = severity;
  f.target = std::move(target);
  f.impact = impact;
  f.evidence = std::move(evidence);
  return f;
}

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
  return finding("split-dependencies", severity, "run/ml/etl/r1", seconds,
                 {{"namespace", "ml"},
                  {"dag", "etl"},
                  {"run", "r1"},
                  {"split_node_edges", 3},
                  {"cross_zone_edges", 2},
                  {"estimated_transfer_seconds", seconds},
                  {"critical_path_transfer_seconds", seconds}});
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
