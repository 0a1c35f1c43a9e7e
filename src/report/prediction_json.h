#pragma once

#include <nlohmann/json.hpp>

#include "report/analysis_report.h"

// The API's rendering of the replayed predictions (docs/whatif.md, "Predictions").
namespace dagadvisor::report {

nlohmann::json predictionJson(const prediction::Prediction& prediction);

/// `predicted` of one recommendation: its prediction, or why it has none (`replayed: false`
/// with a reason: no change the replay models, or the window could not be replayed).
nlohmann::json predictedJson(const AnalysisReport& report, const advice::Recommendation& rec);

/// The report's `prediction`: how well the unchanged replay reproduces the window
/// (calibration), its size and cost, and the top recommendations applied together.
nlohmann::json predictionSummaryJson(const AnalysisReport& report);

/// `whatif --apply --output json`: the applied ids, the calibration and the joint prediction.
nlohmann::json whatIfJson(const AnalysisReport& report);

}  // namespace dagadvisor::report
