#include "app/whatif_apply.h"

#include <algorithm>
#include <limits>
#include <sstream>

#include "app/app.h"
#include "app/one_analysis.h"
#include "common/secrets.h"
#include "report/prediction_json.h"
#include "report/prediction_text.h"

namespace dagadvisor::app {
namespace {

std::vector<std::string> splitIds(const std::string& list) {
  std::vector<std::string> ids;
  std::istringstream in(list);
  for (std::string id; std::getline(in, id, ',');) {
    if (!id.empty()) {
      ids.push_back(id);
    }
  }
  return ids;
}

// Why an id named on the command line cannot be applied, or "".
std::string selectionProblem(const report::AnalysisReport& report, const std::string& id) {
  const auto it = std::find_if(report.recommendations.begin(), report.recommendations.end(),
                               [&](const advice::Recommendation& rec) { return rec.id == id; });
  if (it == report.recommendations.end()) {
    return "no recommendation has the id '" + id + "' in this analysis";
  }
  if (it->changes.changes.empty()) {
    return id + " has no change the replay models (its advice is in words)";
  }
  const auto predicted = report.predictions.by_id.find(id);
  if (predicted == report.predictions.by_id.end() || !predicted->second.replayed) {
    return id + " cannot be replayed: " +
           (predicted == report.predictions.by_id.end() ? report.predictions.unavailable
                                                        : predicted->second.not_replayed);
  }
  return "";
}

}  // namespace

int runWhatIfApply(const CliOptions& cli, const config::Config& config, std::ostream& out,
                   std::ostream& err) {
  const auto fail = [&](int code, const std::string& message) {
    err << "dagadvisor: whatif: " << scrubSecrets(message) << "\n";
    return code;
  };
  const bool all = cli.apply == "all";
  // Asked for on the command line: every named recommendation is replayed, whatever the
  // per-cycle bound of serve says (the window's size bound and the replay count still hold).
  auto options = prediction::RecommendationPredictionOptions::fromConfig(config);
  options.enabled = true;
  options.replay.runs_listed = std::numeric_limits<std::size_t>::max();
  options.together_limit = std::numeric_limits<std::size_t>::max();
  options.max_recommendations = std::numeric_limits<std::size_t>::max();
  if (!all) {
    options.together_selection = splitIds(cli.apply);
    if (options.together_selection.empty()) {
      return fail(kExitUsage, "--apply needs recommendation ids (ID[,ID...]) or all");
    }
  }
  SystemClock clock;
  const OneAnalysis analysis = runOneAnalysis(cli, config, clock, options);
  if (!analysis.report) {
    return fail(analysis.exit_code, analysis.error);
  }
  const report::AnalysisReport& report = *analysis.report;
  for (const std::string& id : options.together_selection) {
    if (std::string problem = selectionProblem(report, id); !problem.empty()) {
      return fail(kExitUsage, problem);
    }
  }
  if (report.predictions.together_ids.empty()) {
    return fail(kExitUsage, "no recommendation of this analysis has a change the replay models");
  }
  if (cli.output == "table") {
    out << report::renderWhatIfText(report);
  } else {
    out << report::whatIfJson(report).dump(2) << "\n";
  }
  return kExitOk;
}

}  // namespace dagadvisor::app
