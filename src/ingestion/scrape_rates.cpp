// The counter half of ScrapeEvaluator: deltas since the previous scrape, rates, and the
// quantiles of cumulative histograms.
#include <charconv>
#include <cmath>
#include <limits>

#include "ingestion/scrape_eval.h"

namespace dagadvisor::ingestion {
namespace {

using scrape::realContainer;
using scrape::seriesKey;
using sources::SampleView;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// "0.5", "+Inf", "1e-3" → double; NaN when unreadable.
double parseBound(std::string_view text) {
  if (!text.empty() && text.front() == '+') {
    text.remove_prefix(1);
  }
  double value = kNaN;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size() ? value : kNaN;
}

}  // namespace

void ScrapeEvaluator::addCounterSample(BodyState& state, Family family, std::size_t metric,
                                       const SampleView& s) {
  if (!std::isfinite(s.value)) {
    return;
  }
  Pending p{family, metric, {}, kNaN, 0, kNaN, s.timestamp};
  switch (family) {
    case Family::kLatencyBucket:
    case Family::kLatencyCount:
      p.group = s.label("profile");
      break;
    case Family::kAttempts:
      p.group = s.label("result");
      break;
    case Family::kExtensionBucket:
      p.group = s.label("extension_point");
      break;
    case Family::kCpu:
      if (!realContainer(s.label("container")) || s.label("pod").empty()) {
        return;
      }
      p.group.assign(s.label("namespace")).append("/").append(s.label("pod"));
      break;
    default:
      break;
  }
  if (family == Family::kLatencyBucket || family == Family::kExtensionBucket) {
    p.le = parseBound(s.label("le"));
    if (std::isnan(p.le)) {
      return;
    }
  }
  seriesKey(state.target, s, key_);
  if (const auto prev = counters_.find(key_); prev != counters_.end()) {
    const auto [value, time] = prev->second;
    p.delta = s.value >= value ? s.value - value : s.value;  // a reset restarts from 0
    p.prev_time = time;
  } else {
    p.delta = s.value;
  }
  next_counters_[key_] = {s.value, s.timestamp};
  state.pending.push_back(std::move(p));
}

void ScrapeEvaluator::settle(const BodyState& state) {
  for (const Pending& p : state.pending) {
    const double since = std::isnan(p.prev_time) ? state.process_start : p.prev_time;
    const double interval = p.time - since;
    const bool has_rate = interval > 0 && (p.family != Family::kCpu || !std::isnan(p.prev_time));
    const double rate = has_rate ? p.delta / interval : 0;
    switch (p.family) {
      case Family::kLatencyBucket:
        latency_[p.metric][p.group].buckets[p.le] += p.delta;
        break;
      case Family::kLatencyCount: {
        Latency& latency = latency_[p.metric][p.group];
        latency.rate += rate;
        latency.has_rate |= has_rate;
        break;
      }
      case Family::kAttempts:
        if (has_rate) {
          attempts_[p.group] += rate;
        }
        break;
      case Family::kPreemption:
        preemption_ += rate;
        has_preemption_ |= has_rate;
        break;
      case Family::kExtensionBucket:
        extension_[p.group][p.le] += p.delta;
        break;
      default:
        if (has_rate) {
          Usage& usage = usage_[p.group];
          usage.cpu += rate;
          usage.has_cpu = true;
        }
    }
  }
}
double histogramQuantile(double q, const ScrapeEvaluator::Histogram& buckets) {
  if (std::isnan(q) || buckets.size() < 2 || !std::isinf(buckets.rbegin()->first)) {
    return kNaN;
  }
  if (q < 0 || q > 1) {
    return q < 0 ? -std::numeric_limits<double>::infinity()
                 : std::numeric_limits<double>::infinity();
  }
  // Cumulative counts that dip (a scrape between two bucket updates) are made monotonic, as
  // Prometheus does.
  std::vector<std::pair<double, double>> b(buckets.begin(), buckets.end());
  for (std::size_t i = 1; i < b.size(); ++i) {
    b[i].second = std::max(b[i].second, b[i - 1].second);
  }
  const double observations = b.back().second;
  if (!(observations > 0)) {
    return kNaN;
  }
  const double rank = q * observations;
  std::size_t i = 0;
  while (i + 1 < b.size() && b[i].second < rank) {
    ++i;
  }
  if (i == b.size() - 1) {
    return b[b.size() - 2].first;
  }
  if (i == 0 && b[0].first <= 0) {
    return b[0].first;
  }
  const double start = i == 0 ? 0 : b[i - 1].first;
  const double before = i == 0 ? 0 : b[i - 1].second;
  const double in_bucket = b[i].second - before;
  return in_bucket > 0 ? start + (b[i].first - start) * ((rank - before) / in_bucket) : start;
}

}  // namespace dagadvisor::ingestion
