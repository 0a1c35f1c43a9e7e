#pragma once

#include <memory>
#include <optional>
#include <string>

#include "app/options.h"
#include "common/clock.h"
#include "config/config.h"
#include "prediction/recommendation_predictions.h"
#include "report/analysis_report.h"

namespace dagadvisor::app {

/// One analysis asked for on the command line: the report, or the exit code and why.
struct OneAnalysis {
  std::shared_ptr<const report::AnalysisReport> report;  // null when it failed
  int exit_code = 0;  // kExitUsage (no source, bad --at) or kExitFailure (the source, the cycle)
  std::string error;
};

/// What `analyze` and `whatif --apply` run: the configured source opened, `--at` resolved, the
/// engines' objects read, one cycle with `predict`.
OneAnalysis runOneAnalysis(
    const CliOptions& cli, const config::Config& config, const Clock& clock,
    const std::optional<prediction::RecommendationPredictionOptions>& predict = std::nullopt);

}  // namespace dagadvisor::app
