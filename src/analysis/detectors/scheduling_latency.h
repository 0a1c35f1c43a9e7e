#pragma once

#include <cstddef>
#include <cstdint>
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

/// One pod still waiting for a node, `age_seconds` after its creation.
struct WaitingPod {
  std::string namespace_;
  std::string pod;
  double age_seconds = 0;
  std::int64_t gpus = 0;  // GPUs it requests
};

/// The pods still pending at the analysis time: the scheduler's histogram records a pod only
/// once it is scheduled, so a queue that never drains is invisible there. Ages are measured
/// (analysis time − kube_pod_created), and each is a lower bound of that pod's latency.
struct PendingWait {
  std::size_t pods = 0;          // pending, no node chosen, with a creation time
  std::size_t over_slo = 0;      // of them, pending longer than the p99 SLO
  std::size_t gpu_pods = 0;      // pending pods requesting GPUs
  std::size_t gpu_over_slo = 0;  // of them, pending longer than the p99 SLO
  double oldest_seconds = 0;
  double median_seconds = 0;
  double oldest_gpu_seconds = 0;   // 0 without pending GPU pods
  std::vector<WaitingPod> oldest;  // the oldest few, oldest first
};

/// Evidence of one scheduler profile (or of the cluster's pods) scheduling over its SLO, or of
/// pods still pending longer than the SLO (source "pending_pods").
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
  std::optional<PendingWait> pending;     // source "pending_pods"

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
/// scheduler's metrics are absent. One finding per profile (or one for the cluster), and one for
/// the pods still pending longer than the p99 SLO, which no histogram has counted yet.
class SchedulingLatency final : public Detector {
 public:
  using Settings = SchedulingLatencySettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
