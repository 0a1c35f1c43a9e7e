#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/detector.h"
#include "config/field.h"

namespace dagadvisor::analysis {

/// One likely cause of slow scheduling, with the number that points at it.
struct SchedulingCause {
  enum class Kind {
    kUnschedulable,       // subject: the plugin rejecting most pods; value: pods it rejected
    kFailedAttempts,      // value: share of the scheduling attempts that found no node
    kSchedulerErrors,     // value: errors per second
    kSlowExtensionPoint,  // subject: the slowest extension point; value: its p99, seconds
    kPreemption,          // value: preemption attempts per second
    kQueue,               // subject: the fullest scheduler queue; value: pods in it
  };
  Kind kind = Kind::kUnschedulable;
  std::string subject;  // empty for the kinds that name none
  double value = 0;

  /// "unschedulable", "failed_attempts", "scheduler_errors", "slow_extension_point",
  /// "preemption", "queue": the "cause" the API renders.
  std::string_view name() const;
};

/// Evidence of one scheduler profile (or of the cluster's pods) scheduling over its SLO.
struct SchedulingLatencyEvidence {
  static constexpr std::string_view kKind = "scheduling-latency";
  std::string profile;  // the scheduler profile, or "all pods"
  std::string source;   // the latency histogram's metric name, or "pod_times"
  double p95_seconds = 0;
  double p99_seconds = 0;
  double p95_slo_seconds = 0;
  double p99_slo_seconds = 0;
  std::vector<SchedulingCause> causes;    // most telling first; empty from pod times
  std::optional<std::size_t> pods;        // source "pod_times": the pods measured
  std::optional<double> pods_per_second;  // from the scheduler's histogram: its rate

  nlohmann::json toJson() const;
};

/// The settings of scheduling-latency: `detectors.scheduling_latency` in the configuration file.
struct SchedulingLatencySettings {
  static constexpr std::string_view kSection = "scheduling_latency";

  bool enabled = true;
  config::Seconds p95_slo{5};
  config::Seconds p99_slo{30};
  int min_pods = 20;

  bool operator==(const SchedulingLatencySettings&) const = default;
  /// This section's rows, each with its rule and what it means: the one place the
  /// settings are documented (the example file and docs/findings.md are checked against it).
  std::vector<config::Field> fields();
};

/// scheduling-latency (seed §3.1): p95/p99 of pod scheduling latency over the SLO, per scheduler
/// profile, with the likely cause; falls back to per-pod created → scheduled times when the
/// scheduler's metrics are absent. One finding per profile (or one for the cluster).
class SchedulingLatency final : public Detector {
 public:
  using Settings = SchedulingLatencySettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
