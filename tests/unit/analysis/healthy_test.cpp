#include <catch2/catch.hpp>

#include "analysis/detector_registry.h"
#include "scenarios.h"

using namespace dagadvisor;

TEST_CASE("no registered detector reports anything on a healthy cluster", "[detector][healthy]") {
  testing::RunFixture fx = testing::healthyScenario();
  for (const auto& detector : analysis::allDetectors()) {
    INFO(detector->info().kind);
    CHECK(fx.detect(*detector).empty());
  }
}
