#include <catch2/catch.hpp>

#include "advice/kind_list.h"
#include "unit/analysis/scenarios.h"

using namespace dagadvisor;

TEST_CASE("no registered detector reports anything on a healthy cluster", "[detector][healthy]") {
  testing::RunFixture fx = testing::healthyScenario();
  for (const auto& detector : advice::allDetectors()) {
    INFO(detector->info().kind);
    CHECK(fx.detect(*detector).empty());
  }
}
