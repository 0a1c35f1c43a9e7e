#pragma once

#include <memory>

#include "advice/analysis_report.h"
#include "advice/recommender.h"
#include "common/clock.h"
#include "common/result.h"
#include "config/config.h"
#include "sources/metrics_source.h"

namespace dagadvisor::app {

/// One analysis cycle, the whole data flow: fetch → cluster model → workflow runs and their
/// graphs → detectors → advice → an immutable report. `history` (may be null) stamps first/last
/// seen on recommendations across cycles.
Result<std::shared_ptr<const advice::AnalysisReport>> runAnalysisCycle(
    sources::MetricsSource& source, const config::Config& config, UnixSeconds at,
    const Clock& clock, advice::RecommendationHistory* history);

}  // namespace dagadvisor::app
