// The bundled default scenario through the whole pipeline: the recommendations' change sets are
// replayed, and the pods each recommendation is about wait less.
#include <algorithm>
#include <catch2/catch.hpp>
#include <optional>

#include "advice/kind_list.h"
#include "advice/recommender.h"
#include "analysis/detector_runner.h"
#include "graph/cluster_whatif.h"
#include "ingestion/promql_reader.h"
#include "model/adapters/object_edges.h"
#include "prediction/recommendation_predictions.h"
#include "sources/snapshot/snapshot_source.h"

using namespace dagadvisor;

namespace {

struct Predicted {
  std::vector<advice::Recommendation> recommendations;
  prediction::RecommendationPredictions predictions;

  const prediction::Prediction& of(const std::string& kind) const {
    for (const advice::Recommendation& rec : recommendations) {
      if (rec.kind == kind) {
        return predictions.by_id.at(rec.id);
      }
    }
    FAIL("no recommendation of kind " << kind);
    throw std::logic_error("unreachable");
  }
};

// `first`, when given, is ranked before the scenario's own recommendations. Without `received`,
// the task pods' received bytes are not read, so no hand-off is priced.
Predicted predictDefaultScenario(const prediction::RecommendationPredictionOptions& options = {},
                                 const std::optional<advice::Recommendation>& first = {},
                                 bool received = true) {
  auto source = sources::SnapshotSource::open(std::string(DAGADVISOR_SOURCE_DIR) +
                                              "/config/scenarios/default");
  REQUIRE(source.ok());
  const config::Config config = advice::defaultConfig();
  ingestion::FetchStats stats;
  config::PrometheusSource one_shot = config.sources.prometheus;
  one_shot.incremental.resync = config::Seconds(0);  // a snapshot holds one full read
  ingestion::PromqlClusterReader reader(**source, one_shot);
  const UnixSeconds at = (*source)->analysisTime();
  auto cluster = reader.read(at, stats);
  INFO((cluster.ok() ? std::string() : cluster.error().describe()));
  REQUIRE(cluster.ok());
  std::vector<std::string> warnings;  // edges inferred from timing, as the daemon's cycle does
  const auto runs = model::buildRunsWithObjects(*cluster, config.workflow_labels, {}, warnings);
  const auto graphs =
      graph::buildRunGraphs(runs, *cluster, graph::WhatIfTransfer::fromConfig(config));
  // What the task pods received prices the hand-offs, as in the daemon's cycle.
  if (received) {
    cluster->joinNetworkReceive(reader.readNetworkReceive(
        *cluster, graph::finishedTasksWithParents(graphs, *cluster), at, stats));
  }
  REQUIRE(stats.warnings.empty());
  const auto detection = analysis::runDetectors(advice::enabledDetectors(config.detectors),
                                                analysis::AnalysisInput{*cluster, graphs, config});
  Predicted out;
  out.recommendations = advice::recommend(detection.findings, config, *cluster);
  if (first) {
    out.recommendations.insert(out.recommendations.begin(), *first);
  }
  out.predictions =
      prediction::predictRecommendations(*cluster, graphs, out.recommendations, options);
  return out;
}

// Every pod of the hourly reports asking for 12 CPUs: their runs queue for room, and the GPU pods
// wait longer for the CPU beside their GPUs. Harmful in every replay, whatever the prices.
advice::Recommendation overAskHourlyReports() {
  advice::Recommendation rec;
  rec.id = "over-ask-hourly-reports";
  rec.kind = "test";
  replay::PodMatch hourly;
  hourly.namespace_ = "analytics";
  rec.changes.changes.push_back(replay::SetRequests{hourly, 12000, std::nullopt, std::nullopt});
  return rec;
}

}  // namespace

TEST_CASE("every change set of the default scenario's recommendations names objects it has") {
  const Predicted p = predictDefaultScenario();
  REQUIRE(p.predictions.unavailable.empty());
  std::size_t with_changes = 0;
  for (const advice::Recommendation& rec : p.recommendations) {
    if (rec.changes.changes.empty()) {
      continue;
    }
    ++with_changes;
    const prediction::Prediction& predicted = p.predictions.by_id.at(rec.id);
    INFO(rec.id << ": " << predicted.not_replayed);
    CHECK(predicted.replayed);
    CHECK(predicted.matched.size() == rec.changes.changes.size());
  }
  CHECK(with_changes >= 3);
  // Each is applied together, or left out for its own predicted cost.
  CHECK(p.predictions.together_ids.size() + p.predictions.left_out_of_together.size() ==
        with_changes);
  CHECK(p.predictions.together.replayed);
  std::printf("default scenario: %zu recommendations replayed, %zu pods, %.3f s\n", with_changes,
              p.predictions.replayed_pods, p.predictions.seconds);
}

