#include "report/prediction_json.h"

#include "common/duration.h"

namespace dagadvisor::report {
namespace {

using nlohmann::json;

json beforeAfterJson(const prediction::BeforeAfter& f) {
  return json{{"before", f.before},
              {"after", f.after},
              {"change", f.change()},
              {"change_range", json::array({f.change_low, f.change_high})}};
}

json runsJson(const std::vector<prediction::RunPrediction>& runs) {
  json out = json::array();
  for (const prediction::RunPrediction& run : runs) {
    out.push_back(json{{"run", run.run},
                       {"makespan_seconds", beforeAfterJson(run.makespan_seconds)},
                       {"complete_before", run.complete_before},
                       {"complete_after", run.complete_after},
                       {"finished_in_window", run.finished_in_window}});
  }
  return out;
}

json notReplayed(const std::string& reason) {
  return json{{"replayed", false}, {"reason", reason}};
}

}  // namespace

json predictionJson(const prediction::Prediction& p) {
  if (!p.replayed) {
    return notReplayed(p.not_replayed);
  }
  json out{{"replayed", true},
           {"basis", "modelled: the observed window replayed with and without the change"},
           {"replays", p.replays},
           {"matched", p.matched},
           {"reach",
            {{"whole", p.reach.whole},
             {"nodes", p.reach.nodes},
             {"pods", p.reach.pods},
             {"runs", p.reach.runs}}},
           {"hand_offs", {{"tasks", p.hand_offs.tasks}, {"charged", p.hand_offs.charged}}},
           {"affected_runs", p.affected_runs},
           {"makespan_seconds", beforeAfterJson(p.makespan_seconds)},
           {"critical_path_wait_seconds", beforeAfterJson(p.critical_path_wait_seconds)},
           {"gpu_pod_pending_seconds", beforeAfterJson(p.gpu_pod_pending_seconds)},
           {"gpu_allocation", beforeAfterJson(p.gpu_allocation)},
           {"runs", runsJson(p.runs)}};
  if (p.watched_pods > 0) {
    out["watched_pods"] = p.watched_pods;
    out["watched_pending_seconds"] = beforeAfterJson(p.watched_pending_seconds);
  }
  return out;
}

json predictedJson(const AnalysisReport& report, const advice::Recommendation& rec) {
  const prediction::PredictionOf of = prediction::predictionOf(report.predictions, rec);
  return of.prediction == nullptr ? notReplayed(of.not_replayed) : predictionJson(*of.prediction);
}

json transferPriceJson(const analysis::TransferPrice& price) {
  return json{{"seconds_per_gb", price.seconds_per_gb},
              {"fetches", price.fetches},
              {"measured", price.measured()}};
}

json predictionSummaryJson(const AnalysisReport& report) {
  const prediction::RecommendationPredictions& p = report.predictions;
  if (!p.unavailable.empty()) {
    return notReplayed(p.unavailable);
  }
  const replay::CalibrationReport& c = p.calibration;
  return json{
      {"replayed", true},
      {"pods", p.replayed_pods},
      {"window",
       {{"start", formatTimestamp(p.window_start)}, {"end", formatTimestamp(p.window_end)}}},
      {"seconds", p.seconds},
      {"calibration",
       {{"finished_runs", c.finished_runs},
        {"median_error", c.median_error},
        {"p90_error", c.p90_error},
        {"max_error", c.max_error},
        {"gpu_pod_wait",
         {{"pods", c.gpu_pods},
          {"observed_seconds", c.observed_gpu_pod_wait},
          {"replayed_seconds", c.replayed_gpu_pod_wait}}}}},
      {"transfer_prices",
       {{"same_zone", transferPriceJson(p.transfer_prices.same_zone)},
        {"cross_zone", transferPriceJson(p.transfer_prices.cross_zone)},
        {"charged", p.transfer_prices.measured()}}},
      {"together",
       {{"recommendations", p.together_ids},
        {"left_out", p.left_out_of_together},
        {"predicted", p.together_ids.empty() ? notReplayed("no recommendation with changes")
                                             : predictionJson(p.together)}}}};
}

json whatIfJson(const AnalysisReport& report) {
  json out = predictionSummaryJson(report);
  out["cluster"] = report.cluster;
  out["data_time"] = formatTimestamp(report.data_time);
  return out;
}

}  // namespace dagadvisor::report
