#pragma once

#include <cstddef>
#include <vector>

namespace dagadvisor::analysis {

/// The Mann-Whitney U test of sample `a` against sample `b`: distribution-free, so one long run
/// or a skewed run-time distribution cannot fake a difference the way it moves a mean.
struct RankSumTest {
  double u = 0;            // pairs (x of a, y of b) with x > y, ties counted one half
  double p_two_sided = 1;  // a and b differ in either direction
  double p_greater = 1;    // one-sided: a tends to be larger than b
  bool exact = false;      // exact permutation distribution (small samples, no ties), else normal
};

/// Exact p-values when both samples together hold at most kExactRankSumSamples values and no
/// value repeats (the small samples of a few runs, where the normal approximation is poor);
/// otherwise the normal approximation with tie and continuity corrections. Empty samples give
/// u = 0 and p = 1.
RankSumTest mannWhitneyU(const std::vector<double>& a, const std::vector<double>& b);

/// 20: the exact distribution costs O(n · n1 · n²) and a cycle may test thousands of tasks; from
/// about 10 values a side the normal approximation is within a few percent.
inline constexpr std::size_t kExactRankSumSamples = 20;

/// The Hodges-Lehmann estimate of the shift of `a` over `b`: the median of every difference
/// x − y (x of a, y of b). Robust to a few outliers on either side; 0 when a sample is empty.
/// A sample of more than kShiftSampleCap values is first thinned to that many evenly spaced
/// order statistics, so that memory and time stay bounded (a DAG with thousands of runs).
double hodgesLehmannShift(const std::vector<double>& a, const std::vector<double>& b);

inline constexpr std::size_t kShiftSampleCap = 500;

/// Holm's step-down adjustment of `p_values` (same order out as in): an adjusted p-value at or
/// under α rejects with a family-wise error rate of at most α, whatever the dependence between
/// the tests.
std::vector<double> holmAdjusted(const std::vector<double>& p_values);

}  // namespace dagadvisor::analysis
