#pragma once

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// scheduling-latency (seed §3.1): p95/p99 of pod scheduling latency over the SLO, per scheduler
/// profile, with the likely cause; falls back to per-pod created → scheduled times when the
/// scheduler's metrics are absent. One finding per profile (or one for the cluster).
class SchedulingLatency final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
