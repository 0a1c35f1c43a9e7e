#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "analysis/detector.h"
#include "config/field.h"

namespace dagadvisor::analysis {

/// Medians and the Mann-Whitney U test of a cohort against the baseline, when both have samples.
struct CohortMedians {
  double baseline_median_seconds = 0;
  double median_seconds = 0;
  double u = 0;
  double p_value = 1;  // two-sided

  double differenceSeconds() const { return median_seconds - baseline_median_seconds; }
};

/// One measure (scheduling latency or run makespan) of a cohort compared with the baseline.
struct CohortMeasure {
  std::size_t baseline_samples = 0;
  std::size_t samples = 0;
  std::optional<CohortMedians> medians;  // none when a side has no sample
  /// "no_data", "too_few_samples", "no_significant_difference", "slower" or "faster".
  std::string verdict;

  double pValue() const { return medians ? medians->p_value : 1.0; }
  double differenceSeconds() const { return medians ? medians->differenceSeconds() : 0.0; }
};

/// Evidence of one cohort compared with the baseline cohort.
struct CohortComparisonEvidence {
  static constexpr std::string_view kKind = "cohort-comparison";
  std::string label;     // the pod label that splits the cohorts
  std::string baseline;  // its value on the baseline cohort (the first in sort order)
  std::string cohort;    // its value on this cohort
  std::string verdict;   // "slower", "faster" or "no verdict", over both measures
  CohortMeasure latency;
  CohortMeasure makespan;

  nlohmann::json toJson() const;
};

/// The settings of cohort-comparison: `detectors.cohort_comparison` in the configuration file.
struct CohortComparisonSettings {
  static constexpr std::string_view kSection = "cohort_comparison";

  bool enabled = true;
  std::string cohort_label = "scheduler-version";
  int min_samples = 20;
  double max_p_value = 0.05;

  bool operator==(const CohortComparisonSettings&) const = default;
  /// This section's rows, each with its rule and what it means: the one place the
  /// settings are documented (the example file and docs/findings.md are checked against it).
  std::vector<config::Field> fields();
};

/// cohort-comparison (seed §3.2): A/B between pod cohorts split by a label (scheduler-version):
/// per-pod scheduling latency and run makespan, compared with a Mann-Whitney U test. One finding
/// per cohort compared against the baseline (the first value in sort order).
class CohortComparison final : public Detector {
 public:
  using Settings = CohortComparisonSettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
