#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dagadvisor::model {

/// Scheduling-latency quantiles of one scheduler profile over the analysis window, in seconds.
/// A missing quantile means the histogram had no observations in the window, not zero latency.
struct ProfileLatency {
  std::string profile;  // "default-scheduler", or "" when the metric has no profile label
  std::optional<double> p50;
  std::optional<double> p95;
  std::optional<double> p99;
  double pods_per_second = 0;  // observation rate of the histogram over the window
};

/// What the kube-scheduler's own metrics say over the analysis window. `present` is false when
/// none of the scheduler metrics exist (managed control planes hide them): detectors then fall
/// back to per-pod created → scheduled times from kube-state-metrics.
struct SchedulerStats {
  bool present = false;
  std::string latency_metric;           // which of the configured latency histograms was found
  std::vector<ProfileLatency> latency;  // sorted by profile
  std::map<std::string, double> pending_by_queue;         // active, backoff, unschedulable, gated
  std::map<std::string, double> unschedulable_by_plugin;  // pods, by the filter that rejected them
  std::map<std::string, double> attempts_per_second;  // by result: scheduled, unschedulable, error
  double preemption_attempts_per_second = 0;
  std::map<std::string, double>
      extension_point_p99;  // seconds, by extension point (Filter, Score…)
};

}  // namespace dagadvisor::model
