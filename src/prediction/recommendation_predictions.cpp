#include "prediction/recommendation_predictions.h"

#include <algorithm>
#include <chrono>

namespace dagadvisor::prediction {
namespace {

bool joins(const std::string& id, std::size_t joined, const RecommendationPredictionOptions& o) {
  if (o.together_selection.empty()) {
    return joined < o.together_limit;
  }
  return std::find(o.together_selection.begin(), o.together_selection.end(), id) !=
         o.together_selection.end();
}

}  // namespace

RecommendationPredictions predictRecommendations(
    const model::ClusterSnapshot& cluster, const std::vector<graph::RunGraph>& graphs,
    const std::vector<advice::Recommendation>& recommendations,
    const RecommendationPredictionOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  RecommendationPredictions out;
  auto context = PredictionContext::build(cluster, graphs, options.replay);
  if (!context.ok()) {
    out.unavailable = context.error().describe();
    return out;
  }
  out.calibration = context->calibration();
  out.replayed_pods = context->pods();
  replay::ChangeSet together;
  std::vector<std::string> watched_together;
  for (const advice::Recommendation& rec : recommendations) {
    if (rec.changes.changes.empty()) {
      continue;
    }
    Prediction p = context->predict(rec.changes, rec.watched_pods);
    // A set the replay cannot apply would make the joint one fail as a whole.
    if (p.replayed && joins(rec.id, out.together_ids.size(), options)) {
      out.together_ids.push_back(rec.id);
      together.changes.insert(together.changes.end(), rec.changes.changes.begin(),
                              rec.changes.changes.end());
      watched_together.insert(watched_together.end(), rec.watched_pods.begin(),
                              rec.watched_pods.end());
    }
    out.by_id.emplace(rec.id, std::move(p));
  }
  if (!out.together_ids.empty()) {
    out.together = context->predict(together, watched_together);
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

}  // namespace dagadvisor::prediction
