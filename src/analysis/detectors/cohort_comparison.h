#pragma once

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// cohort-comparison (seed §3.2): A/B between pod cohorts split by a label (scheduler-version):
/// per-pod scheduling latency and run makespan, compared with a Mann-Whitney U test. One finding
/// per cohort compared against the baseline (the first value in sort order).
class CohortComparison final : public Detector {
 public:
  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
