#pragma once

#include <string>

#include "report/analysis_report.h"

// The replayed predictions in words, for the text report and `whatif --apply`.
namespace dagadvisor::report {

/// "−38m48s" / "+8m53s": a change of seconds with its sign.
std::string signedSeconds(double seconds);

/// "makespan of 80 affected run(s) 33m20s → 42m14s (+8m53s, range +6m02s … +11m53s); …": every
/// headline figure of a replayed prediction, or why there is none.
std::string predictionLine(const prediction::Prediction& prediction);

/// The recommendation's prediction line, or why it has none.
std::string predictedLine(const AnalysisReport& report, const advice::Recommendation& rec);

/// A table cell: the change of the affected runs' makespan and of the GPU pods' wait, or "-".
std::string predictedCell(const AnalysisReport& report, const advice::Recommendation& rec);

/// `whatif --apply`: the applied recommendations, the calibration, the cluster's figures before
/// and after, and every affected run.
std::string renderWhatIfText(const AnalysisReport& report);

}  // namespace dagadvisor::report
