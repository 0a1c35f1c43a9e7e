#include "prediction/recommendation_predictions.h"

#include <algorithm>
#include <chrono>
#include <tuple>

#include "common/cancellation.h"

namespace dagadvisor::prediction {
namespace {

bool joins(const std::string& id, std::size_t joined, const RecommendationPredictionOptions& o) {
  if (o.together_selection.empty()) {
    return joined < o.together_limit;
  }
  return std::find(o.together_selection.begin(), o.together_selection.end(), id) !=
         o.together_selection.end();
}

// Advice whose gain is in hand-offs, where the replay charges none of the tasks it places: a
// replay would show a gain of 0, which is not what the cluster would see but what it cannot tell.
Prediction handOffsNotCharged(const analysis::TransferPrices& prices) {
  Prediction p;
  p.not_replayed =
      "the replay charges no hand-off of the tasks this advice places, so it cannot value moving "
      "them: a hand-off is charged at prices per GB measured from the task pods' received bytes "
      "(each price needs " +
      std::to_string(analysis::kMinPricedFetches) +
      " finished fetches; measured: " + std::to_string(prices.same_zone.fetches) +
      " within a zone, " + std::to_string(prices.cross_zone.fetches) +
      " across zones), or at a task's crossing measured over its DAG's runs, and never for a "
      "task whose parents were guessed from timing (the engine's API declares them)";
  return p;
}

}  // namespace

RecommendationPredictionOptions RecommendationPredictionOptions::fromConfig(
    const config::Config& config) {
  const config::Prediction& prediction = config.analysis.prediction;
  RecommendationPredictionOptions o;
  o.enabled = prediction.enabled;
  o.replay.replays = static_cast<std::uint32_t>(prediction.replays);
  o.replay.zone_label = config.cluster_labels.zone;
  o.max_recommendations = static_cast<std::size_t>(prediction.max_recommendations);
  o.together_limit = o.max_recommendations;
  o.max_pods = static_cast<std::size_t>(prediction.max_pods);
  return o;
}

PredictionOf predictionOf(const RecommendationPredictions& predictions,
                          const advice::Recommendation& rec) {
  if (rec.changes.changes.empty()) {
    return {nullptr, "no change the replay models (advice in words, or a patch it cannot apply)"};
  }
  if (!predictions.unavailable.empty()) {
    return {nullptr, "the window could not be replayed: " + predictions.unavailable};
  }
  const auto it = predictions.by_id.find(rec.id);
  if (it == predictions.by_id.end()) {
    return {nullptr, "beyond analysis.prediction.max_recommendations in this cycle"};
  }
  if (!it->second.replayed) {
    return {nullptr, it->second.not_replayed};
  }
  return {&it->second, ""};
}

RecommendationPredictions predictRecommendations(
    const model::ClusterSnapshot& cluster, const std::vector<graph::RunGraph>& graphs,
    const std::vector<advice::Recommendation>& recommendations,
    const RecommendationPredictionOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  RecommendationPredictions out;
  if (!options.enabled) {
    out.unavailable = "predictions are off (analysis.prediction.enabled)";
    return out;
  }
  if (cluster.pods().size() > options.max_pods) {
    out.unavailable = "the window has " + std::to_string(cluster.pods().size()) +
                      " pods, more than analysis.prediction.max_pods (" +
                      std::to_string(options.max_pods) + ")";
    return out;
  }
  auto context = PredictionContext::build(cluster, graphs, options.replay);
  if (!context.ok()) {
    out.unavailable = context.error().describe();
    return out;
  }
  out.calibration = context->calibration();
  out.transfer_prices = context->transferPrices();
  out.replayed_pods = context->pods();
  std::tie(out.window_start, out.window_end) = context->window();
  replay::ChangeSet together;
  std::vector<std::string> watched_together;
  std::size_t replayed = 0;
  for (const advice::Recommendation& rec : recommendations) {
    if (rec.changes.changes.empty()) {
      continue;
    }
    if (replayed++ == options.max_recommendations) {
      break;  // the rest say "not replayed in this cycle"
    }
    // A daemon asked to stop must exit within its grace period, not after the replays.
    if (auto stop = Cancellation::process()->stoppedBecause()) {
      out.unavailable = *stop;
      return out;
    }
    if (rec.gain_in_hand_offs && context->handOffCoverage(rec.changes).charged == 0) {
      out.by_id.emplace(rec.id, handOffsNotCharged(context->transferPrices()));
      continue;
    }
    Prediction p = context->predict(rec.changes, rec.watched_pods);
    // A set the replay cannot apply would make the joint one fail as a whole; advice whose own
    // prediction is a cost is left out unless the user named it.
    const bool harmful = options.together_selection.empty() && reliablyHarmful(p);
    if (p.replayed && harmful) {
      out.left_out_of_together.push_back(rec.id);
    } else if (p.replayed && joins(rec.id, out.together_ids.size(), options)) {
      out.together_ids.push_back(rec.id);
      together.changes.insert(together.changes.end(), rec.changes.changes.begin(),
                              rec.changes.changes.end());
      watched_together.insert(watched_together.end(), rec.watched_pods.begin(),
                              rec.watched_pods.end());
    }
    out.by_id.emplace(rec.id, std::move(p));
  }
  // The joint replay is as long as one of them.
  if (auto stop = Cancellation::process()->stoppedBecause()) {
    out.unavailable = *stop;
    return out;
  }
  if (!out.together_ids.empty()) {
    out.together = context->predict(together, watched_together);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

}  // namespace dagadvisor::prediction
