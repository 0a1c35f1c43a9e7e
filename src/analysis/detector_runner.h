#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "analysis/detector.h"

namespace dagadvisor::analysis {

/// How one detector fared in a cycle (for self-metrics and the report).
struct DetectorRun {
  std::string name;
  double seconds = 0;
  bool ok = true;
  std::string error;
  std::size_t findings = 0;
  /// Why the detector gave no advice (FindingSink::noAdvice): its input lacked the data it
  /// needs. Empty when it judged the data, whatever it found.
  std::string no_advice_reason;
};

struct DetectionResult {
  std::vector<Finding> findings;  // in detector order
  std::vector<DetectorRun> runs;
};

/// Runs each detector on `input`, timing it. A detector that throws is isolated: its findings
/// are dropped, the error is recorded, and the others still run.
DetectionResult runDetectors(const std::vector<DetectorPtr>& detectors, const AnalysisInput& input);

}  // namespace dagadvisor::analysis
