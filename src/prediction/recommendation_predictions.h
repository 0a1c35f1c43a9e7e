#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "advice/recommendation.h"
#include "config/config.h"
#include "prediction/prediction.h"

namespace dagadvisor::prediction {

/// The predictions of one cycle's recommendations.
struct RecommendationPredictions {
  std::string unavailable;  // why the window could not be replayed ("" when it was)
  replay::CalibrationReport calibration;
  analysis::TransferPrices transfer_prices;  // PredictionContext::transferPrices
  std::size_t replayed_pods = 0;
  UnixSeconds window_start = 0;  // the window replayed (PredictionContext::window)
  UnixSeconds window_end = 0;
  std::unordered_map<std::string, Prediction> by_id;  // recommendations with changes only
  /// The recommendations with changes, in rank order, applied together (up to `together_limit`).
  std::vector<std::string> together_ids;
  /// Replayed, reliably harmful on their own (reliablyHarmful), so not applied together unless
  /// named (`whatif --apply ID,…`).
  std::vector<std::string> left_out_of_together;
  Prediction together;
  double seconds = 0;  // wall time of every replay
};

struct RecommendationPredictionOptions {
  PredictionOptions replay;
  bool enabled = true;
  std::size_t max_recommendations = 10;  // replayed one by one, in rank order
  std::size_t max_pods = 20000;          // a larger window is not replayed
  /// From the configuration's `analysis.prediction` and `cluster_labels.zone`.
  static RecommendationPredictionOptions fromConfig(const config::Config& config);
  /// Which recommendations `together` applies: these ids (`whatif --apply`), or, when none are
  /// named, the first `together_limit` replayable ones in rank order that are not reliably
  /// harmful on their own.
  std::vector<std::string> together_selection;
  std::size_t together_limit = 10;
};

/// The prediction of `rec` in this cycle, or, when it has none, why: it changes nothing the
/// replay models, the window could not be replayed, it was beyond the cycle's bound, or its own
/// change set could not be applied.
struct PredictionOf {
  const Prediction* prediction = nullptr;  // a replayed one
  std::string not_replayed;                // why not, when `prediction` is null
};
PredictionOf predictionOf(const RecommendationPredictions& predictions,
                          const advice::Recommendation& rec);

RecommendationPredictions predictRecommendations(
    const model::ClusterSnapshot& cluster, const std::vector<graph::RunGraph>& graphs,
    const std::vector<advice::Recommendation>& recommendations,
    const RecommendationPredictionOptions& options = {});

}  // namespace dagadvisor::prediction
