#include "app/one_analysis.h"

#include "app/analysis_cycle.h"
#include "app/app.h"
#include "app/setup.h"

namespace dagadvisor::app {

OneAnalysis runOneAnalysis(
    const CliOptions& cli, const config::Config& config, const Clock& clock,
    const std::optional<prediction::RecommendationPredictionOptions>& predict) {
  auto setup = openSource(config);
  if (!setup.ok()) {
    const bool usage = setup.error().message.rfind("no data source", 0) == 0;
    return {nullptr, usage ? kExitUsage : kExitFailure, setup.error().describe()};
  }
  auto at = analysisTime(cli, *setup, clock);
  if (!at.ok()) {
    return {nullptr, kExitUsage, at.error().describe()};
  }
  const auto objects = objectSources(config, setup->kubernetes.get(), setup->airflow.get());
  auto report = runAnalysisCycle(*setup->reader, config, *at, clock, nullptr, objects, predict);
  if (!report.ok()) {
    return {nullptr, kExitFailure, report.error().describe()};
  }
  return {std::move(report).value(), kExitOk, ""};
}

}  // namespace dagadvisor::app
