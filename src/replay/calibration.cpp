#include "replay/calibration.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>
#include <utility>

namespace dagadvisor::replay {
namespace {

// Nearest-rank percentile of sorted values: an actual run's error, never an interpolation.
double percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) {
    return 0;
  }
  const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(sorted.size())));
  return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

// The GPU pods' mean wait within the window, observed and replayed (CalibrationReport).
void calibrateGpuWait(const ReplayInput& input, const ReplayResult& result,
                      CalibrationReport& report) {
  double observed = 0;
  double replayed = 0;
  for (std::size_t i = 0; i < input.pods.size() && i < result.pods.size(); ++i) {
    const ReplayPod& pod = input.pods[i];
    if (!requestsGpusAnew(pod)) {
      continue;
    }
    const double to_end = std::max(0.0, input.window_end - pod.arrival);
    observed += std::min(pod.observed_queue_seconds.value_or(to_end), to_end);
    replayed += result.pods[i].waitUntil(input.window_end);
    ++report.gpu_pods;
  }
  const double n = std::max<double>(1, static_cast<double>(report.gpu_pods));
  report.observed_gpu_pod_wait = observed / n;
  report.replayed_gpu_pod_wait = replayed / n;
}

}  // namespace

CalibrationReport calibrate(const ReplayInput& input, const ReplayResult& result) {
  CalibrationReport report;
  calibrateGpuWait(input, result, report);
  std::vector<double> errors;
  for (std::size_t r = 0; r < input.runs.size() && r < result.runs.size(); ++r) {
    RunCalibration row;
    row.run = input.runs[r].id;
    row.observed_finished = input.runs[r].observed_finished;
    row.replayed_complete = result.runs[r].complete;
    row.observed_makespan = input.runs[r].observed_makespan;
    row.replayed_makespan = result.runs[r].makespan;
    if (row.observed_makespan > 0) {
      row.relative_error =
          std::abs(row.replayed_makespan - row.observed_makespan) / row.observed_makespan;
    }
    if (row.observed_finished && row.replayed_complete) {
      errors.push_back(row.relative_error);
    }
    report.runs.push_back(std::move(row));
  }
  std::sort(errors.begin(), errors.end());
  report.finished_runs = errors.size();
  report.median_error = percentile(errors, 0.5);
  report.p90_error = percentile(errors, 0.9);
  report.max_error = errors.empty() ? 0 : errors.back();
  double sum = 0;
  for (double e : errors) {
    sum += e;
  }
  report.mean_error = errors.empty() ? 0 : sum / static_cast<double>(errors.size());
  return report;
}

Result<CalibrationReport> calibrate(const ReplayInput& input, const SchedulerProfile& profile) {
  auto result = replay(input, profile);
  if (!result.ok()) {
    return result.error();
  }
  return calibrate(input, *result);
}

Result<FittedProfile> fitQueueOrder(const ReplayInput& input, SchedulerProfile base) {
  std::optional<FittedProfile> best;
  for (QueueOrder order : {QueueOrder::kQueueTimestamp, QueueOrder::kArrival}) {
    base.queue_order = order;
    auto c = calibrate(input, base);
    if (!c.ok()) {
      return c.error();
    }
    const auto score = [](const CalibrationReport& r) {
      return std::make_tuple(r.median_error, r.p90_error, r.mean_error);
    };
    if (!best || score(*c) < score(best->calibration)) {
      best = FittedProfile{base, std::move(*c)};
    }
  }
  return std::move(*best);
}

}  // namespace dagadvisor::replay
