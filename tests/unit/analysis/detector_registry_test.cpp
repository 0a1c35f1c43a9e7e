#include "analysis/detector_registry.h"

#include <catch2/catch.hpp>
#include <set>

#include "support/test_support.h"

using namespace dagadvisor;

TEST_CASE("every registered detector has a unique kind and a section in docs/findings.md",
          "[registry]") {
  const std::string docs =
      testing::readFile(std::string(DAGADVISOR_SOURCE_DIR) + "/docs/findings.md");
  std::set<std::string> kinds;
  const auto detectors = analysis::allDetectors();
  REQUIRE_FALSE(detectors.empty());
  for (const auto& detector : detectors) {
    const std::string kind(detector->info().kind);
    INFO(kind);
    CHECK(kinds.insert(kind).second);
    CHECK_FALSE(detector->info().summary.empty());
    CHECK(docs.find("\n## " + kind + "\n") != std::string::npos);
  }
}

TEST_CASE("disabling a detector in config removes it from the enabled list", "[registry]") {
  config::Detectors settings;
  CHECK(analysis::enabledDetectors(settings).size() == analysis::allDetectors().size());
  settings.gpu_node_hoarding.enabled = false;
  for (const auto& detector : analysis::enabledDetectors(settings)) {
    CHECK(detector->info().kind != "gpu-node-hoarding");
  }
}
