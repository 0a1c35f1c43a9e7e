#include "analysis/rank_statistics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace dagadvisor::analysis {
namespace {

struct Ranked {
  double rank_sum_a = 0;
  double tie_term = 0;  // Σ (t³ − t) over groups of t equal values
  bool ties = false;
};

Ranked rankSum(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<std::pair<double, bool>> all;  // value, from a
  all.reserve(a.size() + b.size());
  for (double v : a) {
    all.emplace_back(v, true);
  }
  for (double v : b) {
    all.emplace_back(v, false);
  }
  std::sort(all.begin(), all.end());
  Ranked out;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) {
      ++j;
    }
    const double rank = (static_cast<double>(i + j) + 1) / 2;  // 1-based average rank
    for (std::size_t k = i; k < j; ++k) {
      out.rank_sum_a += all[k].second ? rank : 0;
    }
    const auto t = static_cast<double>(j - i);
    out.tie_term += t * t * t - t;
    out.ties = out.ties || j - i > 1;
    i = j;
  }
  return out;
}

// counts[u] = orderings of n1 + n2 distinct values whose U statistic is u, built rank by rank:
// ways[j][s] = choices of j of the ranks seen so far for sample a with rank sum s.
std::vector<double> exactUCounts(std::size_t n1, std::size_t n2) {
  const std::size_t n = n1 + n2;
  const std::size_t max_sum = n * (n + 1) / 2;
  const std::size_t row = max_sum + 1;
  std::vector<double> ways{1.0};  // row-major [j][s]: one way to choose nothing, sum 0
  ways.resize((n1 + 1) * row, 0.0);
  for (std::size_t rank = 1; rank <= n; ++rank) {
    for (std::size_t j = std::min(rank, n1); j >= 1; --j) {
      for (std::size_t s = max_sum; s >= rank; --s) {
        ways[j * row + s] += ways[(j - 1) * row + s - rank];
      }
    }
  }
  const std::size_t min_sum = n1 * (n1 + 1) / 2;
  const auto first = ways.begin() + static_cast<std::ptrdiff_t>(n1 * row + min_sum);
  std::vector<double> counts(first, first + static_cast<std::ptrdiff_t>(n1 * n2 + 1));
  return counts;
}

void exactP(RankSumTest& t, std::size_t n1, std::size_t n2) {
  const std::vector<double> counts = exactUCounts(n1, n2);
  const double total = std::accumulate(counts.begin(), counts.end(), 0.0);
  const auto u = static_cast<std::size_t>(std::llround(t.u));
  double at_least = 0;
  double at_most = 0;
  for (std::size_t k = 0; k < counts.size(); ++k) {
    at_least += k >= u ? counts[k] : 0;
    at_most += k <= u ? counts[k] : 0;
  }
  t.p_greater = at_least / total;
  t.p_two_sided = std::min(1.0, 2 * std::min(at_least, at_most) / total);
  t.exact = true;
}

void normalP(RankSumTest& t, double n1, double n2, double tie_term) {
  const double n = n1 + n2;
  const double variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (variance <= 0) {
    return;  // every value equal: no evidence either way
  }
  const double sigma = std::sqrt(variance);
  const double centred = t.u - n1 * n2 / 2;
  const double z_greater = (centred - 0.5) / sigma;
  const double z_two = std::max(0.0, std::abs(centred) - 0.5) / sigma;
  t.p_greater = 0.5 * std::erfc(z_greater / std::sqrt(2.0));
  t.p_two_sided = std::min(1.0, std::erfc(z_two / std::sqrt(2.0)));
}

double median(std::vector<double>& values) {
  if (values.empty()) {
    return 0;
  }
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  const double upper = values[mid];
  if (values.size() % 2 == 1) {
    return upper;
  }
  return (upper +
          *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid))) /
         2;
}

// At most `cap` evenly spaced order statistics of `values` (all of them when fewer).
std::vector<double> thinned(std::vector<double> values, std::size_t cap) {
  if (values.size() <= cap) {
    return values;
  }
  std::sort(values.begin(), values.end());
  std::vector<double> out;
  out.reserve(cap);
  const double step = static_cast<double>(values.size() - 1) / static_cast<double>(cap - 1);
  for (std::size_t i = 0; i < cap; ++i) {
    out.push_back(values[static_cast<std::size_t>(std::lround(step * static_cast<double>(i)))]);
  }
  return out;
}

}  // namespace

RankSumTest mannWhitneyU(const std::vector<double>& a, const std::vector<double>& b) {
  RankSumTest t;
  if (a.empty() || b.empty()) {
    return t;
  }
  const Ranked ranked = rankSum(a, b);
  const auto n1 = static_cast<double>(a.size());
  const auto n2 = static_cast<double>(b.size());
  t.u = ranked.rank_sum_a - n1 * (n1 + 1) / 2;
  if (!ranked.ties && a.size() + b.size() <= kExactRankSumSamples) {
    exactP(t, a.size(), b.size());
  } else {
    normalP(t, n1, n2, ranked.tie_term);
  }
  return t;
}

double hodgesLehmannShift(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) {
    return 0;
  }
  const std::vector<double> xs = thinned(a, kShiftSampleCap);
  const std::vector<double> ys = thinned(b, kShiftSampleCap);
  std::vector<double> differences;
  differences.reserve(xs.size() * ys.size());
  for (double x : xs) {
    for (double y : ys) {
      differences.push_back(x - y);
    }
  }
  return median(differences);
}

std::vector<double> holmAdjusted(const std::vector<double>& p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return p_values[x] < p_values[y]; });
  std::vector<double> adjusted(m, 1.0);
  double running = 0;  // adjusted p-values never decrease along the sorted order
  for (std::size_t i = 0; i < m; ++i) {
    const double scaled = static_cast<double>(m - i) * p_values[order[i]];
    running = std::max(running, std::min(1.0, scaled));
    adjusted[order[i]] = running;
  }
  return adjusted;
}

}  // namespace dagadvisor::analysis
