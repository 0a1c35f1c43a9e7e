#include "replay/scheduler_latency.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace dagadvisor::replay {
namespace {

// A bucket needs this many pods placed at once to speak for itself: with fewer, one pod that
// waited for room in the cluster but not in the replay would set the delay of the whole bucket.
constexpr std::size_t kMinSamples = 3;

// Nearest-rank quantile (0 … 1) of `values`, reordered in place.
double quantile(std::vector<double>& values, double q) {
  const auto rank = static_cast<std::size_t>(q * static_cast<double>(values.size() - 1));
  const auto it = values.begin() + static_cast<std::ptrdiff_t>(rank);
  std::nth_element(values.begin(), it, values.end());
  return *it;
}

bool placedAtOnce(const ReplayPod& pod, const PodOutcome& o) {
  return pod.role != PodRole::kFixed && pod.observed_queue_seconds && o.failed_attempts == 0 &&
         o.evictions == 0 && o.bound == o.arrival;
}

}  // namespace

Result<void> estimateSchedulerLatency(ReplayInput& input, const SchedulerProfile& profile,
                                      double bucket_seconds) {
  for (ReplayPod& pod : input.pods) {
    pod.queue_latency = 0;
  }
  auto baseline = replay(input, profile);
  if (!baseline.ok()) {
    return baseline.error();
  }
  const auto bucketOf = [&](UnixSeconds t) {
    return static_cast<std::int64_t>(std::floor(t / bucket_seconds));
  };
  std::map<std::int64_t, std::vector<double>> samples;
  std::vector<double> all;
  for (ReplayPodId id = 0; id < input.pods.size(); ++id) {
    const ReplayPod& pod = input.pods[id];
    if (placedAtOnce(pod, baseline->pods[id])) {
      samples[bucketOf(baseline->pods[id].arrival)].push_back(*pod.observed_queue_seconds);
      all.push_back(*pod.observed_queue_seconds);
    }
  }
  if (all.empty()) {
    return {};
  }
  std::map<std::int64_t, double> latency;
  for (auto& [bucket, values] : samples) {
    if (values.size() >= kMinSamples) {
      // The lower quartile: a latency spike slows every pod of its bucket, while the pods the
      // replay placed at once but that waited for room in the cluster only lift the top.
      latency[bucket] = quantile(values, 0.25);
    }
  }
  const double overall = quantile(all, 0.5);
  for (ReplayPodId id = 0; id < input.pods.size(); ++id) {
    ReplayPod& pod = input.pods[id];
    if (pod.role == PodRole::kFixed || baseline->pods[id].arrival == kForever) {
      continue;
    }
    const auto it = latency.find(bucketOf(baseline->pods[id].arrival));
    pod.queue_latency = it != latency.end() ? it->second : overall;
    // Never more than the pod waited in all: the delay is part of what was observed.
    if (pod.observed_queue_seconds) {
      pod.queue_latency = std::min(pod.queue_latency, *pod.observed_queue_seconds);
    }
  }
  return {};
}

}  // namespace dagadvisor::replay
