#pragma once

#include <memory>
#include <optional>
#include <span>

#include "advice/recommender.h"
#include "common/clock.h"
#include "common/result.h"
#include "config/config.h"
#include "ingestion/cluster_reader.h"
#include "model/adapters/object_source.h"
#include "report/analysis_report.h"

namespace dagadvisor::app {

/// One analysis cycle, the whole data flow: `reader` reads the cluster → cluster model → workflow
/// runs (with the exact edges of the workflow objects `objects` deliver) and their graphs →
/// detectors → advice → an immutable report. `history` (may be null) stamps first/last seen on
/// recommendations across cycles. Gaps of the object sources are warnings on the report, never a
/// failed cycle. `predict` says what the replay predicts beside each recommendation (unset: as the
/// configuration's analysis.prediction says).
Result<std::shared_ptr<const report::AnalysisReport>> runAnalysisCycle(
    ingestion::ClusterReader& reader, const config::Config& config, UnixSeconds at,
    const Clock& clock, advice::RecommendationHistory* history,
    std::span<const model::ObjectSourcePtr> objects = {},
    const std::optional<prediction::RecommendationPredictionOptions>& predict = std::nullopt);

}  // namespace dagadvisor::app
