// What a run's what-if says next to its own time: a gain only for a finished run whose what-if
// is shorter, or for an unfinished one already past its estimated what-if.
#include "graph/whatif_reading.h"

#include <catch2/catch.hpp>

#include "whatif_pods.h"

using namespace dagadvisor;
using graph::WhatIfBasis;
using graph::WhatIfVerdict;
using testing::done;
using testing::makeNode;
using testing::pending;

TEST_CASE("a finished run's what-if is a gain only when it is shorter", "[graph][whatif]") {
  const auto gain = graph::readWhatIf(true, 1000, 800.0, WhatIfBasis::kObserved);
  REQUIRE(gain);
  CHECK(gain->verdict == WhatIfVerdict::kGain);
  CHECK(gain->gain_seconds == Approx(200));
  for (double whatif : {1000.0, 1200.0}) {
    const auto none = graph::readWhatIf(true, 1000, whatif, WhatIfBasis::kObserved);
    REQUIRE(none);
    CHECK(none->verdict == WhatIfVerdict::kNoGain);
    CHECK(none->gain_seconds == 0);
  }
  CHECK_FALSE(graph::readWhatIf(true, 1000, std::nullopt, WhatIfBasis::kObserved));
}

TEST_CASE("an unfinished run's what-if is an estimate, a lower bound, or a gain at least",
          "[graph][whatif]") {
  // Elapsed 300 s against an estimated whole-run what-if of 900 s: nothing to compare yet.
  const auto estimate = graph::readWhatIf(false, 300, 900.0, WhatIfBasis::kEstimated);
  REQUIRE(estimate);
  CHECK(estimate->verdict == WhatIfVerdict::kEstimate);
  CHECK(estimate->gain_seconds == 0);
  // Elapsed 1000 s already: the makespan will be at least that, the gain at least 100 s.
  const auto past = graph::readWhatIf(false, 1000, 900.0, WhatIfBasis::kEstimated);
  REQUIRE(past);
  CHECK(past->verdict == WhatIfVerdict::kEstimatedGain);
  CHECK(past->gain_seconds == Approx(100));
  // A lower bound on the what-if bounds no gain, however long the run has taken.
  const auto bound = graph::readWhatIf(false, 1000, 900.0, WhatIfBasis::kLowerBound);
  REQUIRE(bound);
  CHECK(bound->verdict == WhatIfVerdict::kLowerBound);
  CHECK(bound->gain_seconds == 0);
}

TEST_CASE("verdicts have the API's names", "[graph][whatif]") {
  CHECK(graph::whatIfVerdictName(WhatIfVerdict::kGain) == "gain");
  CHECK(graph::whatIfVerdictName(WhatIfVerdict::kNoGain) == "no_gain");
  CHECK(graph::whatIfVerdictName(WhatIfVerdict::kEstimatedGain) == "estimated_gain");
  CHECK(graph::whatIfVerdictName(WhatIfVerdict::kEstimate) == "estimate");
  CHECK(graph::whatIfVerdictName(WhatIfVerdict::kLowerBound) == "lower_bound");
}

TEST_CASE("an unfinished run whose what-if is longer than its elapsed time claims no gain",
          "[graph][whatif]") {
  // r1 took a 10 s then b 400 s. r2 started 40 s ago: a done, b pending. Its what-if charges b's
  // 400 s, far more than the 40 s elapsed: an estimate of the whole run, not a loss or a gain.
  auto c =
      testing::whatIfCase(1000, {makeNode("n1", 8, 64)},
                          {done("r1", "a", "", "n1", 0, 10), done("r1", "b", "a", "n1", 10, 410),
                           done("r2", "a", "", "n1", 960, 970), pending("r2", "b", "a", 970)});
  const auto graphs = graph::buildRunGraphs(c->runs, c->cluster, {});
  const graph::RunGraph& r2 = graphs.at(1);
  REQUIRE(r2.run->run == "r2");
  CHECK(r2.makespan == Approx(40));
  REQUIRE(r2.whatif_makespan);
  CHECK(*r2.whatif_makespan == Approx(410));
  const auto reading = graph::readWhatIf(r2);
  REQUIRE(reading);
  CHECK(reading->verdict == WhatIfVerdict::kEstimate);
  const graph::RunGraph& r1 = graphs.at(0);
  REQUIRE(r1.run->run == "r1");
  const auto observed = graph::readWhatIf(r1);
  REQUIRE(observed);
  CHECK(observed->verdict == WhatIfVerdict::kNoGain);  // a chain: HEFT cannot do better
}