// Keeping a DAG's tasks near their parents gains only in hand-offs: where the replay charges
// none (no prices, no measured crossing), it says so instead of predicting a gain of 0. Without
// prices, the hourly reports' crossings (measured over their many runs) still charge theirs; the
// nightly DAGs, one run each, have nothing left.
TEST_CASE("hand-off advice is predicted only where the replay charges its tasks' hand-offs") {
  const Predicted priced = predictDefaultScenario();
  const Predicted unpriced = predictDefaultScenario({}, {}, false);
  REQUIRE(priced.predictions.transfer_prices.measured());
  CHECK(unpriced.predictions.transfer_prices.same_zone.fetches == 0);
  const auto joined = [&](const std::string& id) {
    const auto& ids = unpriced.predictions.together_ids;
    return std::find(ids.begin(), ids.end(), id) != ids.end();
  };
  std::size_t measured = 0;
  std::size_t not_charged = 0;
  for (const advice::Recommendation& rec : unpriced.recommendations) {
    INFO(rec.id);
    CHECK(rec.gain_in_hand_offs == (rec.kind == "split-dependencies"));
    if (rec.changes.changes.empty()) {
      continue;  // advice in words: nothing to replay, priced or not
    }
    const prediction::Prediction& without = unpriced.predictions.by_id.at(rec.id);
    CHECK(priced.predictions.by_id.at(rec.id).replayed);
    if (!rec.gain_in_hand_offs || rec.evidence.at("transfer_basis") == "measured") {
      measured += rec.gain_in_hand_offs ? 1 : 0;
      CHECK(without.replayed);
      continue;
    }
    ++not_charged;
    CHECK_FALSE(without.replayed);
    CHECK_THAT(without.not_replayed, Catch::Contains("charges no hand-off") &&
                                         Catch::Contains("measured: 0 within a zone, 0 across"));
    CHECK_FALSE(joined(rec.id));
  }
  CHECK(measured == 1);
  CHECK(not_charged == 3);
}

TEST_CASE("the default scenario's hoarding and priority advice shorten their pods' wait") {
  const Predicted p = predictDefaultScenario();
  const prediction::Prediction& hoarding = p.of("gpu-node-hoarding");
  REQUIRE(hoarding.watched_pods > 0);
  // In every perturbed replay, not only in the median.
  CHECK(hoarding.watched_pending_seconds.change_high < 0);
  CHECK(hoarding.gpu_pod_pending_seconds.change() < 0);
  const prediction::Prediction& priority = p.of("critical-path-priority");
  REQUIRE(priority.watched_pods > 0);
  CHECK(priority.watched_pending_seconds.change() < 0);
}

TEST_CASE("the predictions a cycle pays for are bounded by analysis.prediction") {
  config::Config bounded;
  bounded.analysis.prediction.max_recommendations = 1;
  const Predicted one =
      predictDefaultScenario(prediction::RecommendationPredictionOptions::fromConfig(bounded));
  CHECK(one.predictions.by_id.size() == 1);
  CHECK(one.predictions.together_ids.size() == 1);
  // The first replayable one in rank order.
  const auto first = std::find_if(one.recommendations.begin(), one.recommendations.end(),
                                  [](const auto& rec) { return !rec.changes.changes.empty(); });
  REQUIRE(first != one.recommendations.end());
  CHECK(one.predictions.by_id.count(first->id) == 1);

  config::Config small;
  small.analysis.prediction.max_pods = 100;
  const Predicted none =
      predictDefaultScenario(prediction::RecommendationPredictionOptions::fromConfig(small));
  CHECK(none.predictions.by_id.empty());
  CHECK(none.predictions.unavailable.find("more than analysis.prediction.max_pods (100)") !=
        std::string::npos);

  config::Config off;
  off.analysis.prediction.enabled = false;
  CHECK_FALSE(predictDefaultScenario(prediction::RecommendationPredictionOptions::fromConfig(off))
                  .predictions.unavailable.empty());
}

// Advice whose own prediction is a cost in every replay stays out of the joint prediction (and
// so out of what the simulator applies in the closed loop), unless the user names it. The
// bundled scenario's own advice has none since its hand-offs are priced: a test one is added.
TEST_CASE("a recommendation reliably harmful on its own is left out of the joint prediction") {
  const Predicted p = predictDefaultScenario({}, overAskHourlyReports());
  std::vector<std::string> harmful;
  for (const auto& [id, prediction] : p.predictions.by_id) {
    if (prediction::reliablyHarmful(prediction)) {
      harmful.push_back(id);
      CHECK(prediction.makespan_seconds.change_low > 0);
    }
  }
  CHECK(harmful == std::vector<std::string>{"over-ask-hourly-reports"});
  std::vector<std::string> left_out = p.predictions.left_out_of_together;  // in rank order
  std::sort(left_out.begin(), left_out.end());
  std::sort(harmful.begin(), harmful.end());  // by_id has no order
  CHECK(left_out == harmful);
  for (const std::string& id : harmful) {
    CHECK(std::find(p.predictions.together_ids.begin(), p.predictions.together_ids.end(), id) ==
          p.predictions.together_ids.end());
  }
  CHECK(p.predictions.together_ids.size() + harmful.size() == p.predictions.by_id.size());

  prediction::RecommendationPredictionOptions named;
  named.together_selection = harmful;
  const Predicted asked = predictDefaultScenario(named, overAskHourlyReports());
  CHECK(asked.predictions.together_ids == harmful);
  CHECK(asked.predictions.left_out_of_together.empty());
}

TEST_CASE("reliably harmful: slower in every replay, and no GPU figure better in every replay") {
  prediction::Prediction p;
  p.replayed = true;
  p.affected_runs = 3;
  p.makespan_seconds = {100, 130, 2, 60};
  CHECK(prediction::reliablyHarmful(p));
  p.makespan_seconds.change_low = 0;  // one replay without the slowdown: not reliable
  CHECK_FALSE(prediction::reliablyHarmful(p));
  p.makespan_seconds.change_low = 2;
  p.gpu_pod_pending_seconds = {600, 100, -550, -400};  // the GPU pods wait less in every replay
  CHECK_FALSE(prediction::reliablyHarmful(p));
  p.gpu_pod_pending_seconds = {};
  p.gpu_allocation = {0.2, 0.3, 0.05, 0.12};
  CHECK_FALSE(prediction::reliablyHarmful(p));
  p.gpu_allocation = {};
  p.watched_pods = 2;
  p.watched_pending_seconds = {900, 10, -890, -700};
  CHECK_FALSE(prediction::reliablyHarmful(p));
}
