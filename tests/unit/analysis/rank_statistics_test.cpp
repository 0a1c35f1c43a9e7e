#include "analysis/rank_statistics.h"

#include <catch2/catch.hpp>

using dagadvisor::analysis::hodgesLehmannShift;
using dagadvisor::analysis::holmAdjusted;
using dagadvisor::analysis::mannWhitneyU;

TEST_CASE("small samples without ties get the exact rank-sum distribution", "[stats]") {
  // Every value of a above every value of b: U = 9, the largest of C(6, 3) = 20 orderings.
  const auto t = mannWhitneyU({10, 11, 12}, {1, 2, 3});
  CHECK(t.exact);
  CHECK(t.u == Approx(9));
  CHECK(t.p_greater == Approx(1.0 / 20));
  CHECK(t.p_two_sided == Approx(2.0 / 20));
  // The other way round: a is not larger, its one-sided p is 1.
  const auto reversed = mannWhitneyU({1, 2, 3}, {10, 11, 12});
  CHECK(reversed.u == Approx(0));
  CHECK(reversed.p_greater == Approx(1.0));
  CHECK(reversed.p_two_sided == Approx(2.0 / 20));
}

TEST_CASE("an interleaved sample is no evidence of a shift", "[stats]") {
  // a = 2, 4, 6; b = 1, 3, 5: U = 6 of 9; P(U ≥ 6) = 7 / 20 (U = 6, 7, 8, 9: 3 + 2 + 1 + 1).
  const auto t = mannWhitneyU({2, 4, 6}, {1, 3, 5});
  CHECK(t.exact);
  CHECK(t.u == Approx(6));
  CHECK(t.p_greater == Approx(7.0 / 20));
}

TEST_CASE("ties and large samples use the normal approximation with corrections", "[stats]") {
  // Equal samples: U sits at its mean, every p is 1.
  const auto equal = mannWhitneyU({5, 5, 5, 5}, {5, 5, 5, 5});
  CHECK_FALSE(equal.exact);
  CHECK(equal.p_two_sided == Approx(1.0));
  std::vector<double> low;
  std::vector<double> high;
  for (int i = 0; i < 30; ++i) {
    low.push_back(i);
    high.push_back(100 + i);
  }
  const auto t = mannWhitneyU(high, low);
  CHECK_FALSE(t.exact);  // 60 values, over the exact limit
  CHECK(t.u == Approx(900));
  // z = (450 − 0.5) / sqrt(30·30·61/12) = 6.67: p far below 1e-9.
  CHECK(t.p_greater < 1e-9);
  CHECK(t.p_greater > 0);
}

TEST_CASE("empty samples are no test", "[stats]") {
  const auto t = mannWhitneyU({}, {1, 2});
  CHECK(t.p_two_sided == 1);
  CHECK(t.p_greater == 1);
  CHECK(hodgesLehmannShift({}, {1}) == 0);
}

TEST_CASE("the Hodges-Lehmann shift is the median pairwise difference, robust to an outlier",
          "[stats]") {
  CHECK(hodgesLehmannShift({11, 12, 13}, {1, 2, 3}) == Approx(10));
  // One huge value moves the mean difference by 300 s, the estimate by at most one step.
  CHECK(hodgesLehmannShift({11, 12, 1000}, {1, 2, 3}) == Approx(10));
  // An even count of differences: the mean of the two middle ones.
  CHECK(hodgesLehmannShift({10, 12}, {0}) == Approx(11));
}

TEST_CASE("Holm's adjustment scales the k-th smallest p-value by m − k + 1, monotonically",
          "[stats]") {
  const auto adjusted = holmAdjusted({0.01, 0.04, 0.03, 0.005});
  REQUIRE(adjusted.size() == 4);
  CHECK(adjusted[3] == Approx(0.02));  // 0.005 × 4
  CHECK(adjusted[0] == Approx(0.03));  // 0.01 × 3
  CHECK(adjusted[2] == Approx(0.06));  // 0.03 × 2
  CHECK(adjusted[1] == Approx(0.06));  // 0.04 × 1, raised to keep the order
  CHECK(holmAdjusted({0.6, 0.9}) == std::vector<double>{1.0, 1.0});
  CHECK(holmAdjusted({}).empty());
}

TEST_CASE("large samples are thinned for the shift, which stays where it was", "[stats]") {
  std::vector<double> low;
  std::vector<double> high;
  for (int i = 0; i < 2000; ++i) {
    low.push_back(i);
    high.push_back(i + 250.0);
  }
  // 4,000,000 differences without thinning; 500 × 500 order statistics keep the 250 s shift.
  CHECK(hodgesLehmannShift(high, low) == Approx(250).margin(5));
  CHECK(hodgesLehmannShift(low, high) == Approx(-250).margin(5));
}
