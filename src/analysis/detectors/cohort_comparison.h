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
  double p_value = 1;           // two-sided, of this test alone
  double adjusted_p_value = 1;  // Holm-adjusted over every test of the cycle (1 when untested)

  double differenceSeconds() const { return median_seconds - baseline_median_seconds; }
};

/// One measure (scheduling latency or run makespan) of a cohort compared with the baseline.
struct CohortMeasure {
  std::size_t baseline_samples = 0;
  std::size_t samples = 0;
  std::optional<CohortMedians> medians;  // none when a side has no sample
  /// "no_data", "too_few_samples", "no_significant_difference", "slower" or "faster".
  std::string verdict;

  /// Both sides have min_samples: the measure is one test of the family Holm adjusts.
  bool tested() const { return medians && verdict != "no_data" && verdict != "too_few_samples"; }
  double pValue() const { return medians ? medians->p_value : 1.0; }
  double adjustedPValue() const { return medians ? medians->adjusted_p_value : 1.0; }
  double differenceSeconds() const { return medians ? medians->differenceSeconds() : 0.0; }
};

/// Evidence of one cohort compared with the baseline cohort, within one DAG.
struct CohortComparisonEvidence {
  static constexpr std::string_view kKind = "cohort-comparison";
  /// "<namespace>/<dag>" whose pods and runs were compared; "" for the pods of no workflow run
  /// (latency only). Cohorts are never pooled across DAGs: a 25-minute and a 3-hour DAG in one
  /// sample would measure the DAG mix, not the cohort.
  std::string dag;
  std::string label;     // the pod label that splits the cohorts
  std::string baseline;  // its value on the baseline cohort (the first in sort order)
  std::string cohort;    // its value on this cohort
  std::string verdict;   // "slower", "faster" or "no verdict", over both measures
  CohortMeasure latency;
  CohortMeasure makespan;
  std::size_t family_tests = 0;  // tests in the Holm family (every DAG, cohort and measure)

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

/// cohort-comparison (seed §3.2): A/B between pod cohorts split by a label (scheduler-version),
/// per DAG: per-pod scheduling latency and run makespan, each compared with a Mann-Whitney U
/// test, the p-values Holm-adjusted over every test of the cycle. One finding per DAG and cohort
/// compared against that DAG's baseline (its first value in sort order) when a measure has
/// min_samples on both sides.
class CohortComparison final : public Detector {
 public:
  using Settings = CohortComparisonSettings;

  const DetectorInfo& info() const override;
  void analyze(const AnalysisInput& input, FindingSink& out) const override;
};

}  // namespace dagadvisor::analysis
